// The sharded matcher (sharded_matcher.hpp): the hooks of several backends on one state, each
// on the streams placed on it, each shard's batch work on a host thread of its own.
#include "warpwatch/kernels/sharded_matcher.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/thread_pool.hpp>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <future>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "common/matcher_state.hpp"
#include "common/spring_lane_state.hpp"

namespace warpwatch::kernels {

namespace {
constexpr std::int32_t unplaced = -1;
}  // namespace

class ShardedMatcher final : public Matcher {
 public:
  explicit ShardedMatcher(std::vector<BackendFactory> factories) {
    if (factories.empty()) throw std::invalid_argument("make_sharded_matcher: no shards");
    shards_.reserve(factories.size());
    for (const BackendFactory& make : factories) {
      std::unique_ptr<Matcher> engine = make ? make() : nullptr;
      if (!engine || engine->stream_count() != 0 || engine->pattern_count() != 0)
        throw std::invalid_argument("make_sharded_matcher: a shard must be made fresh");
      auto shard = std::make_unique<Shard>();
      shard->engine = std::move(engine);
      shard->engine->attach_view(state_.get());
      shard->engine->subset_ = &shard->streams;
      shards_.push_back(std::move(shard));
    }
    // The base's share of large batches on the first shard's threads (the shards' own
    // threads are busy only inside start_batch and finish_batch, after the base's share).
    lend_host_pool(shards_[0]->engine->host_pool_);
  }

  std::string_view name() const override { return shards_[0]->engine->name(); }
  std::string_view running_backend() const override {
    return shards_[0]->engine->running_backend();
  }

  // Every stream added through this matcher was placed on arrival (on_stream_added).
  std::size_t placed_shard(std::string_view stream_id) const {
    const auto it = state().streams.find(stream_id);
    const std::uint32_t slot = it == state().streams.end() ? 0 : it->second->slot;
    if (it == state().streams.end() || slot >= placed_.size() || placed_[slot] == unplaced)
      throw std::invalid_argument("shard_of_stream: no stream '" + std::string(stream_id) +
                                  "' placed");
    return static_cast<std::size_t>(placed_[slot]);
  }

 protected:
  void on_stream_added(StreamState& stream) override {
    const std::size_t k = shard_of(stream);
    try {
      engine(k).on_stream_added(stream);
    } catch (...) {
      unplace(stream);
      throw;
    }
  }

  void on_stream_removed(StreamState& stream) override {
    if (stream.slot >= placed_.size() || placed_[stream.slot] == unplaced) return;
    engine(static_cast<std::size_t>(placed_[stream.slot])).on_stream_removed(stream);
    unplace(stream);
  }

  // Every shard takes every stream-mode pattern (its pairs are on all of them), under the
  // one handle all of them give it.
  void on_stream_pattern_added(PatternState& pattern) override {
    std::size_t added = 0;
    try {
      std::uint32_t handle = 0;
      for (; added < shards_.size(); ++added) {
        engine(added).on_stream_pattern_added(pattern);
        if (added == 0) handle = pattern.handle;
        if (pattern.handle != handle) {
          ++added;  // this one took it too
          throw std::logic_error("sharded matcher: the shards gave stream-mode pattern '" +
                                 pattern.def->id +
                                 "' different handles (a shard that was not made fresh?)");
        }
      }
    } catch (...) {
      std::vector<RawMatch> none;  // it has no pairs on the shards yet
      for (std::size_t k = 0; k < added; ++k) {
        try {
          engine(k).on_stream_pattern_removed(pattern, none);
        } catch (...) {  // the first error is the one to report
        }
      }
      throw;
    }
  }

  void on_stream_pattern_removed(PatternState& pattern, std::vector<RawMatch>& out) override {
    each_shard_in_turn([&](Matcher& e) { e.on_stream_pattern_removed(pattern, out); });
  }

  void on_stream_pattern_moved_out(PatternState& pattern) override {
    each_shard_in_turn([&](Matcher& e) { e.on_stream_pattern_moved_out(pattern); });
  }

  void on_stream_pair_added(Pair& pair) override {
    engine(shard_of(*pair.stream)).on_stream_pair_added(pair);
  }

  void on_stream_pair_removed(Pair& pair, std::vector<RawMatch>& out) override {
    engine(shard_of(*pair.stream)).on_stream_pair_removed(pair, out);
  }

  void run_batch(std::span<WindowBatch> windows, std::vector<RawMatch>& out) override {
    start_batch(windows, out);
    finish_batch(out);
  }

  // Each shard's streams and window batches (grouped by shard: their order does not change
  // any result), then every shard's start on its own thread, all at once.
  void start_batch(std::span<WindowBatch> windows, std::vector<RawMatch>& out) override {
    for (StreamState* stream : batch_streams())
      shards_[shard_of(*stream)]->streams.active.push_back(stream);
    std::sort(windows.begin(), windows.end(), [this](const WindowBatch& a, const WindowBatch& b) {
      return placed_[a.pair->stream->slot] < placed_[b.pair->stream->slot];
    });
    std::size_t from = 0;
    for (std::size_t k = 0; k < shards_.size(); ++k) {
      std::size_t to = from;
      while (to < windows.size() &&
             static_cast<std::size_t>(placed_[windows[to].pair->stream->slot]) == k)
        ++to;
      shards_[k]->windows = windows.subspan(from, to - from);
      from = to;
    }
    const std::vector<std::exception_ptr> errors =
        on_every_shard([](Shard& s, std::size_t) { s.engine->start_batch(s.windows, s.out); });
    for (const auto& shard : shards_) {
      shard->streams.active.clear();
      shard->windows = {};
    }
    const auto failed = std::find_if(errors.begin(), errors.end(),
                                     [](const std::exception_ptr& e) { return bool(e); });
    if (failed != errors.end()) {
      // Nothing of the batch stays started: the shards that started it finish it now, their
      // matches dropped with the batch.
      on_every_shard([&](Shard& s, std::size_t k) {
        if (!errors[k]) s.engine->finish_batch(s.out);
      });
      for (const auto& shard : shards_) shard->out.clear();
      std::rethrow_exception(*failed);
    }
    gather(out);
  }

  // Every shard finishes its oldest batch (each is finished, also when another throws).
  void finish_batch(std::vector<RawMatch>& out) override {
    const std::vector<std::exception_ptr> errors =
        on_every_shard([](Shard& s, std::size_t) { s.engine->finish_batch(s.out); });
    gather(out);
    for (const std::exception_ptr& e : errors)
      if (e) std::rethrow_exception(e);
  }

  void flush_stream_pairs(std::vector<RawMatch>& out) override {
    each_shard_in_turn([&](Matcher& e) { e.flush_stream_pairs(out); });
  }

  // One shard after the other: a shard may lower slots that are not its own.
  void lower_to_live_starts(std::span<std::uint64_t> keep_from) override {
    for (StreamState* stream : streams_to_trim())
      shards_[shard_of(*stream)]->streams.trim_streams.push_back(stream);
    try {
      each_shard_in_turn([&](Matcher& e) { e.lower_to_live_starts(keep_from); });
    } catch (...) {
      for (const auto& shard : shards_) shard->streams.trim_streams.clear();
      throw;
    }
    for (const auto& shard : shards_) shard->streams.trim_streams.clear();
  }

  void add_backend_counters(MatcherCounters& c) const override {
    for (const auto& shard : shards_) {
      MatcherCounters own;
      shard->engine->add_backend_counters(own);
      c.device_bytes += own.device_bytes;
      c.device_seconds += own.device_seconds;
      c.wait_seconds += own.wait_seconds;
      c.second_backend_batches += own.second_backend_batches;
      c.backend_switches += own.backend_switches;
      c.backend_switch_failures += own.backend_switch_failures;
      c.device_bytes_per_device.push_back(own.device_bytes);
    }
  }

  // Through the shard holding each pair, in groups by shard.
  void export_stream_pairs(std::span<Pair* const> pairs,
                           std::span<common::SpringLaneState> out) override {
    for (std::size_t k = 0; k < shards_.size(); ++k) {
      const std::vector<std::size_t> mine = pairs_of(k, pairs);
      if (mine.empty()) continue;
      std::vector<Pair*> some;
      for (const std::size_t i : mine) some.push_back(pairs[i]);
      std::vector<common::SpringLaneState> lanes(some.size());
      engine(k).export_stream_pairs(some, lanes);
      for (std::size_t j = 0; j < mine.size(); ++j) out[mine[j]] = std::move(lanes[j]);
    }
  }

  void import_stream_pairs(std::span<Pair* const> pairs,
                           std::span<const common::SpringLaneState> in) override {
    for (std::size_t k = 0; k < shards_.size(); ++k) {
      const std::vector<std::size_t> mine = pairs_of(k, pairs);
      if (mine.empty()) continue;
      std::vector<Pair*> some;
      std::vector<common::SpringLaneState> lanes;
      for (const std::size_t i : mine) {
        some.push_back(pairs[i]);
        lanes.push_back(in[i]);
      }
      engine(k).import_stream_pairs(some, lanes);
    }
  }

 private:
  struct Shard {
    std::unique_ptr<Matcher> engine;
    common::StreamSubset streams;    // its part of the batch's (trim's) streams
    std::span<WindowBatch> windows;  // its part of the batch's window batches
    std::vector<RawMatch> out;       // what its start or finish returned
    std::uint64_t cells = 0;         // a sample of every stream placed on it
    std::size_t stream_count = 0;
    // Last: its thread stops (joins) before the engine goes.
    boost::asio::thread_pool thread{1};
  };

  void attach_view(common::MatcherState* view) override {
    Matcher::attach_view(view);
    for (const auto& shard : shards_) shard->engine->attach_view(view);
  }

  Matcher& engine(std::size_t k) { return *shards_[k]->engine; }

  // fn(shard, its index) on every shard's own thread at once (inline for one shard); waits
  // for all, returning each one's exception (null: none).
  template <typename Fn>
  std::vector<std::exception_ptr> on_every_shard(Fn fn) {
    std::vector<std::exception_ptr> errors(shards_.size());
    if (shards_.size() == 1) {
      try {
        fn(*shards_[0], 0);
      } catch (...) {
        errors[0] = std::current_exception();
      }
      return errors;
    }
    std::vector<std::future<void>> done;
    done.reserve(shards_.size());
    for (std::size_t k = 0; k < shards_.size(); ++k) {
      Shard& shard = *shards_[k];
      auto task = std::make_shared<std::packaged_task<void()>>([&fn, &shard, k] { fn(shard, k); });
      done.push_back(task->get_future());
      boost::asio::post(shard.thread, [task] { (*task)(); });
    }
    for (std::size_t k = 0; k < done.size(); ++k) {
      try {
        done[k].get();
      } catch (...) {
        errors[k] = std::current_exception();
      }
    }
    return errors;
  }

  // fn(engine) on every shard, one after the other; each is called, also when one throws
  // (the first exception is rethrown after the last).
  template <typename Fn>
  void each_shard_in_turn(Fn fn) {
    std::exception_ptr first;
    for (const auto& shard : shards_) {
      try {
        fn(*shard->engine);
      } catch (...) {
        if (!first) first = std::current_exception();
      }
    }
    if (first) std::rethrow_exception(first);
  }

  void gather(std::vector<RawMatch>& out) {
    for (const auto& shard : shards_) {
      out.insert(out.end(), std::make_move_iterator(shard->out.begin()),
                 std::make_move_iterator(shard->out.end()));
      shard->out.clear();
    }
  }

  std::vector<std::size_t> pairs_of(std::size_t k, std::span<Pair* const> pairs) {
    std::vector<std::size_t> mine;
    for (std::size_t i = 0; i < pairs.size(); ++i)
      if (shard_of(*pairs[i]->stream) == k) mine.push_back(i);
    return mine;
  }

  // The shard holding the stream, placing it first when it is new to this matcher (it
  // arrived before this matcher was made: auto moving to a sharded backend).
  std::size_t shard_of(const StreamState& stream) {
    if (stream.slot >= placed_.size()) {
      placed_.resize(stream.slot + 1, unplaced);
      cells_.resize(stream.slot + 1, 0);
    }
    if (placed_[stream.slot] == unplaced) place(stream);
    return static_cast<std::size_t>(placed_[stream.slot]);
  }

  void place(const StreamState& stream) {
    const std::uint64_t cells = cells_a_sample(stream);
    std::size_t best = 0;
    for (std::size_t k = 1; k < shards_.size(); ++k)
      if (std::tie(shards_[k]->cells, shards_[k]->stream_count) <
          std::tie(shards_[best]->cells, shards_[best]->stream_count))
        best = k;
    placed_[stream.slot] = static_cast<std::int32_t>(best);
    cells_[stream.slot] = cells;
    shards_[best]->cells += cells;
    ++shards_[best]->stream_count;
  }

  void unplace(const StreamState& stream) {
    Shard& shard = *shards_[static_cast<std::size_t>(placed_[stream.slot])];
    shard.cells -= cells_[stream.slot];
    --shard.stream_count;
    placed_[stream.slot] = unplaced;
  }

  // The cells a sample of the stream costs with the patterns of its dims there are now.
  std::uint64_t cells_a_sample(const StreamState& stream) const {
    std::uint64_t cells = 0;
    for (const auto& [id, p] : state().patterns) {
      const PatternDef& def = *p->def;
      if (def.dims != stream.def->dims) continue;
      const std::uint64_t m = def.length();
      if (p->stream_mode()) {
        cells += m;
        continue;
      }
      const MatchParams& params = def.params;
      const std::uint64_t w = measure_info(params.distance.metric).lock_step ? 1
                              : params.window                                ? params.window
                                                                             : m;
      cells += m * w / std::max<std::size_t>(params.hop, 1);
    }
    return cells;
  }

  std::vector<std::unique_ptr<Shard>> shards_;
  std::vector<std::int32_t> placed_;  // by stream slot: its shard, or unplaced
  std::vector<std::uint64_t> cells_;  // by stream slot: what it added to its shard's cells
};

std::unique_ptr<Matcher> make_sharded_matcher(std::vector<BackendFactory> shards) {
  return std::make_unique<ShardedMatcher>(std::move(shards));
}

std::size_t shard_of_stream(const Matcher& matcher, std::string_view stream_id) {
  auto* sharded = dynamic_cast<const ShardedMatcher*>(&matcher);
  if (!sharded) throw std::invalid_argument("shard_of_stream: not a sharded matcher");
  return sharded->placed_shard(stream_id);
}

}  // namespace warpwatch::kernels
