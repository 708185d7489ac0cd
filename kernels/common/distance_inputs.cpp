#include "distance_inputs.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

namespace warpwatch::kernels::common {

namespace {
// One dims for every series of A and B, none empty.
void check_series(std::span<const SeriesView> a, std::span<const SeriesView> b) {
  if (a.empty() || b.empty()) return;
  const std::size_t dims = a[0].dims;
  for (auto set : {a, b})
    for (const SeriesView& s : set) {
      if (s.dims != dims) throw std::invalid_argument("series have different dimensions");
      if (s.length == 0) throw std::invalid_argument("empty series");
    }
}
}  // namespace

void check_distance_inputs(std::span<const SeriesView> a, std::span<const SeriesView> b,
                           const DistanceParams& params, std::span<const double> out) {
  validate(params);
  if (out.size() != a.size() * b.size())
    throw std::invalid_argument("distance_matrix: output size is not |A| x |B|");
  check_series(a, b);
  if (a.empty() || b.empty() || !measure_info(params.metric).lock_step) return;
  for (const auto& [set, name] : {std::pair{a, "A"}, std::pair{b, "B"}})
    for (std::size_t i = 0; i < set.size(); ++i)
      if (set[i].length != a[0].length)
        throw std::invalid_argument("ed compares series of equal length: series " +
                                    std::to_string(i) + " of " + name + " has " +
                                    std::to_string(set[i].length) + " samples, series 0 of A " +
                                    std::to_string(a[0].length));
}

std::vector<std::size_t> softdtw_grad_rows(std::span<const SeriesView> a, std::size_t b_count) {
  std::vector<std::size_t> rows{0};
  for (const SeriesView& s : a) rows.push_back(rows.back() + s.length * s.dims * b_count);
  return rows;
}

void check_softdtw_grad_inputs(std::span<const SeriesView> a, std::span<const SeriesView> b,
                               const DistanceParams& params, std::span<const double> out) {
  validate(params);
  if (params.metric != Metric::softdtw)
    throw std::invalid_argument("softdtw_grad_matrix: the gradient is softdtw's, not " +
                                std::string(to_string(params.metric)) + "'s");
  check_series(a, b);
  if (out.size() != softdtw_grad_rows(a, b.size()).back())
    throw std::invalid_argument(
        "softdtw_grad_matrix: output size is not |B| x (the samples x dims of A)");
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
