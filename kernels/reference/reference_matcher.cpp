// The reference Matcher: every stream-mode pair stepped sample by sample with the literal
// docs/spec.md §3.1 state machine of spring.hpp; window mode's distances in float64 with the
// reference distances, one window at a time. The bookkeeping (streams, pairs, histories,
// window schedule and grouping) is the Matcher base's, shared with the fast backends.
#include <map>
#include <memory>
#include <optional>

#include "common/matcher_state.hpp"
#include "reference/spring.hpp"
#include "warpwatch/kernels/reference.hpp"

namespace warpwatch::kernels::reference {
namespace {

class ReferenceMatcher final : public Matcher {
 public:
  std::string_view name() const override { return "reference"; }

 protected:
  void on_stream_pair_added(Pair& pair) override {
    const PatternDef& p = *pair.pattern->def;
    springs_.try_emplace(&pair, p.values.data(), p.length(), p.dims, p.params.distance.metric,
                         p.params.distance.cost, p.params.threshold);
  }

  void on_stream_pair_removed(Pair& pair, std::vector<RawMatch>& out) override {
    const auto it = springs_.find(&pair);
    flush(pair, it->second, out);
    springs_.erase(it);
  }

  void on_stream_pattern_removed(PatternState& pattern, std::vector<RawMatch>& out) override {
    for (const auto& pair : pattern.pairs)  // those it holds (auto may hold some only)
      if (springs_.contains(pair.get())) on_stream_pair_removed(*pair, out);
  }

  void run_batch(std::span<WindowBatch> windows, std::vector<RawMatch>& out) override {
    for (const StreamState* stream : batch_streams())
      for (const Pair* pair : stream->pairs) {
        if (pair->window) continue;
        SpringPair& spring = springs_.at(pair);
        for (std::uint64_t index = stream->chunk_first;
             index < stream->chunk_first + stream->chunk_count; ++index)
          if (auto r = spring.step(stream->history.sample(index), index))
            out.push_back(common::make_match(*pair, r->distance, r->start_index, r->end_index));
      }
    for (WindowBatch& w : windows) compute_windows(w);
  }

  void flush_stream_pairs(std::vector<RawMatch>& out) override {
    for (auto& [pair, spring] : springs_) flush(*pair, spring, out);
  }

  void export_stream_pairs(std::span<Pair* const> pairs,
                           std::span<common::SpringLaneState> out) override {
    for (std::size_t k = 0; k < pairs.size(); ++k) springs_.at(pairs[k]).export_state(out[k]);
  }

  void import_stream_pairs(std::span<Pair* const> pairs,
                           std::span<const common::SpringLaneState> in) override {
    for (std::size_t k = 0; k < pairs.size(); ++k)
      springs_.at(pairs[k]).import_state(in[k], pairs[k]->stream->next_index());
  }

  void lower_to_live_starts(std::span<std::uint64_t> keep_from) override {
    for (const StreamState* stream : streams_to_trim())
      for (const Pair* pair : stream->pairs)
        if (!pair->window)
          if (auto oldest = springs_.at(pair).oldest_live_start()) {
            std::uint64_t& keep = keep_from[stream->slot];
            keep = std::min(keep, *oldest);
          }
  }

 private:
  static void flush(const Pair& pair, SpringPair& spring, std::vector<RawMatch>& out) {
    if (auto r = spring.flush())
      out.push_back(common::make_match(pair, r->distance, r->start_index, r->end_index));
  }

  // Each window (normalized, with its rebased float64 clock) against the pattern, docs/spec.md §4.
  void compute_windows(WindowBatch& w) {
    const common::WindowTrack& track = *w.pair->window;
    const PatternDef& p = track.pattern();
    const SeriesView pattern{track.values().data(), p.length(), p.dims, track.times64().data()};
    times_.resize(track.window());
    for (std::size_t i = 0; i < w.ends.size(); ++i) {
      if (!track.window(w.pair->stream->history, w.ends[i], window_, times_.data())) {
        w.flat[i] = 1;
        continue;
      }
      const SeriesView window{window_.data(), track.window(), p.dims, times_.data()};
      w.distances[i] = distance(pattern, window, p.params.distance);
    }
  }

  std::map<const Pair*, SpringPair> springs_;  // stream mode, by pair
  std::vector<float> window_;                  // scratch: one window as compared
  std::vector<double> times_;                  // scratch: its clock (twed)
};

}  // namespace

std::unique_ptr<Matcher> make_matcher() {
  return std::make_unique<ReferenceMatcher>();
}

}  // namespace warpwatch::kernels::reference
