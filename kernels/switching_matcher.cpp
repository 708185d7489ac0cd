// The switching matcher (switching_matcher.hpp): the hooks of two backends on one state.
#include "warpwatch/kernels/switching_matcher.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <exception>
#include <stdexcept>
#include <utility>
#include <vector>

#include "common/matcher_state.hpp"
#include "common/spring_lane_state.hpp"

namespace warpwatch::kernels {

class SwitchingMatcher final : public Matcher {
 public:
  SwitchingMatcher(BackendFactory first, BackendFactory second, BackendChoice choose,
                   std::size_t initial)
      : factories_{std::move(first), std::move(second)}, choose_(std::move(choose)), on_(initial) {
    if (!factories_[0] || !factories_[1] || !choose_ || initial > 1)
      throw std::invalid_argument("make_switching_matcher: two backends, a policy, initial 0 or 1");
    // The base's share of large batches on the initial backend's threads.
    lend_host_pool(engine(initial).host_pool_);
  }

  std::string_view name() const override { return "auto"; }
  std::string_view running_backend() const override { return engines_[on_]->name(); }

 protected:
  // Every backend made so far hears of streams (a sharded one places them on arrival); one
  // made later places the streams it meets (sharded_matcher.hpp).
  void on_stream_added(StreamState& stream) override {
    std::size_t told = 0;
    try {
      for (; told < engines_.size(); ++told)
        if (engines_[told]) engines_[told]->on_stream_added(stream);
    } catch (...) {
      while (told > 0)
        if (engines_[--told]) engines_[told]->on_stream_removed(stream);
      throw;
    }
  }
  void on_stream_removed(StreamState& stream) override {
    for (const auto& e : engines_)
      if (e) e->on_stream_removed(stream);
  }
  void on_stream_pattern_added(PatternState& p) override { live().on_stream_pattern_added(p); }
  void on_stream_pattern_removed(PatternState& p, std::vector<RawMatch>& out) override {
    live().on_stream_pattern_removed(p, out);
  }
  void on_stream_pair_added(Pair& pair) override { live().on_stream_pair_added(pair); }
  void on_stream_pair_removed(Pair& pair, std::vector<RawMatch>& out) override {
    live().on_stream_pair_removed(pair, out);
  }

  void run_batch(std::span<WindowBatch> windows, std::vector<RawMatch>& out) override {
    start_batch(windows, out);
    finish_batch(out);
  }

  void start_batch(std::span<WindowBatch> windows, std::vector<RawMatch>& out) override {
    live();  // throws when a failed move left the pairs split
    const std::size_t want = choose_(batch_shape());
    if (want > 1) throw std::logic_error("switching matcher: the policy named no backend");
    if (want != on_ && usable_[want]) move_pairs_to(want);
    live().start_batch(windows, out);
    started_.emplace_back().engine = on_;
    if (on_ == 1) ++second_batches_;
  }

  void finish_batch(std::vector<RawMatch>& out) override {
    Started s = std::move(started_.front());
    started_.pop_front();
    if (!s.drained) return engines_[s.engine]->finish_batch(out);
    out.insert(out.end(), s.matches.begin(), s.matches.end());
    if (s.error) std::rethrow_exception(s.error);
  }

  void flush_stream_pairs(std::vector<RawMatch>& out) override { live().flush_stream_pairs(out); }
  void lower_to_live_starts(std::span<std::uint64_t> keep_from) override {
    live().lower_to_live_starts(keep_from);
  }
  void export_stream_pairs(std::span<Pair* const> pairs,
                           std::span<common::SpringLaneState> out) override {
    live().export_stream_pairs(pairs, out);
  }
  void import_stream_pairs(std::span<Pair* const> pairs,
                           std::span<const common::SpringLaneState> in) override {
    live().import_stream_pairs(pairs, in);
  }

  void add_backend_counters(MatcherCounters& c) const override {
    for (const auto& e : engines_)
      if (e) e->add_backend_counters(c);
    c.second_backend_batches = second_batches_;
    c.backend_switches = switches_;
    c.backend_switch_failures = failures_;
  }

 private:
  // A batch started on engines_[engine]; drained: finished early, before a move (its
  // matches, or the error finishing it threw, wait here for finish_batch).
  struct Started {
    std::size_t engine = 0;
    bool drained = false;
    std::vector<RawMatch> matches;
    std::exception_ptr error;
  };

  Matcher& live() {
    if (split_)
      throw std::runtime_error(
          "backend auto: a failed move between backends left the stream-mode pairs split "
          "between them; the matcher cannot go on");
    return *engines_[on_];
  }

  // Backend i, made on first use (a device context is not set up for work that never
  // moves there); its hooks work on this matcher's streams and pairs.
  Matcher& engine(std::size_t i) {
    if (!engines_[i]) {
      std::unique_ptr<Matcher> e = factories_[i]();
      if (!e || e->stream_count() != 0 || e->pattern_count() != 0)
        throw std::invalid_argument("make_switching_matcher: a backend must be made fresh");
      e->attach_view(state_.get());
      engines_[i] = std::move(e);
    }
    return *engines_[i];
  }

  WorkShape batch_shape() const {
    WorkShape shape{.pairs = 0};
    for (const StreamState* s : state().active) {
      *shape.pairs += s->pairs.size();
      shape.chunk = std::max<std::size_t>(shape.chunk, s->chunk_count);
    }
    for (const auto& [id, p] : state().patterns) {
      shape.longest_pattern = std::max(shape.longest_pattern, p->def->length());
      shape.widest_dims = std::max(shape.widest_dims, p->def->dims);
    }
    return shape;
  }

  // Every stream-mode pattern's pairs from the live backend to `to`, pattern by pattern,
  // after the batches still running on the live one are finished.
  void move_pairs_to(std::size_t to) {
    try {
      engine(to);
    } catch (...) {  // no device context, say: counted, and not tried again
      ++failures_;
      usable_[to] = false;
      return;
    }
    for (Started& s : started_) {
      if (s.drained) continue;
      s.drained = true;
      try {
        engines_[s.engine]->finish_batch(s.matches);
      } catch (...) {
        s.error = std::current_exception();
        return;  // the live backend is in trouble: no move now (finish_batch reports it)
      }
    }
    const std::size_t from = on_;
    std::vector<PatternState*> moved;
    for (auto& [id, p] : state_->patterns) {
      if (!p->stream_mode()) continue;
      try {
        move_pattern(*p, from, to);
      } catch (...) {
        ++failures_;
        usable_[to] = false;
        try {
          if (!usable_[from]) throw;
          for (PatternState* back : moved) move_pattern(*back, to, from);
        } catch (...) {
          split_ = true;
          throw;
        }
        return;  // everything back where it was: the batch runs on `from`
      }
      moved.push_back(p.get());
    }
    on_ = to;
    ++switches_;
  }

  // One pattern's pairs, state and all: added to `to` and given the state exported from
  // `from`, then dropped from `from` (on_stream_pattern_moved_out: their pending candidates
  // moved with the state, nothing is reported). Throws with the pattern still on `from` when
  // `to` cannot take it. Each backend keeps its own handles in the pattern and its pairs.
  // When `from` fails to drop it, `from` is given up on (it may hold part of it still).
  void move_pattern(PatternState& pattern, std::size_t from_index, std::size_t to_index) {
    Matcher& from = *engines_[from_index];
    Matcher& to = *engines_[to_index];
    std::vector<Pair*> pairs;
    pairs.reserve(pattern.pairs.size());
    for (const auto& pair : pattern.pairs) pairs.push_back(pair.get());
    std::vector<common::SpringLaneState> lanes(pairs.size());
    from.export_stream_pairs(pairs, lanes);
    const Handles from_handles = Handles::of(pattern, pairs);
    std::vector<RawMatch> dropped;
    std::size_t added = 0;
    bool pattern_added = false;
    try {
      to.on_stream_pattern_added(pattern);
      pattern_added = true;
      for (; added < pairs.size(); ++added) to.on_stream_pair_added(*pairs[added]);
      to.import_stream_pairs(pairs, lanes);
    } catch (...) {
      try {  // only what `to` took (a pattern it never took has `from`'s handle still)
        while (added > 0) to.on_stream_pair_removed(*pairs[--added], dropped);
        if (pattern_added) to.on_stream_pattern_removed(pattern, dropped);
      } catch (...) {  // `to` is given up on (not tried again) whatever it still holds
      }
      from_handles.restore(pattern, pairs);
      throw;
    }
    const Handles to_handles = Handles::of(pattern, pairs);
    from_handles.restore(pattern, pairs);
    try {
      from.on_stream_pattern_moved_out(pattern);
    } catch (...) {
      usable_[from_index] = false;
    }
    to_handles.restore(pattern, pairs);
  }

  struct Handles {
    std::uint32_t pattern = 0;
    std::vector<std::uint32_t> pairs;
    static Handles of(const PatternState& p, const std::vector<Pair*>& pairs) {
      Handles h{p.handle, {}};
      h.pairs.reserve(pairs.size());
      for (const Pair* pair : pairs) h.pairs.push_back(pair->handle);
      return h;
    }
    void restore(PatternState& p, const std::vector<Pair*>& ps) const {
      p.handle = pattern;
      for (std::size_t k = 0; k < ps.size(); ++k) ps[k]->handle = pairs[k];
    }
  };

  std::array<BackendFactory, 2> factories_;
  std::array<std::unique_ptr<Matcher>, 2> engines_;  // null: not made yet
  BackendChoice choose_;
  std::size_t on_;                          // the backend holding the stream-mode pairs
  std::array<bool, 2> usable_{true, true};  // false: a move to it failed
  bool split_ = false;
  std::deque<Started> started_;  // oldest first
  std::uint64_t second_batches_ = 0, switches_ = 0, failures_ = 0;
};

std::unique_ptr<Matcher> make_switching_matcher(BackendFactory first, BackendFactory second,
                                                BackendChoice choose, std::size_t initial) {
  return std::make_unique<SwitchingMatcher>(std::move(first), std::move(second), std::move(choose),
                                            initial);
}

}  // namespace warpwatch::kernels
