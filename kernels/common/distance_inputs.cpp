#include "distance_inputs.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace warpwatch::kernels::common {

void check_distance_inputs(std::span<const SeriesView> a, std::span<const SeriesView> b,
                           const DistanceParams& params, std::span<const double> out) {
  validate(params);
  if (out.size() != a.size() * b.size())
    throw std::invalid_argument("distance_matrix: output size is not |A| x |B|");
  if (a.empty() || b.empty()) return;
  const std::size_t dims = a[0].dims;
  for (auto set : {a, b})
    for (const SeriesView& s : set) {
      if (s.dims != dims) throw std::invalid_argument("series have different dimensions");
      if (s.length == 0) throw std::invalid_argument("empty series");
    }
  if (params.metric != Metric::ed) return;
  for (const auto& [set, name] : {std::pair{a, "A"}, std::pair{b, "B"}})
    for (std::size_t i = 0; i < set.size(); ++i)
      if (set[i].length != a[0].length)
        throw std::invalid_argument("ed compares series of equal length: series " +
                                    std::to_string(i) + " of " + name + " has " +
                                    std::to_string(set[i].length) + " samples, series 0 of A " +
                                    std::to_string(a[0].length));
}

double twed_time_origin(std::span<const SeriesView> a, std::span<const SeriesView> b) {
  double origin = 0.0;
  bool first = true;
  for (auto set : {a, b})
    for (const SeriesView& s : set) {
      if (!s.times) return 0.0;
      origin = first ? s.time(0) : std::min(origin, s.time(0));
      first = false;
    }
  return origin;
}

}  // namespace warpwatch::kernels::common
