// The time a verb that reads series files and then computes took (`distance`, `search`),
// said on stderr in one form:
//   distance: 50 x 150 twed, backend cpu: read in 0.021 s, computed 1.1e+06 cells in
//   0.31 s (3.6e+06 cells/s), written to d.csv
#pragma once

#include <chrono>
#include <iosfwd>
#include <string>
#include <string_view>

namespace warpwatch::cli {

// What was computed, for VerbClock::report.
struct VerbWork {
  std::string_view verb;     // "distance"
  std::string what;          // "50 x 150 twed"
  std::string_view backend;  // the backend that computed
  std::string_view done;     // "computed", "searched"
  double amount = 0;         // of `unit`: the rate's numerator
  std::string_view unit;     // "cells", "samples"
  std::string tail;          // appended as is: ", written to d.csv", or ""
};

class VerbClock {
 public:
  // The files are read: the time from here on is computing.
  void read() { read_ = Clock::now(); }
  // The computing is done (writing the result is not timed).
  void computed() { computed_ = Clock::now(); }
  // One line on `err`: the reading and the computing, with its rate.
  void report(std::ostream& err, const VerbWork& work) const;

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point start_ = Clock::now(), read_ = start_, computed_ = start_;
};

}  // namespace warpwatch::cli
