// From bytes of InfluxDB line protocol to samples in the IngestHub, without sockets:
// LineFramer cuts a byte stream (or a datagram) into lines within a length limit,
// PointMapper turns a parsed line into samples by an InfluxMapping, and InfluxLineDecoder
// strings them together and hands the samples of a read, grouped per stream, to the hub,
// counting every line it cannot use per reason (docs/ingest.md §7).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "warpwatch/base/stream_def.hpp"
#include "warpwatch/stream/decode/frame.hpp"
#include "warpwatch/stream/decode/line_protocol.hpp"
#include "warpwatch/stream/ingest_hub.hpp"
#include "warpwatch/stream/sources/influx_mapping.hpp"

namespace warpwatch::stream {

// Why a line (in per-field mode, for value_out_of_range: a field) did not become samples.
// The names are Prometheus label values: renaming one is a breaking change. Each is also
// counted under an ingest-wide RejectReason (registry_reason), so that
// warpwatch_ingest_rejected_total stays the sum of everything dropped.
enum class LineReject {
  syntax,              // not line protocol
  line_too_long,       // longer than max_line_bytes (skipped up to its '\n')
  incomplete_line,     // cut off before its '\n': the connection failed, or the daemon stopped
  timestamp_range,     // beyond int64 nanoseconds at the configured precision
  missing_tag,         // the line lacks a tag that the stream id template names
  invalid_stream_id,   // the id built is not a stream id (over 255 bytes, broken UTF-8, ...)
  missing_field,       // a configured field the line does not have
  non_numeric_field,   // a configured field that is a string or a boolean; per field: no
                       // numeric field at all
  value_out_of_range,  // a value beyond the float32 range
};
inline constexpr std::array<LineReject, 9> all_line_rejects = {
    LineReject::syntax,          LineReject::line_too_long,     LineReject::incomplete_line,
    LineReject::timestamp_range, LineReject::missing_tag,       LineReject::invalid_stream_id,
    LineReject::missing_field,   LineReject::non_numeric_field, LineReject::value_out_of_range,
};
std::string_view to_string(LineReject reason);
// The one reason a line is counted and logged under, ingest-wide: the RejectReason of the
// same name, but syntax, which is malformed_frame (not the format, as a bad text line).
RejectReason registry_reason(LineReject reason);
// The measurement a line starts with (up to its first unescaped ',' or ' '), as far as it
// can be read: names a line whose stream id cannot be built in the log.
std::string_view measurement_of(std::string_view line);

// Cuts bytes into lines at '\n' (the '\n' not included), keeping an unfinished line between
// calls: at most max_line_bytes are held, a longer line is reported once and skipped.
class LineFramer {
 public:
  explicit LineFramer(std::size_t max_line_bytes) : max_(max_line_bytes) {}

  // on_line(std::string_view) for each line that `data` completes, in order;
  // on_too_long() once for each line longer than the limit.
  template <typename OnLine, typename OnTooLong>
  void feed(std::string_view data, OnLine&& on_line, OnTooLong&& on_too_long);
  // The input ended (EOF, or the end of a datagram): what is held is a last line.
  template <typename OnLine>
  void finish(OnLine&& on_line);
  // Whether part of a line is held (or being skipped); discard() forgets it.
  bool holds_partial_line() const { return !pending_.empty() || skipping_; }
  void discard() {
    pending_.clear();
    skipping_ = false;
  }

 private:
  std::size_t max_;
  std::string pending_;
  bool skipping_ = false;  // inside a line that was too long, until its '\n'
};

// Receives what PointMapper makes of a line.
class PointSink {
 public:
  virtual ~PointSink() = default;
  virtual void sample(std::string_view stream, std::int64_t time_ns,
                      std::span<const float> values) = 0;
  // `stream`: the stream's id when it could be built, else ""; `subject`: the field key,
  // tag key or id the reason is about.
  virtual void reject(LineReject reason, std::string_view stream, std::string_view subject) = 0;
  // A string or boolean field skipped in per-field mode.
  virtual void ignored_field() = 0;
};

// Applies an InfluxMapping to parsed lines (docs/ingest.md §7.1). Without `{field}` a
// line is one sample: the configured fields' values in order (a field missing, not
// numeric or beyond float32 rejects the line). With `{field}` each numeric field (of the
// configured ones, or all) is a sample of its own stream; string and boolean fields are
// skipped and counted; a field beyond float32 is rejected alone; a line that gives no sample
// and no rejection is rejected as missing_field (none of the configured fields) or
// non_numeric_field. The time is the line's timestamp at the mapping's precision, else
// `receive_ns`.
class PointMapper {
 public:
  explicit PointMapper(InfluxMapping mapping) : mapping_(std::move(mapping)) {}
  const InfluxMapping& mapping() const { return mapping_; }
  void map(const Point& point, std::int64_t receive_ns, PointSink& sink);

 private:
  // Builds the id into id_; a missing tag or an invalid id is rejected here.
  enum class Built { ok, missing_tag, invalid_id };
  Built build_id(const Point& point, std::string_view field, PointSink& sink);

  InfluxMapping mapping_;
  std::string id_;
  std::array<float, max_dims> values_{};
};

// Counters of one line-protocol source, read by /metrics while the source runs.
struct InfluxCounters {
  std::atomic<std::uint64_t> bytes{0};
  std::atomic<std::uint64_t> lines{0};    // lines read (not blank, not comments)
  std::atomic<std::uint64_t> samples{0};  // samples made and offered to the hub
  std::array<std::atomic<std::uint64_t>, all_line_rejects.size()> rejected{};
  std::atomic<std::uint64_t> ignored_fields{0};
  std::atomic<std::uint64_t> datagrams{0};            // udp
  std::atomic<std::uint64_t> connections{0};          // tcp: accepted
  std::atomic<std::uint64_t> connections_open{0};     // tcp: open now
  std::atomic<std::uint64_t> connections_refused{0};  // tcp: over max_connections
};

// A copy of InfluxCounters, for a metrics snapshot.
struct InfluxStats {
  std::string source;  // Source::describe()
  std::uint64_t bytes = 0, lines = 0, samples = 0, ignored_fields = 0;
  std::array<std::uint64_t, all_line_rejects.size()> rejected{};
  std::uint64_t datagrams = 0, connections = 0, connections_open = 0, connections_refused = 0;
};
InfluxStats read_stats(std::string source, const InfluxCounters& counters);

// Lines -> samples grouped per stream -> the hub, rejections counted in `counters` and in the
// registry (through the hub) with one log-worthy description per (reason, stream) and
// flush. Used by one thread at a time.
class InfluxLineDecoder final : private PointSink {
 public:
  // `name` (the source's describe()) starts every rejection's description.
  InfluxLineDecoder(InfluxMapping mapping, IngestHub& hub, SourceId source,
                    InfluxCounters& counters, std::string name);

  // The wall clock (ns) of the read that the next lines come from: the time of the lines
  // without a timestamp, made strictly increasing over the source's life.
  void received_at(std::int64_t wall_ns) { receive_ns_ = wall_ns; }
  // One line (without its '\n') from `peer` ("127.0.0.1:41234"), the line_no-th of its
  // connection or datagram (named in the log).
  void line(std::string_view line, std::string_view peer, std::uint64_t line_no);
  // A line the framer could not pass on (line_too_long, incomplete_line).
  void reject_line(LineReject reason, std::string_view peer, std::uint64_t line_no,
                   std::string_view what);
  // Hands the samples gathered since the last flush to the hub, and the rejections to the
  // registry (at most one call per (reason, stream)).
  void flush();

 private:
  void sample(std::string_view stream, std::int64_t time_ns,
              std::span<const float> values) override;
  void reject(LineReject reason, std::string_view stream, std::string_view subject) override;
  void ignored_field() override;
  std::int64_t next_receive_time();
  // "<name>: from <peer>, line <n>[, measurement '<m>']: "
  std::string where(std::string_view peer, std::uint64_t line_no,
                    std::string_view measurement) const;

  struct Rejections {
    LineReject reason;
    std::string stream;
    std::string log_key;  // without a stream: "peer <host>" (StreamRegistry::reject)
    std::uint64_t count = 0;
    std::string first;  // the first one's description
  };
  Rejections& rejections(LineReject reason, std::string_view stream, std::string_view peer);

  PointMapper mapper_;
  IngestHub& hub_;
  SourceId source_;
  InfluxCounters& counters_;
  Point point_;
  LineSyntaxError syntax_;
  std::unordered_map<std::string, Samples, StreamIdHash, std::equal_to<>> pending_;
  std::vector<Rejections> rejected_;
  std::uint64_t pending_samples_ = 0;
  std::int64_t receive_ns_ = 0;
  std::int64_t last_receive_ns_ = 0;  // the last time given to a line without a timestamp
  std::string name_;
  // The line being mapped, for a rejection's description.
  std::string_view line_, peer_;
  std::uint64_t line_no_ = 0;
};

template <typename OnLine, typename OnTooLong>
void LineFramer::feed(std::string_view data, OnLine&& on_line, OnTooLong&& on_too_long) {
  std::size_t pos = 0;
  while (pos < data.size()) {
    const std::size_t nl = data.find('\n', pos);
    if (skipping_) {  // the rest of a line already reported as too long
      if (nl == std::string_view::npos) return;
      skipping_ = false;
      pos = nl + 1;
      continue;
    }
    const std::string_view piece =
        data.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    if (pending_.size() + piece.size() > max_) {
      pending_.clear();
      on_too_long();
      if (nl == std::string_view::npos) {
        skipping_ = true;
        return;
      }
    } else if (nl == std::string_view::npos) {
      pending_.append(piece);
      return;
    } else if (pending_.empty()) {
      on_line(piece);  // the common case: the line is in `data` whole, no copy
    } else {
      pending_.append(piece);
      on_line(std::string_view(pending_));
      pending_.clear();
    }
    pos = nl + 1;
  }
}

template <typename OnLine>
void LineFramer::finish(OnLine&& on_line) {
  if (!pending_.empty()) on_line(std::string_view(pending_));
  discard();
}

}  // namespace warpwatch::stream
