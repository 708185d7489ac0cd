// Greedy top-K selection and its pruning bound (kernels/top_windows.hpp).
#include <algorithm>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>

#include "warpwatch/kernels/top_windows.hpp"

namespace warpwatch::kernels::common {

void check_request(const TopWindowsRequest& r) {
  validate(r.pattern.params, r.pattern.length());
  if (r.pattern.dims != r.stream.dims)
    throw std::invalid_argument("top windows: pattern '" + r.pattern.id + "' has " +
                                std::to_string(r.pattern.dims) + " dims, the stream " +
                                std::to_string(r.stream.dims));
  if (r.values.size() != r.times_ns.size() * r.stream.dims)
    throw std::invalid_argument("top windows: values are not samples x dims");
}

std::vector<TopCandidate> select_top(std::vector<TopCandidate> candidates, std::size_t k,
                                     std::size_t w) {
  std::sort(candidates.begin(), candidates.end(), [](const TopCandidate& a, const TopCandidate& b) {
    return a.distance < b.distance || (a.distance == b.distance && a.end < b.end);
  });
  std::vector<TopCandidate> taken;
  std::set<std::uint64_t> ends;  // of the taken windows
  // Windows ending at e and f overlap by w - |e - f| samples: too much when 2|e - f| < w.
  const auto clash = [w](std::uint64_t e, std::uint64_t f) {
    return 2 * (e > f ? e - f : f - e) < w;
  };
  for (const TopCandidate& c : candidates) {
    if (taken.size() == k) break;
    const auto after = ends.lower_bound(c.end);
    if (after != ends.end() && clash(*after, c.end)) continue;
    if (after != ends.begin() && clash(*std::prev(after), c.end)) continue;
    ends.insert(c.end);
    taken.push_back(c);
  }
  return taken;
}

std::vector<TopWindow> top_windows_of(std::vector<TopCandidate> candidates, std::size_t k,
                                      std::size_t w, std::span<const std::int64_t> times_ns) {
  std::vector<TopWindow> out;
  for (const TopCandidate& c : select_top(std::move(candidates), k, w)) {
    const std::uint64_t start = c.end + 1 - w;
    out.push_back({c.distance, start, c.end, times_ns[start], times_ns[c.end]});
  }
  return out;
}

double top_bound(std::vector<TopCandidate> candidates, std::size_t k, std::size_t w) {
  const std::vector<TopCandidate> taken = select_top(std::move(candidates), 2 * k - 1, w);
  return taken.size() < 2 * k - 1 ? std::numeric_limits<double>::infinity() : taken.back().distance;
}

}  // namespace warpwatch::kernels::common
