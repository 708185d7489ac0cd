#include "cpu/distance/column_groups.hpp"

#include <algorithm>
#include <numeric>

namespace warpwatch::kernels::cpu {

std::vector<ColumnGroup> group_columns(std::span<const SeriesView> b, std::size_t width, bool twed,
                                       double origin) {
  std::vector<std::size_t> order(b.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t x, std::size_t y) { return b[x].length < b[y].length; });
  std::vector<ColumnGroup> groups;
  for (std::size_t k = 0; k < order.size();) {
    ColumnGroup g;
    g.length = b[order[k]].length;
    while (k < order.size() && g.columns.size() < width && b[order[k]].length == g.length)
      g.columns.push_back(order[k++]);
    const std::size_t dims = b[g.columns[0]].dims, m = g.length;
    g.values.assign(m * dims * width, 0.0f);
    if (twed) g.times.assign(m * width, 0.0f);
    for (std::size_t lane = 0; lane < g.columns.size(); ++lane) {
      const SeriesView& s = b[g.columns[lane]];
      for (std::size_t j = 0; j < m; ++j) {
        for (std::size_t c = 0; c < dims; ++c)
          g.values[(j * dims + c) * width + lane] = s.sample(j)[c];
        if (twed) g.times[j * width + lane] = static_cast<float>(s.time(j) - origin);
      }
    }
    groups.push_back(std::move(g));
  }
  return groups;
}

}  // namespace warpwatch::kernels::cpu
