// Explanations of events (docs/spec.md §7) from stored samples: the segment cut out,
// normalized as the Matcher compared it, and handed to the reference's paths
// (kernels::reference::warping_path, edit_path) in the arithmetic the Matcher used.
#include "warpwatch/explain/explain.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "warpwatch/kernels/reference.hpp"

namespace warpwatch::explain {
namespace {

namespace ref = kernels::reference;
using kernels::Metric;
using ref::Arithmetic;

std::string_view arithmetic_name(Arithmetic a) {
  switch (a) {
    case Arithmetic::float64:
      return "float64 (the reference's)";
    case Arithmetic::float32:
      return "float32, c + best without contraction (stream mode on every backend; the cpu's "
             "windows)";
    case Arithmetic::float32_fma:
      break;
  }
  return "float32 with fma(d, d, best) (the cuda backend's window kernels)";
}

// The arithmetics the backend's window mode may have computed dtw's and dk's cells in, the
// likeliest first (kernels::reference::Arithmetic says which backend uses which).
std::vector<Arithmetic> window_arithmetics(const std::string& backend, std::size_t dims) {
  if (backend == "reference") return {Arithmetic::float64};
  const bool fma = dims == 1;  // the cuda window kernels take one dimension only
  if (backend == "cuda")
    return fma ? std::vector{Arithmetic::float32_fma, Arithmetic::float64}
               : std::vector{Arithmetic::float64};
  if (backend == "auto")  // batches on the cpu or on cuda
    return fma ? std::vector{Arithmetic::float32, Arithmetic::float32_fma, Arithmetic::float64}
               : std::vector{Arithmetic::float32, Arithmetic::float64};
  return {Arithmetic::float32};
}

// The matched samples as the Matcher compared them, and the pattern likewise.
struct Compared {
  std::vector<float> segment, pattern;
  // Stream mode: the samples held from the first to the segment's end, and how many of them
  // come before the segment (SPRING's replay, docs/spec.md §7).
  std::vector<float> stored;
  std::size_t stored_before = 0;
  std::uint64_t start = 0;
  std::size_t offset = 0;  // the segment's sample where they start
  bool flat = false;
};

Compared compared(const kernels::PatternDef& pattern, std::span<const float> segment,
                  std::uint64_t first_index, std::uint64_t start, std::uint64_t end) {
  const std::size_t dims = pattern.dims;
  if (dims == 0 || pattern.length() < 2 || pattern.values.size() % dims != 0)
    throw std::invalid_argument("pattern: values must be at least 2 samples of dims values");
  if (segment.size() % dims != 0)
    throw std::invalid_argument("segment: " + std::to_string(segment.size()) +
                                " values are not whole samples of " + std::to_string(dims));
  const std::uint64_t samples = segment.size() / dims;
  if (start > end || start < first_index || end - first_index >= samples) {
    std::string what = "start_index/end_index: [";
    what += std::to_string(start);
    what += ", ";
    what += std::to_string(end);
    what += "] is not within the segment's samples [";
    what += std::to_string(first_index);
    what += ", ";
    what += std::to_string(first_index + samples);
    what += ")";
    throw std::invalid_argument(what);
  }
  Compared c;
  c.start = start;
  c.offset = static_cast<std::size_t>(start - first_index);
  const std::size_t from = static_cast<std::size_t>(start - first_index) * dims;
  const std::size_t count = static_cast<std::size_t>(end - start + 1);
  c.segment.assign(segment.begin() + static_cast<std::ptrdiff_t>(from),
                   segment.begin() + static_cast<std::ptrdiff_t>(from + count * dims));
  c.pattern = pattern.values;
  const kernels::MatchParams& p = pattern.params;
  if (p.mode == kernels::Mode::stream && from > 0) {
    c.stored.assign(segment.begin(),
                    segment.begin() + static_cast<std::ptrdiff_t>(from + count * dims));
    c.stored_before = from / dims;
  }
  if (p.mode == kernels::Mode::window) {
    const std::size_t w = p.window ? p.window : pattern.length();
    if (count != w)
      throw std::invalid_argument("start_index/end_index: " + std::to_string(count) +
                                  " samples, the pattern's window is " + std::to_string(w));
    if (p.normalize == kernels::Normalize::znorm)
      c.flat = !ref::znormalize(c.segment, dims) || !ref::znormalize(c.pattern, dims);
  }
  return c;
}

kernels::SeriesView view(const std::vector<float>& values, std::size_t dims,
                         const std::vector<double>& times = {}) {
  return {values.data(), values.size() / dims, dims, times.empty() ? nullptr : times.data()};
}

Explanation none(std::string why) {
  Explanation e;
  e.kind = "none";
  e.note = std::move(why);
  return e;
}

// dtw and dk: the path in the arithmetic that gave the distance.
Explanation warping(const kernels::PatternDef& pattern, const Compared& c, const Context& context) {
  const bool stream = pattern.params.mode == kernels::Mode::stream;
  kernels::DistanceParams params = pattern.params.distance;
  if (stream) params.band.reset();  // SPRING has no band
  const std::vector<Arithmetic> candidates =
      stream ? std::vector{Arithmetic::float32} : window_arithmetics(context.backend, pattern.dims);
  const auto path_in = [&](Arithmetic a) {
    return ref::warping_path(view(c.pattern, pattern.dims), view(c.segment, pattern.dims), params,
                             a, ref::PathTies::b_is_stream);
  };
  Arithmetic arithmetic = candidates.front();
  ref::WarpingPath path = path_in(arithmetic);
  bool reproduced = true;
  if (context.distance) {
    const float wanted = static_cast<float>(*context.distance);
    reproduced = false;
    for (const Arithmetic a : candidates) {
      ref::WarpingPath p = a == arithmetic ? path : path_in(a);
      if (static_cast<float>(p.distance) == wanted) {
        arithmetic = a;
        path = std::move(p);
        reproduced = true;
        break;
      }
    }
  }
  // Stream mode: a report made after the segment began may have reset cells the segment's own
  // optimum runs through (docs/spec.md §7). SPRING replayed over the samples held before the
  // segment, reports and resets included, follows the Matcher's path when its table is the
  // Matcher's; the distance it reproduces is the check.
  std::uint64_t replayed_from = 0;
  bool replayed = false;
  if (stream && !reproduced && c.stored_before > 0) {
    const std::size_t end = c.stored_before + c.segment.size() / pattern.dims - 1;
    ref::SpringPath replay =
        ref::spring_path(view(c.pattern, pattern.dims), view(c.stored, pattern.dims), params.metric,
                         params.cost, pattern.params.threshold, c.stored_before, end);
    if (replay.start == c.stored_before && !replay.steps.empty() &&
        static_cast<float>(replay.distance) == static_cast<float>(*context.distance)) {
      path.steps.clear();
      for (const ref::PathStep& s : replay.steps)
        path.steps.push_back({s.i, s.j - c.stored_before, s.cost});
      path.distance = replay.distance;
      reproduced = replayed = true;
      replayed_from = c.start - c.stored_before;
    }
  }
  if (path.steps.empty()) return none("no alignment fits the band (the distance is +inf)");
  const bool dtw = params.metric == Metric::dtw;
  Explanation e;
  e.kind = "path";
  float total32 = 0;
  double total64 = 0;
  for (const ref::PathStep& s : path.steps) {
    const float cost = static_cast<float>(s.cost);
    e.steps.push_back({c.start + s.j, static_cast<std::uint32_t>(s.i + 1), cost});
    total32 = dtw ? total32 + cost : std::max(total32, cost);
    total64 = dtw ? total64 + s.cost : std::max(total64, s.cost);
  }
  e.total = arithmetic == Arithmetic::float64       ? static_cast<float>(total64)
            : arithmetic == Arithmetic::float32_fma ? static_cast<float>(path.distance)
                                                    : total32;
  if (replayed) {
    e.note = std::string(dtw ? "dtw" : "dk") +
             "'s path as SPRING followed it: SPRING replayed from sample ";
    e.note += std::to_string(replayed_from);
    e.note +=
        " (docs/spec.md §3.1, its reports and resets included), because a report made after "
        "this segment began reset cells its own optimum runs through";
  } else {
    e.note = std::string(dtw ? "dtw" : "dk") +
             "'s optimal path of the whole-series recurrence on the " +
             (stream ? "segment" : "window");
  }
  if (!stream && pattern.params.normalize == kernels::Normalize::znorm)
    e.note += " (z-normalized as matched, and the pattern too)";
  e.note +=
      ", ties in docs/spec.md §3.1's order; steps (stream index, pattern row, local cost); "
      "total: the costs ";
  e.note += dtw ? "summed" : "maxed";
  e.note += " in path order in ";
  e.note += arithmetic_name(arithmetic);
  if (arithmetic == Arithmetic::float32_fma)
    e.note += ", each step fused into the running total: fma(d, d, total)";
  if (arithmetic == Arithmetic::float64)
    e.note += ", rounded to float32 at the end (the costs shown are rounded too)";
  if (!reproduced && stream && e.total < static_cast<float>(*context.distance)) {
    e.note += "; below the event's distance (" + std::to_string(*context.distance) +
              "): a report made after this segment began reset cells (docs/spec.md §3.1 rule 1) "
              "that this path runs through, so the Matcher's path went round them; SPRING "
              "replayed over the samples held before the segment did not reproduce the "
              "Matcher's table (a path was live before them)";
  } else if (!reproduced) {
    e.note += "; it does not reproduce the event's distance (" + std::to_string(*context.distance) +
              ") in any arithmetic of backend '" + context.backend + "'";
  }
  return e;
}

// ed: the identity path, its costs summed in index order in float64 (reference::ed).
Explanation identity(const kernels::PatternDef& pattern, const Compared& c) {
  const std::size_t dims = pattern.dims, n = c.segment.size() / dims;
  Explanation e;
  e.kind = "path";
  double total = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const std::vector<float> a(c.pattern.begin() + static_cast<std::ptrdiff_t>(k * dims),
                               c.pattern.begin() + static_cast<std::ptrdiff_t>((k + 1) * dims));
    const std::vector<float> b(c.segment.begin() + static_cast<std::ptrdiff_t>(k * dims),
                               c.segment.begin() + static_cast<std::ptrdiff_t>((k + 1) * dims));
    const double cost = ref::ed(view(a, dims), view(b, dims), pattern.params.distance.cost);
    e.steps.push_back({c.start + k, static_cast<std::uint32_t>(k + 1), static_cast<float>(cost)});
    total += cost;
  }
  e.total = static_cast<float>(total);
  e.note =
      "ed's identity path: sample k of the window against row k of the pattern; total: the local "
      "costs summed in index order in float64, the reference's ed bit for bit (the cpu and cuda "
      "backends sum in float32 in another order, so their distance may differ in the last bits)";
  return e;
}

// The names of an edit distance's moves: diagonal, the pattern's sample alone, the stream's.
std::array<std::string_view, 3> move_names(Metric metric) {
  switch (metric) {
    case Metric::twed:
      return {"match", "delete_pattern", "delete_stream"};
    case Metric::msm:
      return {"move", "split_merge_pattern", "split_merge_stream"};
    case Metric::lcss:
      return {"match", "skip_pattern", "skip_stream"};
    default:
      break;
  }
  return {"match", "gap_pattern", "gap_stream"};  // erp
}

// twed, msm, erp, lcss: the reference's table walked back (float64).
Explanation edits(const kernels::PatternDef& pattern, const Compared& c, const Context& context) {
  const Metric metric = pattern.params.distance.metric;
  std::vector<double> pattern_times, window_times;
  if (metric == Metric::twed) {
    // docs/spec.md §4.3: the pattern's clock, the window's rebased to its first time.
    if (context.times_ns.empty())
      return none("twed compares timestamps: explain it with the segment's times");
    const std::size_t n = c.segment.size() / pattern.dims;
    if (context.times_ns.size() < c.offset + n)
      throw std::invalid_argument("times_ns: " + std::to_string(context.times_ns.size()) +
                                  " timestamps, the segment's samples up to the window's end are " +
                                  std::to_string(c.offset + n));
    pattern_times = pattern.times;
    if (pattern_times.empty()) {
      const double period = static_cast<double>(context.nominal_period_ns) * 1e-9;
      for (std::size_t i = 0; i < pattern.length(); ++i)
        pattern_times.push_back(static_cast<double>(i) * period);
    }
    const std::span<const std::int64_t> t = context.times_ns.subspan(c.offset, n);
    for (std::size_t j = 0; j < n; ++j)
      window_times.push_back(pattern_times[0] + static_cast<double>(t[j] - t[0]) * 1e-9);
  }
  const ref::EditPath path =
      ref::edit_path(view(c.pattern, pattern.dims, pattern_times),
                     view(c.segment, pattern.dims, window_times), pattern.params.distance);
  if (path.steps.empty()) return none("no alignment fits the band (the distance is +inf)");
  const auto names = move_names(metric);
  Explanation e;
  e.kind = "edit_operations";
  std::vector<double> tables(metric == Metric::msm ? pattern.dims : 1, 0.0);
  for (const ref::EditStep& s : path.steps) {
    e.steps.push_back({c.start + (s.j ? s.j - 1 : 0), static_cast<std::uint32_t>(s.i),
                       static_cast<float>(s.cost)});
    e.operations.emplace_back(names[static_cast<std::size_t>(s.move)]);
    tables[s.component] += s.cost;
  }
  double total = 0;
  for (const double t : tables) total += t;
  const std::size_t n = c.pattern.size() / pattern.dims, m = c.segment.size() / pattern.dims;
  if (metric == Metric::lcss) total = 1.0 - total / static_cast<double>(std::min(n, m));
  e.total = static_cast<float>(total);
  std::string what = std::string(kernels::to_string(metric)) +
                     "'s edit operations, the reference's float64 table walked back (at each "
                     "cell the first of match, pattern alone, stream alone that gives it); "
                     "steps (stream index, pattern row, the operation's cost)";
  if (metric == Metric::lcss)
    what +=
        ": a match costs 1, a skip 0; their sum is L and total = 1 - L / min(n, m), on every "
        "backend bit for bit (each backend decides matches in float64)";
  else
    what += std::string(metric == Metric::msm
                            ? ": each component's costs summed in path order, the components "
                              "summed in order"
                            : ": the costs summed in path order") +
            " in float64 give the reference backend's distance bit for bit, rounded to float32 "
            "(the costs shown are rounded too); the cpu and cuda backends compute in float32, "
            "within docs/spec.md §3.2's tolerance, so theirs may differ in the last bits";
  if (metric == Metric::erp)
    what +=
        "; a step of pattern row 0 or at the window's start with the stream alone is a gap "
        "before the first sample";
  e.note = std::move(what);
  return e;
}

}  // namespace

Explanation explain(const kernels::PatternDef& pattern, std::span<const float> segment,
                    std::uint64_t first_index, std::uint64_t start_index, std::uint64_t end_index,
                    const Context& context) {
  const Compared c = compared(pattern, segment, first_index, start_index, end_index);
  if (c.flat) return none("the window is flat under znorm (std < 1e-8): it was never compared");
  switch (pattern.params.distance.metric) {
    case Metric::dtw:
    case Metric::dk:
      return warping(pattern, c, context);
    case Metric::ed:
      return identity(pattern, c);
    case Metric::softdtw:
      return none(
          "softdtw takes a soft minimum over every alignment: no single path has its value "
          "(its expected alignment, the gradient's matrix, is spread over many cells)");
    case Metric::twed:
    case Metric::msm:
    case Metric::erp:
    case Metric::lcss:
      return edits(pattern, c, context);
  }
  return none("no explanation for this measure");
}

nlohmann::json to_json(const Explanation& e) {
  nlohmann::json steps = nlohmann::json::array();
  for (const Step& s : e.steps) steps.push_back({s.stream_index, s.pattern_row, s.cost});
  return {{"kind", e.kind},
          {"steps", std::move(steps)},
          {"operations", e.operations},
          {"total", e.total},
          {"note", e.note}};
}

}  // namespace warpwatch::explain
