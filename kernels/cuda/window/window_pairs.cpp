#include "cuda/window/window_pairs.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <limits>
#include <string>
#include <tuple>

#include "common/window/window_stats.hpp"
#include "cuda/runtime/cuda_check.hpp"
#include "warpwatch/kernels/errors.hpp"

namespace warpwatch::kernels::cuda {
namespace {

using detail::WindowSearchInput;

// The moments kernel anchors as WindowStats does (it cannot include the host header).
static_assert(detail::kWindowAnchor == common::kStatsAnchor);

constexpr std::size_t kNoBand = std::numeric_limits<std::size_t>::max();

// Grows a buffer by half again at least, so that batches of varying size do not reallocate
// (pinned allocations cost milliseconds) every time.
template <typename Buffer>
void grow(Buffer& b, std::size_t count) {
  count = std::max<std::size_t>(count, 1);
  if (count > b.capacity()) b.reserve(std::max(count, b.capacity() + b.capacity() / 2));
}

// The input's kind: detail::FastKind of a dtw or dk pattern, or ed's (the pairs covers()
// takes: no other measure gets here).
int input_kind(const common::WindowQuery& q) {
  const bool sq = q.cost == Cost::sq;
  switch (q.metric) {
    case Metric::dtw:
      return sq ? 0 : 1;
    case Metric::dk:
      return sq ? 2 : 3;
    case Metric::ed:
      return sq ? detail::kWindowEdSq : detail::kWindowEdAbs;
    case Metric::softdtw:
    case Metric::twed:
      WARPWATCH_CELL_MEASURE_CASES
      break;
  }
  WW_ASSERT(false, "window pairs: a measure the device passes do not cover");
  return -1;
}

bool is_ed(int kind) {
  return kind == detail::kWindowEdSq || kind == detail::kWindowEdAbs;
}

// The kernel instance (kind, rows a lane, band) that computes the pair: pairs of one
// launch share it. ed's sort last (the bounds pass stops before them).
std::tuple<int, int, bool> launch_group(const common::Pair& pair) {
  const common::WindowQuery& q = *pair.pattern->window_query;
  const int kind = input_kind(q);
  if (is_ed(kind)) return {kind, 0, false};
  return {kind, detail::window_rows_per_lane(q.n),
          pair.pattern->def->params.distance.band.has_value()};
}

// The first sample the batch's windows of this pair read: the first window's start, or
// under znorm its moments' anchor window's (WindowStats::at).
std::uint64_t first_sample_read(const common::WindowBatch& b) {
  const common::WindowTrack& t = *b.pair->window;
  const std::uint64_t e = b.ends.front();
  const std::uint64_t from = t.znorm() ? common::stats_anchor(e, t.first_end()) : e;
  return from + 1 - t.window();
}

}  // namespace

bool WindowPairs::covers(const common::Pair& pair) {
  const common::WindowQuery* q = pair.pattern->window_query.get();
  const PatternDef& p = *pair.pattern->def;
  const Metric metric = p.params.distance.metric;
  if (q == nullptr || p.dims != 1) return false;
  if (metric == Metric::ed) return true;
  return (metric == Metric::dtw || metric == Metric::dk) && q->n <= detail::kWindowMaxRows &&
         q->reachable && q->rows_nonempty;
}

std::size_t WindowPairs::device_bytes() const {
  return floats_dev_.bytes() + ints_dev_.bytes() + inputs_dev_.bytes() + tables_dev_.bytes() +
         moments_dev_.bytes() + flat_dev_.bytes() + keys_dev_.bytes() + pruned_dev_.bytes() +
         next_dev_.bytes();
}

void WindowPairs::run(std::span<common::WindowBatch* const> batches, bool prune) {
  // What goes up: each stream's samples once (the union of its pairs' reads), then each
  // pattern's values and envelopes once.
  ranges_.clear();
  places_.clear();
  order_.clear();
  for (std::size_t k = 0; k < batches.size(); ++k) {
    const common::WindowBatch& b = *batches[k];
    WW_ASSERT(covers(*b.pair), "window pairs: a pair the device passes do not cover");
    if (b.ends.empty()) continue;
    const std::uint64_t hop = b.pair->pattern->def->params.hop;
    WW_ASSERT(b.ends.back() - b.ends.front() == (b.ends.size() - 1) * hop,
              "window pairs: the batch's window ends are not evenly spaced");
    order_.push_back(k);
    const std::uint64_t first = first_sample_read(b), last = b.ends.back();
    auto [it, fresh] = ranges_.try_emplace(b.pair->stream, StreamRange{first, last, 0});
    if (!fresh) {
      it->second.first = std::min(it->second.first, first);
      it->second.last = std::max(it->second.last, last);
    }
  }
  if (order_.empty()) return;
  std::size_t floats = 0, ints = 0;
  for (auto& [stream, range] : ranges_) {
    range.offset = floats;
    floats += range.last - range.first + 1;
  }
  for (const std::size_t k : order_) {
    const common::PatternState* pattern = batches[k]->pair->pattern;
    auto [it, fresh] = places_.try_emplace(pattern, PatternPlace{floats, kNoBand});
    if (!fresh) continue;
    const common::WindowQuery& q = *pattern->window_query;
    floats += q.n + 2 * q.w;
    if (pattern->def->params.distance.band) {
      it->second.band = ints;
      ints += 2 * (q.n + 1);
    }
  }
  grow(floats_, floats);
  grow(ints_, ints);
  for (const auto& [stream, range] : ranges_) {
    const float* from = stream->history.sample(range.first);
    std::copy(from, from + (range.last - range.first + 1), floats_.data() + range.offset);
  }
  for (const auto& [pattern, place] : places_) {
    const common::WindowQuery& q = *pattern->window_query;
    float* to = floats_.data() + place.values;
    to = std::copy(q.values.begin(), q.values.end(), to);
    to = std::copy(q.env_lo.begin(), q.env_lo.end(), to);
    std::copy(q.env_hi.begin(), q.env_hi.end(), to);
    if (place.band != kNoBand) {
      std::copy(q.lo.begin(), q.lo.end(), ints_.data() + place.band);
      std::copy(q.hi.begin(), q.hi.end(), ints_.data() + place.band + q.n + 1);
    }
  }
  const cudaStream_t s = stream_.get();
  grow(floats_dev_, floats);
  grow(ints_dev_, ints);
  WW_CUDA(cudaMemcpyAsync(floats_dev_.data(), floats_.data(), floats * sizeof(float),
                          cudaMemcpyHostToDevice, s));
  if (ints)
    WW_CUDA(cudaMemcpyAsync(ints_dev_.data(), ints_.data(), ints * sizeof(std::int32_t),
                            cudaMemcpyHostToDevice, s));

  // The inputs, by launch group (one alignment launch each).
  std::stable_sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) {
    return launch_group(*batches[a]->pair) < launch_group(*batches[b]->pair);
  });
  inputs_.assign(order_.size(), WindowSearchInput{});
  for (std::size_t p = 0; p < order_.size(); ++p) {
    const common::WindowBatch& b = *batches[order_[p]];
    const common::WindowTrack& t = *b.pair->window;
    const common::WindowQuery& q = *b.pair->pattern->window_query;
    const StreamRange& range = ranges_.at(b.pair->stream);
    const PatternPlace& place = places_.at(b.pair->pattern);
    WindowSearchInput& in = inputs_[p];
    in.x = floats_dev_.data() + range.offset;
    in.x_first = range.first;
    in.first_end = b.ends.front();
    in.anchor_floor = t.first_end();
    in.hop = static_cast<std::uint32_t>(b.pair->pattern->def->params.hop);
    in.w = static_cast<std::uint32_t>(q.w);
    in.n = static_cast<std::uint32_t>(q.n);
    in.windows = static_cast<std::uint32_t>(b.ends.size());
    in.q = floats_dev_.data() + place.values;
    in.env_lo = in.q + q.n;
    in.env_hi = in.env_lo + q.w;
    if (place.band != kNoBand) {
      in.band_lo = ints_dev_.data() + place.band;
      in.band_hi = in.band_lo + q.n + 1;
    }
    in.margin = q.margin;
    in.kind = input_kind(q);
    in.limit = prune ? detail::float_at_or_below(t.pattern().params.threshold)
                     : std::numeric_limits<float>::infinity();
  }
  const std::size_t count = inputs_.size();
  std::size_t windows = 0;
  for (const WindowSearchInput& in : inputs_) windows += in.windows;
  grow(moments_dev_, 2 * windows);
  grow(flat_dev_, windows);
  grow(keys_dev_, 3 * windows);
  grow(pruned_dev_, 3 * count);
  float* const keys = keys_dev_.data();
  float* const kim = keys + windows;
  float* const distances = kim + windows;
  double* const mean = moments_dev_.data();
  double* const scale = mean + windows;
  // The numbering (and the moments' anchor blocks) need to know which inputs have moments:
  // marked first, pointed at their part once the windows are numbered.
  for (std::size_t p = 0; p < count; ++p)
    if (batches[order_[p]]->pair->window->znorm()) inputs_[p].mean = mean;
  tables_.build(inputs_);
  for (std::size_t p = 0; p < count; ++p) {
    WindowSearchInput& in = inputs_[p];
    const std::uint32_t base = tables_.window_base[p];
    if (in.mean != nullptr) {
      in.mean = mean + base;
      in.scale = scale + base;
      in.flat = flat_dev_.data() + base;
    }
    in.distances = distances + base;
    in.pruned = pruned_dev_.data() + 3 * p;
  }
  // The group boundaries: inputs [group_first[g], group_first[g + 1]).
  std::vector<std::size_t> group_first{0};
  for (std::size_t p = 1; p < count; ++p)
    if (launch_group(*batches[order_[p]]->pair) != launch_group(*batches[order_[p - 1]]->pair))
      group_first.push_back(p);
  group_first.push_back(count);
  const std::size_t groups = group_first.size() - 1;
  grow(inputs_dev_, count);
  grow(tables_dev_, 2 * (count + 1));
  grow(next_dev_, groups);
  const detail::WindowInputs ins =
      detail::upload_window_inputs(inputs_, tables_, inputs_dev_.data(), tables_dev_.data(), s);
  WW_CUDA(cudaMemsetAsync(pruned_dev_.data(), 0, 3 * count * sizeof(unsigned long long), s));
  // The moments pass sets the flat flags of znorm windows only; the others' flags go back
  // to the host with them (one copy) and are ignored there, but are never left unset
  // (compute-sanitizer initcheck).
  WW_CUDA(cudaMemsetAsync(flat_dev_.data(), 0, windows, s));
  WW_CUDA(cudaMemsetAsync(next_dev_.data(), 0, groups * sizeof(unsigned), s));

  passes_begun_.record(s);
  detail::launch_window_moments(ins, mean, scale, flat_dev_.data(), s);
  // The bounds of the dtw and dk windows (those before the first ed input).
  std::size_t elastic = 0;
  while (elastic < count && !is_ed(inputs_[elastic].kind)) ++elastic;
  detail::WindowInputs bounded = ins;
  bounded.windows = tables_.window_base[elastic];
  detail::launch_window_bounds(bounded, keys, kim, s);
  for (std::size_t g = 0; g < groups; ++g) {
    const std::size_t p = group_first[g];
    const auto [kind, rows, band] = launch_group(*batches[order_[p]]->pair);
    if (is_ed(kind)) {
      detail::launch_window_ed(ins, tables_.window_base[p], tables_.window_base[group_first[g + 1]],
                               s);
      continue;
    }
    detail::WindowSearchState st;
    st.keys = keys;
    st.next = next_dev_.data() + g;
    detail::launch_window_alignments(ins, kind, band, st, rows, tables_.window_base[p],
                                     tables_.window_base[group_first[g + 1]], nullptr, 0, s);
  }

  passes_done_.record(s);
  grow(distances_host_, windows);
  grow(flat_host_, windows);
  grow(pruned_host_, 3 * count);
  WW_CUDA(cudaMemcpyAsync(distances_host_.data(), distances, windows * sizeof(float),
                          cudaMemcpyDeviceToHost, s));
  WW_CUDA(cudaMemcpyAsync(flat_host_.data(), flat_dev_.data(), windows, cudaMemcpyDeviceToHost, s));
  WW_CUDA(cudaMemcpyAsync(pruned_host_.data(), pruned_dev_.data(),
                          3 * count * sizeof(unsigned long long), cudaMemcpyDeviceToHost, s));
  stream_.synchronize();
  device_seconds_ += passes_done_.seconds_since(passes_begun_);
  for (std::size_t p = 0; p < count; ++p) {
    common::WindowBatch& b = *batches[order_[p]];
    const std::size_t base = tables_.window_base[p];
    const bool znorm = inputs_[p].mean != nullptr;
    for (std::size_t i = 0; i < b.ends.size(); ++i) {
      b.flat[i] = znorm ? flat_host_.data()[base + i] : 0;
      b.distances[i] = distances_host_.data()[base + i];
    }
    const unsigned long long* c = pruned_host_.data() + 3 * p;
    b.pruned[0] += c[0];  // LB_Kim
    b.pruned[1] += c[1];  // LB_Keogh on the pattern's envelope
    b.pruned[3] += c[2];  // abandoned
  }
}

}  // namespace warpwatch::kernels::cuda
