#include "cpu/window_pair.hpp"

namespace warpwatch::kernels::cpu {

WindowPair::WindowPair(const PatternDef& pattern, StreamSlot& stream, std::uint64_t first_index)
    : stream_(&stream), track_(pattern, stream.def.nominal_period_ns, first_index) {}

void WindowPair::run(std::uint64_t from, std::uint64_t to, WorkerScratch& s) {
  const PatternDef& pattern = track_.pattern();
  const std::size_t w = track_.window(), dims = pattern.dims, m = pattern.length();
  const std::size_t width = elastic_group_width();
  const stream::StreamHistory& history = stream_->history;
  track_.ends(from, to, s.ends);
  s.distances.resize(s.ends.size());
  s.flat.assign(s.ends.size(), 0);
  const bool twed = track_.twed();
  s.window_times.resize(twed ? w : 0);
  for (std::size_t g = 0; g < s.ends.size(); g += width) {
    const std::size_t lanes = std::min(width, s.ends.size() - g);
    s.x.assign(w * dims * width, 0.0f);
    if (twed) s.times.assign(w * width, 0.0f);
    for (std::size_t lane = 0; lane < lanes; ++lane) {
      if (!track_.window(history, s.ends[g + lane], s.window, twed ? s.window_times.data() : nullptr)) {
        s.flat[g + lane] = 1;
        continue;
      }
      for (std::size_t j = 0; j < w; ++j)
        for (std::size_t k = 0; k < dims; ++k) s.x[(j * dims + k) * width + lane] = s.window[j * dims + k];
      if (twed)
        for (std::size_t j = 0; j < w; ++j) s.times[j * width + lane] = s.window_times[j];
    }
    OneVsMany job;
    job.a = track_.values().data();
    job.a_times = twed ? track_.times().data() : nullptr;
    job.n = m;
    job.b = s.x.data();
    job.b_times = twed ? s.times.data() : nullptr;
    job.m = w;
    job.dims = dims;
    job.width = width;
    double out[64];
    one_vs_many(job, pattern.params.distance, s.elastic, out);
    for (std::size_t lane = 0; lane < lanes; ++lane) s.distances[g + lane] = out[lane];
    s.cells += static_cast<std::uint64_t>(lanes) * m * w;
  }
  s.flat_skipped += track_.group(from, to, s.ends, s.distances, s.flat, history, stream_->def.id, s.matches);
}

}  // namespace warpwatch::kernels::cpu
