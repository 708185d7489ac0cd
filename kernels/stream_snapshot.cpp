// Matcher::export_stream / import_stream (stream_snapshot.hpp): a stream's state out of the
// Matcher and back, and the pattern fingerprint that decides which saved pairs still apply.
#include "warpwatch/kernels/stream_snapshot.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>
#include <stdexcept>
#include <utility>

#include "common/low32_index.hpp"
#include "common/matcher_state.hpp"
#include "warpwatch/base/little_endian.hpp"
#include "warpwatch/base/sha256.hpp"

namespace warpwatch::kernels {
namespace {

using common::Pair;
using common::PatternState;
using common::StreamState;
using stream::store_le;

void put_f64(std::string& out, double v) {
  std::uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  store_le(out, bits, 8);
}

[[noreturn]] void invalid(const StreamSnapshot& s, const std::string& why) {
  throw std::invalid_argument("snapshot of stream '" + s.def.id + "': " + why);
}

// What import_stream requires of a snapshot as a whole before it changes anything.
void check_snapshot(const StreamSnapshot& s) {
  const StreamDef& def = s.def;
  if (def.id.empty()) invalid(s, "empty stream id");
  if (def.dims < 1 || def.dims > stream::max_dims) invalid(s, "dims must be 1..64");
  if (def.nominal_period_ns <= 0) invalid(s, "nominal period must be > 0");
  // Far beyond any stream's life (2^62 samples at 1 GHz: 146 years), so that indices after
  // it cannot wrap around.
  if (s.next_index > (std::uint64_t{1} << 62)) invalid(s, "next index out of range");
  const std::size_t kept = s.times_ns.size();
  if (s.first_index > s.next_index || s.next_index - s.first_index != kept)
    invalid(s, "history of " + std::to_string(kept) + " samples does not end at next index " +
                   std::to_string(s.next_index));
  if (s.values.size() != kept * def.dims) invalid(s, "history values are not dims per sample");
  for (std::size_t i = 1; i < kept; ++i)
    if (s.times_ns[i - 1] >= s.times_ns[i]) invalid(s, "history timestamps do not increase");
  if (kept > 0 && s.last_ns != s.times_ns.back())
    invalid(s, "last timestamp is not the history's last");
  for (const float v : s.values)
    if (!std::isfinite(v)) invalid(s, "history values must be finite");
  std::set<std::string_view> ids;
  for (const PairSnapshot& p : s.pairs)
    if (!ids.insert(p.pattern_id).second) invalid(s, "pattern '" + p.pattern_id + "' twice");
}

// Whether a saved SPRING lane fits the pair: one row per pattern sample, and every start it
// may still report (its candidate, its cells with D <= eps) among the kept samples.
bool lane_fits(const common::SpringLaneState& lane, const PatternState& pattern,
               const StreamSnapshot& s) {
  const std::size_t m = pattern.def->length();
  if (lane.d.size() != m || lane.s.size() != m) return false;
  const std::int32_t next = common::low32(s.next_index);
  // A sample before the next index (1 or more back) that the history keeps.
  const auto kept = [&](std::int32_t low) {
    const std::uint64_t back = common::samples_back(next, low);
    return back >= 1 && back <= s.next_index && s.next_index - back >= s.first_index;
  };
  if (lane.d_min <= pattern.eps) {
    if (!kept(lane.t_s) || !kept(lane.t_e)) return false;
    if (common::samples_back(lane.t_e, lane.t_s) > common::samples_back(next, lane.t_s))
      return false;  // starts after it ends
  }
  for (std::size_t i = 0; i < m; ++i)
    if (lane.d[i] <= pattern.eps && !kept(lane.s[i])) return false;
  return true;
}

// The same for a window-mode track: its schedule starts at or before the next index, its
// pending occurrence is one of its windows, and its next windows' samples are kept.
bool track_fits(const WindowTrackState& track, const common::WindowTrack& fresh,
                const StreamSnapshot& s) {
  if (track.first_index > s.next_index) return false;
  const std::uint64_t needed = std::max(track.first_index, fresh.oldest_needed(s.next_index));
  if (needed < s.first_index) return false;
  if (const auto& o = track.pending) {
    const std::uint64_t w = fresh.window();
    if (!(o->end_index < s.next_index && o->end_index + 1 >= w &&
          o->start_index == o->end_index + 1 - w && o->start_index >= track.first_index &&
          !std::isnan(o->distance)))
      return false;
  }
  return true;
}

}  // namespace

std::uint64_t pattern_fingerprint(const PatternDef& p) {
  std::string bytes = "warpwatch pattern 1";
  store_le(bytes, p.dims, 8);
  store_le(bytes, p.values.size(), 8);
  for (const float v : p.values) {
    std::uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    store_le(bytes, bits, 4);
  }
  store_le(bytes, p.times.size(), 8);
  for (const double t : p.times) put_f64(bytes, t);
  const MatchParams& mp = p.params;
  const DistanceParams& dp = mp.distance;
  store_le(bytes, static_cast<std::uint64_t>(dp.metric), 1);
  store_le(bytes, static_cast<std::uint64_t>(dp.cost), 1);
  store_le(bytes, dp.band.has_value(), 1);
  put_f64(bytes, dp.band.value_or(0.0));
  for (const double v : {dp.gamma, dp.nu, dp.lambda, dp.p, mp.threshold}) put_f64(bytes, v);
  store_le(bytes, static_cast<std::uint64_t>(mp.mode), 1);
  store_le(bytes, mp.window, 8);
  store_le(bytes, mp.hop, 8);
  store_le(bytes, static_cast<std::uint64_t>(mp.normalize), 1);
  const auto digest = stream::sha256(bytes);
  return stream::load_le(reinterpret_cast<const std::byte*>(digest.data()), 8);
}

StreamSnapshot Matcher::export_stream(std::string_view stream_id) const {
  const std::string id(stream_id);
  return std::move(export_streams(std::span(&id, 1)).front());
}

std::vector<StreamSnapshot> Matcher::export_streams(std::span<const std::string> stream_ids) const {
  require_none_outstanding("export_stream()");
  std::vector<const StreamState*> streams;
  streams.reserve(stream_ids.size());
  for (const std::string& id : stream_ids) {
    const auto it = state_->streams.find(id);
    if (it == state_->streams.end()) throw std::invalid_argument("unknown stream '" + id + "'");
    streams.push_back(it->second.get());
  }
  std::vector<StreamSnapshot> out(streams.size());
  std::vector<Pair*> spring_pairs;
  std::vector<std::pair<std::size_t, std::size_t>> spring_slots;  // (stream, pair) in `out`
  for (std::size_t k = 0; k < streams.size(); ++k) {
    const StreamState& stream = *streams[k];
    const kernels::StreamHistory& history = stream.history;
    StreamSnapshot& snap = out[k];
    snap.def = *stream.def;
    snap.next_index = history.next_index();
    snap.last_ns = history.last_time_ns();
    snap.first_index = history.first_index();
    const std::size_t kept = snap.next_index - snap.first_index;
    if (kept > 0) {
      const float* first = history.sample(snap.first_index);
      snap.values.assign(first, first + kept * snap.def.dims);
    }
    snap.times_ns.reserve(kept);
    for (std::uint64_t i = snap.first_index; i < snap.next_index; ++i)
      snap.times_ns.push_back(history.time_ns(i));
    for (Pair* pair : stream.pairs) {
      PairSnapshot& p = snap.pairs.emplace_back();
      p.pattern_id = pair->pattern->def->id;
      p.fingerprint = pair->pattern->fingerprint;
      if (pair->window) {
        p.state = pair->window->save();
      } else {
        spring_pairs.push_back(pair);
        spring_slots.emplace_back(k, snap.pairs.size() - 1);
      }
    }
  }
  std::vector<common::SpringLaneState> lanes(spring_pairs.size());
  // The hook changes nothing (matcher.hpp); it is not const because a backend may stage the
  // copy (the cuda backend downloads the pairs' tiles).
  const_cast<Matcher*>(this)->export_stream_pairs(spring_pairs, lanes);
  for (std::size_t k = 0; k < lanes.size(); ++k)
    out[spring_slots[k].first].pairs[spring_slots[k].second].state = std::move(lanes[k]);
  return out;
}

StreamRestore Matcher::import_stream(const StreamSnapshot& snapshot, StreamRef stream) {
  require_none_outstanding("import_stream()");
  check_snapshot(snapshot);
  if (stream && *stream != snapshot.def)
    invalid(snapshot, "the definition given is not the snapshot's");
  if (has_stream(snapshot.def.id)) remove_stream(snapshot.def.id);  // replaced, nothing reported
  StreamRestore restore;
  add_stream(stream ? std::move(stream) : stream::make_stream(snapshot.def), &snapshot, &restore);
  return restore;
}

// The pairs just made for `stream` (fresh, from its restored next index) given their saved
// states where the pattern is the one they were saved with and the state fits.
void Matcher::restore_pairs(StreamState& stream, const StreamSnapshot& saved,
                            StreamRestore& restore) {
  std::vector<Pair*> spring_pairs;
  std::vector<common::SpringLaneState> lanes;
  std::set<std::string_view> paired;
  for (Pair* pair : stream.pairs) {
    const PatternState& pattern = *pair->pattern;
    const std::string& id = pattern.def->id;
    paired.insert(id);
    const auto it = std::find_if(saved.pairs.begin(), saved.pairs.end(),
                                 [&](const PairSnapshot& p) { return p.pattern_id == id; });
    const char* fresh = nullptr;
    if (it == saved.pairs.end()) {
      fresh = "no saved state (new pattern)";
    } else if (it->fingerprint != pattern.fingerprint) {
      fresh = "pattern changed";
    } else if (pair->window) {
      const auto* track = std::get_if<WindowTrackState>(&it->state);
      if (track && track_fits(*track, *pair->window, saved))
        pair->window->restore(*track);
      else
        fresh = "saved state does not fit the pattern";
    } else {
      const auto* lane = std::get_if<common::SpringLaneState>(&it->state);
      if (lane && lane_fits(*lane, pattern, saved)) {
        spring_pairs.push_back(pair);
        lanes.push_back(*lane);
      } else {
        fresh = "saved state does not fit the pattern";
      }
    }
    if (fresh)
      restore.fresh.push_back({id, fresh});
    else
      restore.restored.push_back(id);
  }
  for (const PairSnapshot& p : saved.pairs)
    if (!paired.count(p.pattern_id)) restore.dropped.push_back(p.pattern_id);
  import_stream_pairs(spring_pairs, lanes);
}

}  // namespace warpwatch::kernels
