// The checkpoint formats (checkpoint.hpp), all integers little-endian. Records are version 1;
// files version 2 (version 1 files, without the event store's section, still load):
//
// record   "WWSR" u16 version u16 flags(0 or 1) u64 payload bytes u32 crc32(payload) payload
// payload  str id, u16 dims, i64 nominal period, u64 next index, i64 last ns, u64 first index,
//          f32 x kept x dims values, i64 x kept times (kept = next - first),
//          u32 pairs { str pattern, u64 fingerprint, u8 kind,
//                      kind 0 (stream): u32 m, f32 x m d, i32 x m s, f32 d_min, i32 t_s, i32 t_e
//                      kind 1 (window): u64 first index, u8 pending
//                                       [f64 distance, u64 start, u64 end, i64 start ns, i64 end
//                                       ns] }
//          u32 cooldowns { str rule, i64 end ns }, i64 validator's last ns,
//          u32 positions { str key, i64 value } (keys in increasing order),
//          and with flag 1 set: u32 held (>= 1) { str pattern, f64 distance, u64 start,
//          u64 end, i64 start ns, i64 end ns } (the nearest-template filter's held
//          matches, docs/spec.md §5.1; a record without any has flags 0, as before them)
// str      u32 bytes, the bytes
// file     "WWCK" u16 version(1 or 2) u16 flags(0) u64 payload bytes u32 crc32(payload) payload
// payload  u64 publisher sequence, i64 written ns, u64 records, each u64 bytes + a record
//          (the sequence under the checksum too: a flipped bit there would repeat or skip
//          sequence numbers silently); version 2 then: u64 bytes + the event store's
//          section (opaque here: daemon/service/store/, encode_events)
//
// A decoder that accepted anything an encoder would not write could not promise that
// decoding and encoding again gives the same bytes: flags, kinds and flags-as-bytes other
// than 0/1, and positions out of order, are refused like any field out of range.
#include "warpwatch/service/checkpoint.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <bit>

#include "warpwatch/base/little_endian.hpp"

namespace warpwatch::service {
namespace {

using kernels::PairSnapshot;
using kernels::StreamSnapshot;
using kernels::WindowTrackState;
using kernels::common::SpringLaneState;
using kernels::common::WindowOccurrence;

constexpr std::string_view record_magic = "WWSR";
constexpr std::string_view file_magic = "WWCK";
constexpr std::uint16_t format_version = 1;  // of records, and of files before version 2
constexpr std::uint16_t file_version = 2;    // files with the event store's section
// magic, version, flags, payload bytes, crc
constexpr std::size_t record_header_bytes = 4 + 2 + 2 + 8 + 4;

std::uint32_t crc32_of(std::string_view bytes) {
  uLong crc = ::crc32(0L, Z_NULL, 0);
  // zlib takes uInt lengths: in pieces, for payloads past 4 GiB.
  constexpr std::size_t piece = std::size_t{1} << 30;
  for (std::size_t at = 0; at < bytes.size(); at += piece) {
    const std::size_t n = std::min(piece, bytes.size() - at);
    crc = ::crc32(crc, reinterpret_cast<const Bytef*>(bytes.data() + at), static_cast<uInt>(n));
  }
  return static_cast<std::uint32_t>(crc);
}

// --- writing

class Writer {
 public:
  void u(std::uint64_t v, std::size_t n) { stream::store_le(out_, v, n); }
  void i64(std::int64_t v) { u(static_cast<std::uint64_t>(v), 8); }
  void i32(std::int32_t v) { u(static_cast<std::uint32_t>(v), 4); }
  void f32(float v) { u(std::bit_cast<std::uint32_t>(v), 4); }
  void f64(double v) { u(std::bit_cast<std::uint64_t>(v), 8); }
  void str(std::string_view s) {
    u(s.size(), 4);
    out_.append(s);
  }
  void bytes(std::string_view s) { out_.append(s); }
  std::string& out() { return out_; }
  void reserve(std::size_t bytes) { out_.reserve(bytes); }

 private:
  std::string out_;
};

void write_lane(Writer& w, const SpringLaneState& lane) {
  w.u(lane.d.size(), 4);
  for (const float d : lane.d) w.f32(d);
  for (const std::int32_t s : lane.s) w.i32(s);
  w.f32(lane.d_min);
  w.i32(lane.t_s);
  w.i32(lane.t_e);
}

void write_track(Writer& w, const WindowTrackState& track) {
  w.u(track.first_index, 8);
  w.u(track.pending.has_value(), 1);
  if (const auto& o = track.pending) {
    w.f64(o->distance);
    w.u(o->start_index, 8);
    w.u(o->end_index, 8);
    w.i64(o->start_ns);
    w.i64(o->end_ns);
  }
}

std::string record_payload(const StreamRecord& r) {
  const StreamSnapshot& s = r.matcher;
  Writer w;
  std::size_t estimate = 128 + s.def.id.size() + 4 * s.values.size() + 8 * s.times_ns.size();
  for (const PairSnapshot& p : s.pairs) {
    const auto* lane = std::get_if<SpringLaneState>(&p.state);
    estimate += 64 + p.pattern_id.size() + (lane ? 8 * lane->d.size() : 0);
  }
  w.reserve(estimate);
  w.str(s.def.id);
  w.u(s.def.dims, 2);
  w.i64(s.def.nominal_period_ns);
  w.u(s.next_index, 8);
  w.i64(s.last_ns);
  w.u(s.first_index, 8);
  for (const float v : s.values) w.f32(v);
  for (const std::int64_t t : s.times_ns) w.i64(t);
  w.u(s.pairs.size(), 4);
  for (const PairSnapshot& p : s.pairs) {
    w.str(p.pattern_id);
    w.u(p.fingerprint, 8);
    w.u(p.state.index(), 1);
    if (const auto* lane = std::get_if<SpringLaneState>(&p.state))
      write_lane(w, *lane);
    else
      write_track(w, std::get<WindowTrackState>(p.state));
  }
  w.u(r.cooldowns.size(), 4);
  for (const auto& [rule, end_ns] : r.cooldowns) {
    w.str(rule);
    w.i64(end_ns);
  }
  w.i64(r.validator_last_ns);
  w.u(r.positions.size(), 4);
  for (const auto& [key, value] : r.positions) {
    w.str(key);
    w.i64(value);
  }
  if (!r.held.empty()) {
    w.u(r.held.size(), 4);
    for (const HeldMatch& m : r.held) {
      w.str(m.pattern_id);
      w.f64(m.distance);
      w.u(m.start_index, 8);
      w.u(m.end_index, 8);
      w.i64(m.start_ns);
      w.i64(m.end_ns);
    }
  }
  return std::move(w.out());
}

// --- reading

class Reader {
 public:
  Reader(std::string_view bytes, std::string what) : rest_(bytes), what_(std::move(what)) {}

  [[noreturn]] void fail(const std::string& why) const {
    throw CheckpointError(what_ + ": " + why);
  }
  void need(std::uint64_t n, const char* field) const {
    if (n > rest_.size())
      fail(std::string("truncated (") + field + ": " + std::to_string(n) + " bytes wanted, " +
           std::to_string(rest_.size()) + " left)");
  }
  std::uint64_t u(std::size_t n, const char* field) {
    need(n, field);
    const std::uint64_t v = stream::load_le(reinterpret_cast<const std::byte*>(rest_.data()), n);
    rest_.remove_prefix(n);
    return v;
  }
  std::int64_t i64(const char* field) { return static_cast<std::int64_t>(u(8, field)); }
  std::int32_t i32(const char* field) {
    return static_cast<std::int32_t>(static_cast<std::uint32_t>(u(4, field)));
  }
  float f32(const char* field) {
    return std::bit_cast<float>(static_cast<std::uint32_t>(u(4, field)));
  }
  double f64(const char* field) { return std::bit_cast<double>(u(8, field)); }
  bool flag(const char* field) {
    const std::uint64_t v = u(1, field);
    if (v > 1) out_of_range(field, v);
    return v == 1;
  }
  std::string_view take(std::uint64_t n, const char* field) {
    need(n, field);
    const std::string_view out = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return out;
  }
  std::string str(const char* field) {
    const std::uint64_t n = u(4, field);
    return std::string(take(n, field));
  }
  // A count of items of at least `item_bytes` each: checked against what is left before the
  // caller allocates for them.
  std::uint64_t count(std::size_t n, std::size_t item_bytes, const char* field) {
    const std::uint64_t c = u(n, field);
    if (item_bytes > 0 && c > rest_.size() / item_bytes)
      fail(std::string("truncated (") + field + " says " + std::to_string(c) + ", " +
           std::to_string(rest_.size()) + " bytes left)");
    return c;
  }
  [[noreturn]] void out_of_range(const char* field, std::uint64_t v) const {
    fail(std::string("field out of range: ") + field + " " + std::to_string(v));
  }
  void done() const {
    if (!rest_.empty()) fail(std::to_string(rest_.size()) + " trailing bytes");
  }
  std::size_t left() const { return rest_.size(); }

 private:
  std::string_view rest_;
  std::string what_;
};

// The header of a record or file: magic, version and flags (at most `flags_allowed`,
// returned); the rest is the caller's.
// The version (format_version up to `newest`) is returned in `version` when asked for.
std::uint64_t read_preamble(Reader& r, std::string_view magic, std::uint64_t flags_allowed = 0,
                            std::uint64_t newest = format_version,
                            std::uint64_t* version_read = nullptr) {
  if (r.take(magic.size(), "magic") != magic) r.fail("bad magic (not a warpwatch checkpoint)");
  const std::uint64_t version = r.u(2, "version");
  if (version < format_version || version > newest)
    r.fail("unsupported version " + std::to_string(version) + " (this reader knows " +
           std::to_string(format_version) +
           (newest > format_version ? " to " + std::to_string(newest) : std::string()) + ")");
  if (version_read) *version_read = version;
  const std::uint64_t flags = r.u(2, "flags");
  if (flags > flags_allowed) r.out_of_range("flags", flags);
  return flags;
}

// The payload after its size and CRC: all of the rest, checked.
std::string_view read_checked_payload(Reader& r) {
  const std::uint64_t size = r.u(8, "payload size");
  const std::uint32_t crc = static_cast<std::uint32_t>(r.u(4, "crc32"));
  if (size != r.left()) {
    if (size > r.left()) r.need(size, "payload");
    r.done();  // trailing bytes
  }
  const std::string_view payload = r.take(size, "payload");
  if (crc32_of(payload) != crc) r.fail("checksum mismatch");
  return payload;
}

SpringLaneState read_lane(Reader& r) {
  SpringLaneState lane;
  const std::uint64_t m = r.count(4, 8, "lane rows");
  lane.d.resize(m);
  lane.s.resize(m);
  for (float& d : lane.d) d = r.f32("lane D");
  for (std::int32_t& s : lane.s) s = r.i32("lane S");
  lane.d_min = r.f32("lane d_min");
  lane.t_s = r.i32("lane t_s");
  lane.t_e = r.i32("lane t_e");
  return lane;
}

WindowTrackState read_track(Reader& r) {
  WindowTrackState track;
  track.first_index = r.u(8, "window first index");
  if (r.flag("window pending")) {
    WindowOccurrence o{};
    o.distance = r.f64("pending distance");
    o.start_index = r.u(8, "pending start");
    o.end_index = r.u(8, "pending end");
    o.start_ns = r.i64("pending start ns");
    o.end_ns = r.i64("pending end ns");
    track.pending = o;
  }
  return track;
}

StreamRecord read_record_payload(Reader& r, bool with_held) {
  StreamRecord out;
  StreamSnapshot& s = out.matcher;
  s.def.id = r.str("stream id");
  s.def.dims = r.u(2, "dims");
  if (s.def.dims < 1 || s.def.dims > stream::max_dims) r.out_of_range("dims", s.def.dims);
  s.def.nominal_period_ns = r.i64("nominal period");
  s.next_index = r.u(8, "next index");
  s.last_ns = r.i64("last ns");
  s.first_index = r.u(8, "first index");
  if (s.first_index > s.next_index) r.out_of_range("first index", s.first_index);
  const std::uint64_t kept = s.next_index - s.first_index;
  const std::uint64_t sample_bytes = 4 * s.def.dims + 8;
  if (kept > r.left() / sample_bytes)
    r.fail("truncated (history of " + std::to_string(kept) + " samples)");
  s.values.resize(kept * s.def.dims);
  for (float& v : s.values) v = r.f32("history value");
  s.times_ns.resize(kept);
  for (std::int64_t& t : s.times_ns) t = r.i64("history time");
  // Each pair at least: an empty id, its fingerprint and kind, and the smaller state (window).
  const std::uint64_t pairs = r.count(4, 4 + 8 + 1 + 9, "pairs");
  s.pairs.reserve(std::min<std::size_t>(pairs, 1024));  // a count read off the input: grow past it
  for (std::uint64_t k = 0; k < pairs; ++k) {
    PairSnapshot& p = s.pairs.emplace_back();
    p.pattern_id = r.str("pattern id");
    p.fingerprint = r.u(8, "fingerprint");
    const std::uint64_t kind = r.u(1, "pair kind");
    if (kind == 0)
      p.state = read_lane(r);
    else if (kind == 1)
      p.state = read_track(r);
    else
      r.out_of_range("pair kind", kind);
  }
  const std::uint64_t cooldowns = r.count(4, 4 + 8, "cooldowns");
  out.cooldowns.reserve(
      std::min<std::size_t>(cooldowns, 1024));  // a count read off the input: grow past it
  for (std::uint64_t k = 0; k < cooldowns; ++k) {
    std::string rule = r.str("cooldown rule");
    out.cooldowns.emplace_back(std::move(rule), r.i64("cooldown end ns"));
  }
  out.validator_last_ns = r.i64("validator last ns");
  const std::uint64_t positions = r.count(4, 4 + 8, "positions");
  for (std::uint64_t k = 0; k < positions; ++k) {
    std::string key = r.str("position key");
    if (!out.positions.empty() && !(out.positions.rbegin()->first < key))
      r.fail("field out of range: position keys not in increasing order");
    out.positions.emplace(std::move(key), r.i64("position value"));
  }
  if (with_held) {
    const std::uint64_t held = r.count(4, 4 + 8 * 5, "held matches");
    if (held == 0) r.out_of_range("held matches", held);  // flags 1 says there are some
    out.held.reserve(std::min<std::size_t>(held, 1024));  // a count read off the input
    for (std::uint64_t k = 0; k < held; ++k) {
      HeldMatch& m = out.held.emplace_back();
      m.pattern_id = r.str("held pattern id");
      m.distance = r.f64("held distance");
      m.start_index = r.u(8, "held start");
      m.end_index = r.u(8, "held end");
      m.start_ns = r.i64("held start ns");
      m.end_ns = r.i64("held end ns");
    }
  }
  r.done();
  return out;
}

void write_header(Writer& w, std::string_view magic, std::uint64_t flags = 0,
                  std::uint64_t version = format_version) {
  w.bytes(magic);
  w.u(version, 2);
  w.u(flags, 2);
}

void write_checked_payload(Writer& w, std::string_view payload) {
  w.u(payload.size(), 8);
  w.u(crc32_of(payload), 4);
  w.bytes(payload);
}

}  // namespace

std::string encode_stream_record(const StreamRecord& record) {
  Writer w;
  write_header(w, record_magic, record.held.empty() ? 0 : 1);
  write_checked_payload(w, record_payload(record));
  return std::move(w.out());
}

StreamRecord decode_stream_record(std::string_view bytes) {
  Reader header(bytes, "stream record");
  const bool with_held = read_preamble(header, record_magic, 1) == 1;
  Reader payload(read_checked_payload(header), "stream record");
  return read_record_payload(payload, with_held);
}

std::string encode_checkpoint(const Checkpoint& checkpoint) {
  Writer payload;
  payload.u(checkpoint.publisher_sequence, 8);
  payload.i64(checkpoint.written_ns);
  payload.u(checkpoint.streams.size(), 8);
  for (const StreamRecord& record : checkpoint.streams) {
    const std::string bytes = encode_stream_record(record);
    payload.u(bytes.size(), 8);
    payload.bytes(bytes);
  }
  if (checkpoint.events) {
    payload.u(checkpoint.events->size(), 8);
    payload.bytes(*checkpoint.events);
  }
  Writer w;
  write_header(w, file_magic, 0, checkpoint.events ? file_version : format_version);
  write_checked_payload(w, payload.out());
  return std::move(w.out());
}

Checkpoint decode_checkpoint(std::string_view bytes) {
  Reader header(bytes, "checkpoint");
  std::uint64_t version = 0;
  read_preamble(header, file_magic, 0, file_version, &version);
  Checkpoint out;
  Reader payload(read_checked_payload(header), "checkpoint");
  out.publisher_sequence = payload.u(8, "publisher sequence");
  out.written_ns = payload.i64("written ns");
  const std::uint64_t records = payload.u(8, "records");
  if (records > payload.left() / (8 + record_header_bytes))
    payload.fail("truncated (" + std::to_string(records) + " records)");
  out.streams.reserve(
      std::min<std::size_t>(records, 1024));  // a count read off the input: grow past it
  for (std::uint64_t k = 0; k < records; ++k) {
    const std::uint64_t size = payload.u(8, "record size");
    out.streams.push_back(decode_stream_record(payload.take(size, "record")));
  }
  if (version >= 2) {
    const std::uint64_t size = payload.u(8, "events size");
    out.events = std::string(payload.take(size, "events"));
  }
  payload.done();
  return out;
}

}  // namespace warpwatch::service
