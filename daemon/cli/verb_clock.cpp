#include "verb_clock.hpp"

#include <ostream>

namespace warpwatch::cli {

void VerbClock::report(std::ostream& err, const VerbWork& work) const {
  const auto seconds = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  };
  const double computing = seconds(read_, computed_);
  err << work.verb << ": " << work.what << ", backend " << work.backend << ": read in "
      << seconds(start_, read_) << " s, " << work.done << " " << work.amount << " " << work.unit
      << " in " << computing << " s (" << (computing > 0 ? work.amount / computing : 0.0) << " "
      << work.unit << "/s)" << work.tail << "\n";
}

}  // namespace warpwatch::cli
