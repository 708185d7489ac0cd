// The Matcher base: input checks, and the bookkeeping every backend shares (streams,
// patterns, pairs, histories, window mode's schedule and grouping, trimming).
#include "warpwatch/kernels/matcher.hpp"

#include <algorithm>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <tuple>

#include "common/matcher_state.hpp"
#include "common/worker_pool.hpp"
#include "reference/spring.hpp"
#include "warpwatch/kernels/errors.hpp"
#include "warpwatch/kernels/stream_snapshot.hpp"

namespace warpwatch::kernels {
namespace {

using common::MatcherState;
using common::Pair;
using common::PatternState;
using common::StreamState;

[[noreturn]] void fail(const std::string& message) {
  throw std::invalid_argument(message);
}

// The entry of `id` in a map of streams or patterns; std::invalid_argument naming it when
// there is none.
template <typename Map>
auto find_or_fail(Map& map, std::string_view id, const char* what) {
  const auto it = map.find(id);
  if (it == map.end()) fail(std::string("unknown ") + what + " '" + std::string(id) + "'");
  return it;
}

// Histories are trimmed in bulk, once this many samples arrived since the last trim, and
// not before trim_interval_batches batches of the last one's size: finding the oldest live
// start scans every stream-mode column, O(m) a pair, which done every batch would dominate
// small batches (one sample against a long pattern); and a trim waits for the device,
// which pipelined batches (submit/collect) should not do every batch.
constexpr std::uint64_t trim_interval_samples = 1 << 16;
constexpr std::uint64_t trim_interval_batches = 4;

using host_clock = std::chrono::steady_clock;
double seconds_since(host_clock::time_point start) {
  return std::chrono::duration<double>(host_clock::now() - start).count();
}

[[noreturn]] void out_of_turn(const std::string& message) {
  throw std::logic_error(message);
}

}  // namespace

void check_pattern(const PatternDef& pattern) {
  const std::string& id = pattern.id;
  if (id.empty()) fail("pattern id is empty");
  if (pattern.dims < 1 || pattern.dims > stream::max_dims)
    fail("pattern '" + id + "': dims must be 1..64");
  if (pattern.values.size() % pattern.dims != 0)
    fail("pattern '" + id + "': values are not a whole number of samples");
  if (pattern.length() < 2) fail("pattern '" + id + "': needs at least 2 samples");
  for (float v : pattern.values)
    if (!std::isfinite(v)) fail("pattern '" + id + "': values must be finite");
  if (!pattern.times.empty()) {
    if (pattern.times.size() != pattern.length())
      fail("pattern '" + id + "': needs one timestamp per sample");
    for (std::size_t i = 0; i < pattern.times.size(); ++i)
      // Within float32's range: window mode keeps them as floats.
      if (!(std::abs(pattern.times[i]) <= FLT_MAX) ||
          (i > 0 && pattern.times[i] <= pattern.times[i - 1]))
        fail("pattern '" + id + "': timestamps must be finite (float32) and increasing");
  }
  try {
    validate(pattern.params, pattern.length());
  } catch (const std::invalid_argument& e) {
    fail("pattern '" + id + "': " + e.what());
  }
  // A constant pattern cannot be z-normalized: refused now, not when a stream pairs with it.
  if (pattern.params.mode == Mode::window) common::WindowTrack check(pattern, 1, 0);
}

std::size_t pattern_memory_bytes(const PatternDef& pattern) {
  const std::size_t m = pattern.length(), d = pattern.dims;
  const std::size_t w = pattern.params.window ? pattern.params.window : m;
  const std::size_t definition = 4 * m * d + 8 * pattern.times.size();
  const std::size_t query =
      common::WindowQuery::applies(pattern.params) ? 8 * m * d + 12 * m + 8 * w * d + 12 * w : 0;
  return 2 * definition + query + 256;
}

bool operator==(const RawMatch& a, const RawMatch& b) {
  return a.stream_id() == b.stream_id() && a.pattern_id() == b.pattern_id() &&
         a.distance == b.distance && a.start_index == b.start_index && a.end_index == b.end_index &&
         a.start_ns == b.start_ns && a.end_ns == b.end_ns;
}

void sort_matches(std::vector<RawMatch>& matches) {
  std::stable_sort(matches.begin(), matches.end(), [](const RawMatch& x, const RawMatch& y) {
    return std::tie(x.stream_id(), x.pattern_id(), x.end_index) <
           std::tie(y.stream_id(), y.pattern_id(), y.end_index);
  });
}

// A submitted batch not yet collected: the matches it has so far, and whether the
// backend still has to finish it (finish_batch).
struct Matcher::Outstanding {
  std::vector<RawMatch> out;
  bool started = true;
};

Matcher::Matcher() : state_(std::make_unique<MatcherState>()), view_(state_.get()) {}
Matcher::~Matcher() = default;

void Matcher::on_stream_added(StreamState&) {}
void Matcher::on_stream_removed(StreamState&) {}
void Matcher::on_stream_pattern_added(PatternState&) {}
void Matcher::on_stream_pattern_moved_out(PatternState& pattern) {
  std::vector<RawMatch> discarded;  // the target backend holds these candidates now
  on_stream_pattern_removed(pattern, discarded);
}
void Matcher::add_backend_counters(MatcherCounters&) const {}

void Matcher::export_stream_pairs(std::span<Pair* const>, std::span<common::SpringLaneState>) {
  throw std::logic_error(std::string("the ") + std::string(name()) +
                         " backend cannot export its stream-mode state");
}

void Matcher::import_stream_pairs(std::span<Pair* const>,
                                  std::span<const common::SpringLaneState>) {
  throw std::logic_error(std::string("the ") + std::string(name()) +
                         " backend cannot import stream-mode state");
}

void Matcher::start_batch(std::span<WindowBatch> windows, std::vector<RawMatch>& out) {
  run_batch(windows, out);
}

void Matcher::finish_batch(std::vector<RawMatch>&) {}

std::span<common::StreamState* const> Matcher::batch_streams() const {
  return subset_ ? subset_->active : view_->active;
}

std::span<common::StreamState* const> Matcher::streams_to_trim() const {
  return subset_ ? subset_->trim_streams : view_->trim_streams;
}

std::size_t Matcher::outstanding() const {
  return outstanding_.size();
}

void Matcher::require_none_outstanding(const char* what) const {
  if (!outstanding_.empty())
    out_of_turn(std::string(what) + " with " + std::to_string(outstanding_.size()) +
                " submitted batch(es) not collected: collect() them first");
}

void Matcher::finish(Outstanding& batch) {
  if (!batch.started) return;
  const auto began = host_clock::now();
  batch.started = false;  // consumed, also when finishing throws (its matches are lost then)
  finish_batch(batch.out);
  state_->counters.collect_seconds += seconds_since(began);
}

void Matcher::finish_started() {
  for (Outstanding& o : outstanding_) finish(o);
}

bool Matcher::trim_due() const {
  const MatcherState& s = *state_;
  return s.samples_since_trim >=
         std::max(trim_interval_samples, trim_interval_batches * s.last_batch_samples);
}

bool Matcher::has_stream(std::string_view id) const {
  return state_->streams.find(id) != state_->streams.end();
}
bool Matcher::has_pattern(std::string_view id) const {
  return state_->patterns.find(id) != state_->patterns.end();
}
std::size_t Matcher::stream_count() const {
  return state_->streams.size();
}
std::size_t Matcher::pattern_count() const {
  return state_->patterns.size();
}

std::vector<std::string> Matcher::stream_ids() const {
  std::vector<std::string> ids;
  ids.reserve(state_->streams.size());
  for (const auto& [id, stream] : state_->streams) ids.push_back(id);
  std::sort(ids.begin(), ids.end());
  return ids;
}

StreamRef Matcher::find_stream(std::string_view id) const {
  const auto it = state_->streams.find(id);
  return it == state_->streams.end() ? nullptr : it->second->def;
}

PatternRef Matcher::find_pattern(std::string_view id) const {
  const auto it = state_->patterns.find(id);
  return it == state_->patterns.end() ? nullptr : it->second->def;
}

MatcherCounters Matcher::counters() const {
  MatcherCounters c = state_->counters;
  add_backend_counters(c);
  return c;
}

// Pairs `stream` and `pattern` from the stream's next sample on. The pair is registered
// only once the backend has taken it (its device memory may run out), and registering
// cannot throw then.
void Matcher::pair_up(StreamState& stream, PatternState& pattern) {
  auto pair = std::make_unique<Pair>();
  pair->stream = &stream;
  pair->pattern = &pattern;
  if (!pattern.stream_mode())
    pair->window.emplace(*pattern.def, stream.def->nominal_period_ns, stream.next_index());
  // Room made first, so that registering cannot throw once the backend has the pair;
  // geometric, so that pairing n streams with a pattern stays O(n).
  const auto room_for_one = [](auto& v) {
    if (v.size() == v.capacity()) v.reserve(std::max<std::size_t>(4, 2 * v.capacity()));
  };
  room_for_one(pattern.pairs);
  room_for_one(stream.pairs);
  if (pattern.stream_mode()) {
    on_stream_pair_added(*pair);
    stream.stream_mode_rows += pattern.def->length();
  } else {
    room_for_one(stream.window_pairs);
    stream.window_pairs.push_back(pair.get());
  }
  stream.pairs.push_back(pair.get());
  pattern.pairs.push_back(std::move(pair));
}

namespace {

// The precondition of process() on a chunk's samples (the stream layer's validator drops
// and counts what breaks it; here it is an invariant). Every sample is checked, so the loops
// are branch-free and vectorize: the whole-batch check costs a fraction of copying the
// chunk into the history (a short-circuiting loop cost 2-3 ns a sample).
bool all_finite(std::span<const float> values) {
  std::uint32_t bad = 0;
  for (const float v : values) {
    std::uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    bad |= static_cast<std::uint32_t>((bits & 0x7f800000u) == 0x7f800000u);  // inf or nan
  }
  return bad == 0;
}

bool strictly_increasing(std::span<const std::int64_t> t) {
  std::uint32_t bad = 0;
  for (std::size_t i = 1; i < t.size(); ++i) bad |= static_cast<std::uint32_t>(t[i - 1] >= t[i]);
  return bad == 0;
}

bool valid_samples(const StreamState& stream, const StreamChunk& chunk) {
  const auto& t = chunk.timestamps_ns;
  const bool after_last =
      t.empty() || stream.next_index() == 0 || t.front() > stream.history.last_time_ns();
  return after_last && strictly_increasing(t) && all_finite(chunk.values);
}

void append_window(const Pair& pair, const common::WindowOccurrence& o,
                   std::vector<RawMatch>& out) {
  out.push_back(RawMatch{pair.stream->def, pair.pattern->def, o.distance, o.start_index,
                         o.end_index, o.start_ns, o.end_ns});
}

}  // namespace

void Matcher::add_stream(StreamRef stream) {
  add_stream(std::move(stream), nullptr, nullptr);
}

void Matcher::add_stream(StreamRef stream, const StreamSnapshot* saved, StreamRestore* restore) {
  require_none_outstanding("add_stream()");
  MatcherState& s = *state_;
  if (!stream) fail("stream definition is null");
  const StreamDef& def = *stream;
  if (def.id.empty()) fail("stream id is empty");
  if (has_stream(def.id)) fail("stream '" + def.id + "' already exists");
  if (def.dims < 1 || def.dims > stream::max_dims)
    fail("stream '" + def.id + "': dims must be 1..64");
  if (def.nominal_period_ns <= 0) fail("stream '" + def.id + "': nominal period must be > 0");
  std::uint32_t slot = s.slot_count;
  if (!s.free_slots.empty()) {
    slot = s.free_slots.back();
    s.free_slots.pop_back();
  } else {
    ++s.slot_count;
  }
  StreamState& added =
      *s.streams.emplace(def.id, std::make_unique<StreamState>(std::move(stream), slot))
           .first->second;
  try {
    on_stream_added(added);
  } catch (...) {                   // nothing of it to undo in the backend: the stream is not added
    const std::string id = def.id;  // def goes with the stream
    s.free_slots.push_back(slot);
    s.streams.erase(id);
    throw;
  }
  try {
    // A saved history first: pairs made now start from its next index.
    if (saved)
      added.history.restore(saved->first_index, saved->values, saved->times_ns, saved->last_ns);
    for (auto& [id, pattern] : s.patterns)
      if (pattern->def->dims == def.dims) pair_up(added, *pattern);
    if (saved) restore_pairs(added, *saved, *restore);
  } catch (...) {  // the backend could not take a pair: the stream is not added at all
    const std::string id = def.id;  // def goes with the stream
    remove_stream(id);
    throw;
  }
}

std::vector<RawMatch> Matcher::remove_stream(std::string_view stream_id) {
  require_none_outstanding("remove_stream()");
  MatcherState& s = *state_;
  const auto it = find_or_fail(s.streams, stream_id, "stream");
  StreamState& stream = *it->second;
  std::vector<RawMatch> out;
  for (Pair* pair : stream.pairs) {
    if (pair->window) {
      if (auto o = pair->window->flush()) append_window(*pair, *o, out);
    } else {
      on_stream_pair_removed(*pair, out);
    }
    std::erase_if(pair->pattern->pairs,
                  [&](const std::unique_ptr<Pair>& p) { return p.get() == pair; });
  }
  if (stream.changed_since_trim) std::erase(s.trim_streams, &stream);
  on_stream_removed(stream);
  s.free_slots.push_back(stream.slot);
  s.streams.erase(it);
  sort_matches(out);
  return out;
}

void Matcher::add_pattern(PatternRef pattern) {
  require_none_outstanding("add_pattern()");
  if (!pattern) fail("pattern definition is null");
  check_pattern(*pattern);
  MatcherState& s = *state_;
  if (has_pattern(pattern->id)) fail("pattern '" + pattern->id + "' already exists");
  auto added = std::make_unique<PatternState>();
  added->def = std::move(pattern);
  added->eps = reference::stream_eps(added->def->params.threshold);
  added->fingerprint = pattern_fingerprint(*added->def);
  if (common::WindowQuery::applies(added->def->params))
    added->window_query = std::make_unique<const common::WindowQuery>(*added->def);
  PatternState& p = *s.patterns.emplace(added->def->id, std::move(added)).first->second;
  if (p.stream_mode()) {
    try {
      on_stream_pattern_added(p);
    } catch (...) {
      const std::string id = p.def->id;
      s.patterns.erase(id);
      throw;
    }
  }
  try {
    for (auto& [id, stream] : s.streams)
      if (stream->def->dims == p.def->dims) pair_up(*stream, p);
  } catch (...) {  // the backend could not take a pair: the pattern is not added at all
    const std::string id = p.def->id;  // p goes with the pattern
    remove_pattern(id);
    throw;
  }
}

std::vector<RawMatch> Matcher::remove_pattern(std::string_view pattern_id) {
  require_none_outstanding("remove_pattern()");
  MatcherState& s = *state_;
  const auto it = find_or_fail(s.patterns, pattern_id, "pattern");
  PatternState& pattern = *it->second;
  std::vector<RawMatch> out;
  if (pattern.stream_mode()) {
    on_stream_pattern_removed(pattern, out);
  } else {
    for (const auto& pair : pattern.pairs)
      if (auto o = pair->window->flush()) append_window(*pair, *o, out);
  }
  for (const auto& pair : pattern.pairs) {
    StreamState& stream = *pair->stream;
    std::erase(stream.pairs, pair.get());
    if (pair->window)
      std::erase(stream.window_pairs, pair.get());
    else
      stream.stream_mode_rows -= pattern.def->length();
  }
  s.patterns.erase(it);
  sort_matches(out);
  return out;
}

namespace {

// Puts the batch's streams back to "no chunk" when the batch ends, also when the backend
// throws: between batches every stream has chunk_count 0 and no values, and the next batch
// touches only its own streams.
class EndOfBatch {
 public:
  explicit EndOfBatch(MatcherState& s) : s_(s) {}
  ~EndOfBatch() {
    for (StreamState* stream : s_.active) {
      stream->chunk_first = stream->next_index();
      stream->chunk_count = 0;
      stream->chunk_values = {};
    }
    s_.active.clear();
  }
  EndOfBatch(const EndOfBatch&) = delete;
  EndOfBatch& operator=(const EndOfBatch&) = delete;

 private:
  MatcherState& s_;
};

}  // namespace

std::vector<RawMatch> Matcher::process(std::span<const StreamChunk> batch) {
  require_none_outstanding("process()");
  submit(batch);
  return collect();
}

void Matcher::submit(std::span<const StreamChunk> batch) {
  MatcherState& s = *state_;
  if (outstanding_.size() >= max_outstanding)
    out_of_turn("submit() with " + std::to_string(outstanding_.size()) +
                " batches not collected: collect() one first");
  const auto began = host_clock::now();
  host_clock::duration not_prepare{};
  // Checks first, so that a bad batch changes nothing.
  const std::uint64_t serial = ++s.batch_serial;
  std::vector<StreamState*> touched;
  touched.reserve(batch.size());
  for (const StreamChunk& chunk : batch) {
    StreamState& stream = *find_or_fail(s.streams, chunk.stream_id, "stream")->second;
    const std::string& id = stream.def->id;
    if (stream.batch_serial == serial) fail("stream '" + id + "' appears twice in one batch");
    stream.batch_serial = serial;
    const std::size_t dims = stream.def->dims;
    if (chunk.values.size() != chunk.timestamps_ns.size() * dims)
      fail("stream '" + id + "': chunk has " + std::to_string(chunk.values.size()) +
           " values for " + std::to_string(chunk.timestamps_ns.size()) + " samples of dimension " +
           std::to_string(dims));
    touched.push_back(&stream);
  }
  // A trim that collect() could not make (a later batch was on the device) is made before
  // this batch: it needs the device state of every batch before it.
  if (trim_due()) {
    const auto waited = host_clock::now();
    finish_started();
    trim_histories(false);
    not_prepare += host_clock::now() - waited;  // counted as collect and trim time
  }
  // Every stream is at "no chunk" (chunk_first = its next index); only those with samples
  // change, and go back when the batch ends.
  const EndOfBatch end_of_batch(s);
  std::uint64_t samples = 0;
  std::vector<const StreamChunk*> active_chunks;  // beside s.active
  for (std::size_t k = 0; k < batch.size(); ++k) {
    const StreamChunk& chunk = batch[k];
    StreamState& stream = *touched[k];
    if (chunk.timestamps_ns.empty()) continue;
    s.active.push_back(&stream);
    active_chunks.push_back(&chunk);
    stream.chunk_first = stream.next_index();
    stream.chunk_count = static_cast<std::uint32_t>(chunk.timestamps_ns.size());
    stream.chunk_values = chunk.values;
    samples += chunk.timestamps_ns.size();
    if (!stream.changed_since_trim) {
      stream.changed_since_trim = true;
      s.trim_streams.push_back(&stream);
    }
    s.counters.cells += std::uint64_t{stream.chunk_count} * stream.stream_mode_rows;
  }
  // Each active stream's samples checked and appended to its history: reading and copying
  // every sample, the base's biggest per-batch cost, so large batches are split over the
  // host pool (streams are independent).
  common::for_each_part(host_pool_, s.active.size(), samples, [&](std::size_t k) {
    StreamState& stream = *s.active[k];
    const StreamChunk& chunk = *active_chunks[k];
    WW_ASSERT(valid_samples(stream, chunk),
              "stream '" + stream.def->id +
                  "': non-finite values or timestamps that do not increase (the "
                  "stream layer validates samples before they are matched)");
    stream.history.append(chunk.values, chunk.timestamps_ns);
  });
  s.counters.samples += samples;
  s.samples_since_trim += samples;
  s.last_batch_samples = samples;
  ++s.counters.batches;

  // Window mode: the windows that end in each chunk, for the backend to compute (each pair's
  // windows are its own: the order of `windows` does not change any result).
  std::size_t n = 0;
  for (StreamState* stream : s.active) {
    for (Pair* pair : stream->window_pairs) {
      if (n == s.windows.size()) s.windows.emplace_back();
      WindowBatch& w = s.windows[n++];
      w.pair = pair;
      pair->window->ends(stream->chunk_first, stream->chunk_first + stream->chunk_count, w.ends);
      w.distances.assign(w.ends.size(), 0.0);
      w.flat.assign(w.ends.size(), 0);
      w.pruned = {};
    }
  }
  const std::span<WindowBatch> windows(s.windows.data(), n);
  Outstanding& batch_out = outstanding_.emplace_back();
  std::vector<RawMatch>& out = batch_out.out;
  const auto started = host_clock::now();
  try {
    start_batch(windows, out);
  } catch (...) {
    outstanding_.pop_back();  // a start_batch that throws leaves nothing started
    throw;
  }
  const auto start_end = host_clock::now();
  s.counters.start_seconds += std::chrono::duration<double>(start_end - started).count();
  not_prepare += start_end - started;
  std::vector<common::WindowOccurrence> occurrences;
  for (WindowBatch& w : windows) {
    Pair& pair = *w.pair;
    const StreamState& stream = *pair.stream;
    const std::uint64_t flat =
        pair.window->group(stream.chunk_first, stream.chunk_first + stream.chunk_count, w.ends,
                           w.distances, w.flat, stream.history, occurrences);
    s.counters.flat_windows_skipped += flat;
    s.counters.windows_evaluated += w.ends.size() - flat;
    for (std::size_t k = 0; k < w.pruned.size(); ++k) s.counters.windows_pruned[k] += w.pruned[k];
    const bool lock_step = measure_info(pair.pattern->def->params.distance.metric).lock_step;
    s.counters.cells += (w.ends.size() - flat) * pair.pattern->def->length() *
                        (lock_step ? 1 : pair.window->window());
    for (const auto& o : occurrences) append_window(pair, o, out);
    occurrences.clear();
  }
  s.counters.prepare_seconds +=
      std::chrono::duration<double>(host_clock::now() - began - not_prepare).count();
}

std::vector<RawMatch> Matcher::collect() {
  if (outstanding_.empty()) out_of_turn("collect() with no batch submitted");
  // Taken out first: a batch whose finishing throws is consumed (its matches are lost), and
  // the next collect() returns the next batch.
  Outstanding oldest = std::move(outstanding_.front());
  outstanding_.erase(outstanding_.begin());
  finish(oldest);
  std::vector<RawMatch> out = std::move(oldest.out);
  // Trimming needs the device state of every batch so far: now if none is left, else
  // before the next batch (submit).
  if (outstanding_.empty() && trim_due()) trim_histories(false);
  sort_matches(out);
  return out;
}

std::vector<RawMatch> Matcher::flush() {
  require_none_outstanding("flush()");
  std::vector<RawMatch> out;
  flush_stream_pairs(out);
  for (auto& [id, pattern] : state_->patterns)
    if (!pattern->stream_mode())
      for (const auto& pair : pattern->pairs)
        if (auto o = pair->window->flush()) append_window(*pair, *o, out);
  trim_histories(true);
  sort_matches(out);
  return out;
}

std::vector<std::uint64_t> Matcher::settled_before(std::span<const std::string> stream_ids) {
  require_none_outstanding("settled_before()");
  MatcherState& s = *state_;
  std::vector<StreamState*> streams;
  streams.reserve(stream_ids.size());
  for (const std::string& id : stream_ids)
    streams.push_back(find_or_fail(s.streams, id, "stream")->second.get());
  // The hook works on state().trim_streams: pointed at these streams for the call, then
  // given back as it was (the next trim's list is untouched).
  std::vector<StreamState*> trim_streams = std::move(s.trim_streams);
  s.trim_streams = streams;
  s.keep_from.assign(s.slot_count, 0);
  for (StreamState* stream : streams) s.keep_from[stream->slot] = stream->next_index();
  try {
    lower_to_live_starts(s.keep_from);
  } catch (...) {
    s.trim_streams = std::move(trim_streams);
    throw;
  }
  s.trim_streams = std::move(trim_streams);
  std::vector<std::uint64_t> out;
  out.reserve(streams.size());
  for (StreamState* stream : streams) {
    std::uint64_t settled = s.keep_from[stream->slot];
    for (const Pair* pair : stream->window_pairs)
      settled = std::min(settled, pair->window->oldest_start(stream->next_index()));
    out.push_back(settled);
  }
  return out;
}

// Keeps, per stream, only the samples a future window or report can still need. A stream
// without samples since the last trim is left as it is (all: every stream, as at the end of
// input): its pairs' state is what it was then, or fresh (a fresh pair needs nothing older
// than the stream's next sample), so it could at most give back what a removed pair held.
void Matcher::trim_histories(bool all) {
  MatcherState& s = *state_;
  const auto began = host_clock::now();
  ++s.counters.trims;
  s.samples_since_trim = 0;
  if (all) {
    for (StreamState* stream : s.trim_streams) stream->changed_since_trim = false;
    s.trim_streams.clear();
    for (auto& [id, stream] : s.streams) s.trim_streams.push_back(stream.get());
  }
  s.keep_from.assign(s.slot_count, 0);
  for (StreamState* stream : s.trim_streams) s.keep_from[stream->slot] = stream->next_index();
  lower_to_live_starts(s.keep_from);
  for (StreamState* stream : s.trim_streams) {
    std::uint64_t& keep = s.keep_from[stream->slot];
    for (const Pair* pair : stream->window_pairs)
      keep = std::min(keep, pair->window->oldest_needed(stream->next_index()));
    stream->history.forget_before(keep);
    stream->changed_since_trim = false;
  }
  s.trim_streams.clear();
  s.counters.trim_seconds += seconds_since(began);
}

}  // namespace warpwatch::kernels
