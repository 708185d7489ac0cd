// The reference Matcher: every (stream, pattern) pair stepped sample by sample with the
// literal SPEC.md state machines of spring.hpp (stream mode) and window.hpp (window mode).
#include <map>
#include <memory>
#include <optional>

#include "spring.hpp"
#include "warpwatch/stream/stream_history.hpp"
#include "warpwatch/kernels/reference.hpp"
#include "window.hpp"

namespace warpwatch::kernels::reference {
namespace {

struct Pair {
  std::shared_ptr<const PatternDef> pattern;
  std::optional<SpringPair> spring;  // stream mode
  std::optional<WindowPair> window;  // window mode
};

struct StreamState {
  StreamDef def;
  stream::StreamHistory history;
  std::map<std::string, Pair, std::less<>> pairs;  // by pattern id
};

class ReferenceMatcher final : public Matcher {
 public:
  std::string_view name() const override { return "reference"; }
  MatcherCounters counters() const override { return counters_; }

 protected:
  void do_add_stream(const StreamDef& stream) override {
    StreamState state{stream, stream::StreamHistory(stream.dims), {}};
    for (const auto& [id, pattern] : patterns_)
      if (pattern->dims == stream.dims) state.pairs.emplace(id, make_pair(pattern, stream, 0));
    states_.emplace(stream.id, std::move(state));
  }

  std::vector<RawMatch> do_remove_stream(const StreamDef& stream) override {
    const auto it = states_.find(stream.id);
    std::vector<RawMatch> out;
    for (auto& [id, pair] : it->second.pairs) flush_pair(it->second, pair, out);
    states_.erase(it);
    return out;
  }

  void do_add_pattern(const PatternDef& pattern) override {
    auto shared = std::make_shared<const PatternDef>(pattern);
    // Build every pair first so a failure (constant znorm pattern) leaves nothing behind.
    std::vector<std::pair<StreamState*, Pair>> pairs;
    for (auto& [id, state] : states_)
      if (state.def.dims == pattern.dims)
        pairs.emplace_back(&state, make_pair(shared, state.def, state.history.next_index()));
    if (pairs.empty()) make_pair(shared, StreamDef{"", pattern.dims}, 0);  // validates alone
    for (auto& [state, pair] : pairs) state->pairs.emplace(pattern.id, std::move(pair));
    patterns_.emplace(pattern.id, std::move(shared));
  }

  std::vector<RawMatch> do_remove_pattern(const PatternDef& pattern) override {
    std::vector<RawMatch> out;
    for (auto& [id, state] : states_) {
      const auto it = state.pairs.find(pattern.id);
      if (it == state.pairs.end()) continue;
      flush_pair(state, it->second, out);
      state.pairs.erase(it);
    }
    patterns_.erase(patterns_.find(pattern.id));
    return out;
  }

  std::vector<RawMatch> do_process(std::span<const StreamChunk> batch) override {
    std::vector<RawMatch> out;
    for (const StreamChunk& chunk : batch) {
      StreamState& state = states_.find(chunk.stream_id)->second;
      const std::uint64_t first = state.history.next_index();
      const std::size_t count = chunk.timestamps_ns.size();
      state.history.append(chunk.values, chunk.timestamps_ns);
      counters_.samples += count;
      for (auto& [id, pair] : state.pairs)
        for (std::uint64_t index = first; index < first + count; ++index)
          step_pair(state, pair, index, out);
      forget_unneeded(state);
    }
    return out;
  }

  std::vector<RawMatch> do_flush() override {
    std::vector<RawMatch> out;
    for (auto& [id, state] : states_) {
      for (auto& [pid, pair] : state.pairs) flush_pair(state, pair, out);
      forget_unneeded(state);
    }
    return out;
  }

 private:
  static Pair make_pair(const std::shared_ptr<const PatternDef>& pattern, const StreamDef& stream,
                        std::uint64_t first_index) {
    Pair pair{pattern, std::nullopt, std::nullopt};
    const MatchParams& p = pattern->params;
    if (p.mode == Mode::stream)
      pair.spring.emplace(pattern->values.data(), pattern->length(), pattern->dims,
                          p.distance.metric, p.distance.cost, p.threshold);
    else
      pair.window.emplace(*pattern, stream, first_index);
    return pair;
  }

  void step_pair(const StreamState& state, Pair& pair, std::uint64_t index, std::vector<RawMatch>& out) {
    if (pair.spring) {
      counters_.cells += pair.pattern->length();
      if (auto r = pair.spring->step(state.history.sample(index), index)) add_spring(state, pair, *r, out);
    } else if (auto o = pair.window->step(index, state.history, counters_.cells,
                                          counters_.flat_windows_skipped)) {
      add_window(state, pair, *o, out);
    }
  }

  static void flush_pair(const StreamState& state, Pair& pair, std::vector<RawMatch>& out) {
    if (pair.spring) {
      if (auto r = pair.spring->flush()) add_spring(state, pair, *r, out);
    } else if (auto o = pair.window->flush()) {
      add_window(state, pair, *o, out);
    }
  }

  static void add_spring(const StreamState& state, const Pair& pair, const SpringReport& r,
                         std::vector<RawMatch>& out) {
    out.push_back(RawMatch{state.def.id, pair.pattern->id, static_cast<double>(r.distance),
                           r.start_index, r.end_index, state.history.time_ns(r.start_index),
                           state.history.time_ns(r.end_index)});
  }

  static void add_window(const StreamState& state, const Pair& pair, const WindowOccurrence& o,
                         std::vector<RawMatch>& out) {
    out.push_back(RawMatch{state.def.id, pair.pattern->id, o.distance, o.start_index, o.end_index,
                           o.start_ns, o.end_ns});
  }

  // Keeps only the samples a future window or report can still need.
  static void forget_unneeded(StreamState& state) {
    const std::uint64_t next = state.history.next_index();
    std::uint64_t keep_from = next;
    for (const auto& [id, pair] : state.pairs) {
      if (pair.spring) {
        if (auto oldest = pair.spring->oldest_live_start()) keep_from = std::min(keep_from, *oldest);
      } else {
        const std::uint64_t lookback = pair.window->window() - 1;
        keep_from = std::min(keep_from, next > lookback ? next - lookback : 0);
      }
    }
    state.history.forget_before(keep_from);
  }

  std::map<std::string, StreamState, std::less<>> states_;
  std::map<std::string, std::shared_ptr<const PatternDef>, std::less<>> patterns_;
  MatcherCounters counters_;
};

}  // namespace

std::unique_ptr<Matcher> make_matcher() { return std::make_unique<ReferenceMatcher>(); }

}  // namespace warpwatch::kernels::reference
