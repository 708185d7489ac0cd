#include "cpu/window_pair.hpp"

#include <stdexcept>

namespace warpwatch::kernels::cpu {

WindowPair::WindowPair(const PatternDef& pattern, StreamSlot& stream, std::uint64_t first_index)
    : pattern_(&pattern),
      stream_(&stream),
      schedule_{common::window_length(pattern), pattern.params.hop, first_index},
      znorm_(pattern.params.normalize == Normalize::znorm),
      values_(pattern.values),
      zone_(schedule_.w, pattern.params.threshold) {
  if (znorm_ && !common::znormalize(values_, pattern.dims))
    throw std::invalid_argument("pattern '" + pattern.id + "' is constant: znorm is undefined");
  for (double t : common::pattern_times(pattern, stream.def.nominal_period_ns))
    times_.push_back(static_cast<float>(t));
}

void WindowPair::add(const common::WindowOccurrence& o, std::vector<RawMatch>& out) const {
  out.push_back(RawMatch{stream_->def.id, pattern_->id, o.distance, o.start_index, o.end_index,
                         o.start_ns, o.end_ns});
}

void WindowPair::run(std::uint64_t from, std::uint64_t to, WorkerScratch& s) {
  const std::size_t w = schedule_.w, dims = pattern_->dims, m = pattern_->length();
  const std::size_t width = elastic_group_width();
  const common::StreamHistory& history = stream_->history;
  s.ends.clear();
  for (std::uint64_t e = from; e < to; ++e)
    if (schedule_.ends_at(e)) s.ends.push_back(e);
  s.distances.resize(s.ends.size());
  s.flat.assign(s.ends.size(), 0);
  const bool twed = pattern_->params.distance.metric == Metric::twed;
  for (std::size_t g = 0; g < s.ends.size(); g += width) {
    const std::size_t lanes = std::min(width, s.ends.size() - g);
    s.x.assign(w * dims * width, 0.0f);
    if (twed) s.times.assign(w * width, 0.0f);
    for (std::size_t lane = 0; lane < lanes; ++lane) {
      const std::uint64_t start = s.ends[g + lane] + 1 - w;
      s.window.assign(history.sample(start), history.sample(start) + w * dims);
      if (znorm_ && !common::znormalize(s.window, dims)) {
        s.flat[g + lane] = 1;
        continue;
      }
      for (std::size_t j = 0; j < w; ++j)
        for (std::size_t k = 0; k < dims; ++k) s.x[(j * dims + k) * width + lane] = s.window[j * dims + k];
      if (twed) {  // the window's clock, rebased to the pattern's first time (SPEC.md 4.3)
        const std::int64_t t0 = history.time_ns(start);
        for (std::size_t j = 0; j < w; ++j)
          s.times[j * width + lane] = static_cast<float>(
              static_cast<double>(times_[0]) + static_cast<double>(history.time_ns(start + j) - t0) * 1e-9);
      }
    }
    OneVsMany job;
    job.a = values_.data();
    job.a_times = twed ? times_.data() : nullptr;
    job.n = m;
    job.b = s.x.data();
    job.b_times = twed ? s.times.data() : nullptr;
    job.m = w;
    job.dims = dims;
    job.width = width;
    double out[64];
    one_vs_many(job, pattern_->params.distance, s.elastic, out);
    for (std::size_t lane = 0; lane < lanes; ++lane) s.distances[g + lane] = out[lane];
    s.cells += static_cast<std::uint64_t>(lanes) * m * w;
  }
  // Group in sample order, as the reference does one sample at a time.
  std::size_t next_end = 0;
  for (std::uint64_t e = from; e < to; ++e) {
    if (next_end < s.ends.size() && s.ends[next_end] == e) {
      if (s.flat[next_end]) {
        ++s.flat_skipped;
      } else {
        const std::uint64_t start = e + 1 - w;
        zone_.offer({s.distances[next_end], start, e, history.time_ns(start), history.time_ns(e)});
      }
      ++next_end;
    }
    if (auto o = zone_.close_after(e)) add(*o, s.matches);
  }
}

void WindowPair::flush(std::vector<RawMatch>& out) {
  if (auto o = zone_.flush()) add(*o, out);
}

}  // namespace warpwatch::kernels::cpu
