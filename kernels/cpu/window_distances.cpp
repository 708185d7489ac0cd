#include "cpu/window_distances.hpp"

namespace warpwatch::kernels::cpu {

void compute_window_distances(common::WindowBatch& windows, WorkerScratch& s) {
  const common::WindowTrack& track = *windows.pair->window;
  const PatternDef& pattern = track.pattern();
  const std::size_t w = track.window(), dims = pattern.dims, m = pattern.length();
  const std::size_t width = elastic_group_width();
  const stream::StreamHistory& history = windows.pair->stream->history;
  const std::vector<std::uint64_t>& ends = windows.ends;
  const bool twed = track.twed();
  s.window_times.resize(twed ? w : 0);
  for (std::size_t g = 0; g < ends.size(); g += width) {
    const std::size_t lanes = std::min(width, ends.size() - g);
    s.x.assign(w * dims * width, 0.0f);
    if (twed) s.times.assign(w * width, 0.0f);
    for (std::size_t lane = 0; lane < lanes; ++lane) {
      if (!track.window(history, ends[g + lane], s.window,
                        twed ? s.window_times.data() : nullptr)) {
        windows.flat[g + lane] = 1;
        continue;
      }
      for (std::size_t j = 0; j < w; ++j)
        for (std::size_t k = 0; k < dims; ++k)
          s.x[(j * dims + k) * width + lane] = s.window[j * dims + k];
      if (twed)
        for (std::size_t j = 0; j < w; ++j) s.times[j * width + lane] = s.window_times[j];
    }
    OneVsMany job;
    job.a = track.values().data();
    job.a_times = twed ? track.times().data() : nullptr;
    job.n = m;
    job.b = s.x.data();
    job.b_times = twed ? s.times.data() : nullptr;
    job.m = w;
    job.dims = dims;
    job.width = width;
    double out[64];
    one_vs_many(job, pattern.params.distance, s.elastic, out);
    for (std::size_t lane = 0; lane < lanes; ++lane) windows.distances[g + lane] = out[lane];
  }
}

}  // namespace warpwatch::kernels::cpu
