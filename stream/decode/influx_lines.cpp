#include "warpwatch/stream/decode/influx_lines.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "warpwatch/base/stream_id.hpp"

namespace warpwatch::stream {
namespace {

constexpr std::size_t max_quoted_line_bytes = 96;

// A float32 holds it without becoming infinite (converting a larger double is undefined).
bool fits_float(double v) {
  return std::fabs(v) <= std::numeric_limits<float>::max();
}

// What a rejection was about, for its log line (built for the first of a flush only).
std::string describe(LineReject reason, std::string_view subject) {
  std::string out;
  const auto about = [&](std::string_view before, std::string_view after) {
    out.append(before).append(quoted(subject, 64)).append(after);
  };
  switch (reason) {
    case LineReject::syntax:
      out.append(subject);
      break;
    case LineReject::missing_tag:
      about("no tag ", " for the stream id template");
      break;
    case LineReject::missing_field:
      if (subject.empty())
        out.append("none of the configured fields");
      else
        about("no field ", "");
      break;
    case LineReject::non_numeric_field:
      if (subject.empty())
        out.append("no numeric field");
      else
        about("field ", " is a string or a boolean");
      break;
    case LineReject::value_out_of_range:
      about("field ", " is beyond the float32 range");
      break;
    case LineReject::invalid_stream_id:
      out.append("stream id ").append(quoted(subject, 64)).append(": ");
      out.append(invalid_stream_id_reason(subject).value_or("invalid"));
      break;
    case LineReject::timestamp_range:
      out.append("the timestamp at the configured precision is beyond int64 nanoseconds");
      break;
    case LineReject::line_too_long:
    case LineReject::incomplete_line:
      out.append(to_string(reason));  // described by the framer's caller
      break;
  }
  return out;
}

}  // namespace

std::string_view to_string(LineReject reason) {
  switch (reason) {
    case LineReject::syntax:
      return "syntax";
    case LineReject::line_too_long:
      return "line_too_long";
    case LineReject::incomplete_line:
      return "incomplete_line";
    case LineReject::timestamp_range:
      return "timestamp_range";
    case LineReject::missing_tag:
      return "missing_tag";
    case LineReject::invalid_stream_id:
      return "invalid_stream_id";
    case LineReject::missing_field:
      return "missing_field";
    case LineReject::non_numeric_field:
      return "non_numeric_field";
    case LineReject::value_out_of_range:
      return "value_out_of_range";
  }
  return "unknown_reason";  // not reached for a valid enumerator
}

RejectReason registry_reason(LineReject reason) {
  switch (reason) {
    case LineReject::syntax:
      return RejectReason::malformed_frame;
    case LineReject::line_too_long:
      return RejectReason::line_too_long;
    case LineReject::incomplete_line:
      return RejectReason::incomplete_line;
    case LineReject::timestamp_range:
      return RejectReason::timestamp_range;
    case LineReject::missing_tag:
      return RejectReason::missing_tag;
    case LineReject::invalid_stream_id:
      return RejectReason::invalid_stream_id;
    case LineReject::missing_field:
      return RejectReason::missing_field;
    case LineReject::non_numeric_field:
      return RejectReason::non_numeric_field;
    case LineReject::value_out_of_range:
      return RejectReason::value_out_of_range;
  }
  return RejectReason::malformed_frame;  // not reached for a valid enumerator
}

std::string_view measurement_of(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && line[i] != ',' && line[i] != ' ') i += line[i] == '\\' ? 2 : 1;
  return line.substr(0, std::min(i, line.size()));
}

PointMapper::Built PointMapper::build_id(const Point& point, std::string_view field,
                                         PointSink& sink) {
  const auto missing = mapping_.stream_id.render(
      point.measurement,
      [&](std::string_view key) -> std::optional<std::string_view> {
        const LineTag* tag = point.find_tag(key);
        if (!tag) return std::nullopt;
        return std::string_view(tag->value);
      },
      field, id_);
  if (missing) {
    sink.reject(LineReject::missing_tag, "", *missing);
    return Built::missing_tag;
  }
  if (invalid_stream_id_reason(id_)) {
    sink.reject(LineReject::invalid_stream_id, "", id_);
    return Built::invalid_id;
  }
  return Built::ok;
}

void PointMapper::map(const Point& point, std::int64_t receive_ns, PointSink& sink) {
  std::int64_t time_ns = receive_ns;
  if (point.timestamp) {
    const auto ns = to_nanoseconds(*point.timestamp, mapping_.precision);
    if (!ns) return sink.reject(LineReject::timestamp_range, "", "");
    time_ns = *ns;
  }
  const std::vector<std::string>& wanted = mapping_.fields;
  if (!mapping_.stream_id.per_field()) {
    if (build_id(point, "", sink) != Built::ok) return;
    for (std::size_t i = 0; i < wanted.size(); ++i) {
      const LineField* f = point.find_field(wanted[i]);
      if (!f) return sink.reject(LineReject::missing_field, id_, wanted[i]);
      if (!f->numeric()) return sink.reject(LineReject::non_numeric_field, id_, wanted[i]);
      if (!fits_float(f->number))
        return sink.reject(LineReject::value_out_of_range, id_, wanted[i]);
      values_[i] = static_cast<float>(f->number);
    }
    return sink.sample(id_, time_ns, std::span<const float>(values_.data(), wanted.size()));
  }
  bool used = false;      // a sample or a rejection came of the line
  bool selected = false;  // it has a field the mapping takes
  const auto& fields = point.fields;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const LineField& f = fields[i];
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), f.key) == wanted.end()) continue;
    // A key written twice: its last value, as InfluxDB keeps it.
    if (std::any_of(fields.begin() + static_cast<std::ptrdiff_t>(i) + 1, fields.end(),
                    [&](const LineField& later) { return later.key == f.key; }))
      continue;
    selected = true;
    if (!f.numeric()) {
      sink.ignored_field();
      continue;
    }
    used = true;
    const Built built = build_id(point, f.key, sink);
    if (built == Built::missing_tag) return;  // the same for every field: rejected once
    if (built == Built::invalid_id) continue;
    if (!fits_float(f.number)) {
      sink.reject(LineReject::value_out_of_range, id_, f.key);
      continue;
    }
    values_[0] = static_cast<float>(f.number);
    sink.sample(id_, time_ns, std::span<const float>(values_.data(), 1));
  }
  if (!used)
    sink.reject(selected ? LineReject::non_numeric_field : LineReject::missing_field, "", "");
}

InfluxStats read_stats(std::string source, const InfluxCounters& c) {
  InfluxStats s;
  s.source = std::move(source);
  s.bytes = c.bytes.load();
  s.lines = c.lines.load();
  s.samples = c.samples.load();
  s.ignored_fields = c.ignored_fields.load();
  for (std::size_t i = 0; i < s.rejected.size(); ++i) s.rejected[i] = c.rejected[i].load();
  s.datagrams = c.datagrams.load();
  s.connections = c.connections.load();
  s.connections_open = c.connections_open.load();
  s.connections_refused = c.connections_refused.load();
  return s;
}

InfluxLineDecoder::InfluxLineDecoder(InfluxMapping mapping, IngestHub& hub, SourceId source,
                                     InfluxCounters& counters, std::string name)
    : mapper_(std::move(mapping)),
      hub_(hub),
      source_(source),
      counters_(counters),
      name_(std::move(name)) {}

std::string InfluxLineDecoder::where(std::string_view peer, std::uint64_t line_no,
                                     std::string_view measurement) const {
  std::string out = std::string(name_).append(": from ").append(peer).append(", line ").append(
      std::to_string(line_no));
  if (!measurement.empty()) out.append(", measurement ").append(quoted(measurement, 64));
  return out.append(": ");
}

std::int64_t InfluxLineDecoder::next_receive_time() {
  last_receive_ns_ = std::max(receive_ns_, last_receive_ns_ + 1);
  return last_receive_ns_;
}

void InfluxLineDecoder::line(std::string_view line, std::string_view peer, std::uint64_t line_no) {
  const LineKind kind = parse_line(line, point_, syntax_);
  if (kind == LineKind::skip) return;
  ++counters_.lines;
  line_ = line;
  peer_ = peer;
  line_no_ = line_no;
  if (kind == LineKind::error) {
    reject(LineReject::syntax, "", syntax_.what);
  } else {
    mapper_.map(point_, point_.timestamp ? 0 : next_receive_time(), *this);
  }
  line_ = peer_ = {};
}

InfluxLineDecoder::Rejections& InfluxLineDecoder::rejections(LineReject reason,
                                                             std::string_view stream,
                                                             std::string_view peer) {
  // A line without a stream id: its budget in the log is its sender's (host, not port).
  const std::string key =
      stream.empty() ? std::string("peer ").append(peer.substr(0, peer.rfind(':'))) : "";
  const auto it = std::find_if(rejected_.begin(), rejected_.end(), [&](const Rejections& r) {
    return r.reason == reason && r.stream == stream && r.log_key == key;
  });
  if (it != rejected_.end()) return *it;
  return rejected_.emplace_back(Rejections{reason, std::string(stream), key, 0, {}});
}

void InfluxLineDecoder::reject_line(LineReject reason, std::string_view peer, std::uint64_t line_no,
                                    std::string_view what) {
  ++counters_.lines;
  ++counters_.rejected[static_cast<std::size_t>(reason)];
  Rejections& r = rejections(reason, "", peer);
  if (r.count++ == 0) r.first = where(peer, line_no, {}).append(what);
}

void InfluxLineDecoder::reject(LineReject reason, std::string_view stream,
                               std::string_view subject) {
  ++counters_.rejected[static_cast<std::size_t>(reason)];
  Rejections& r = rejections(reason, stream, peer_);
  if (r.count++ > 0) return;  // only the first is described (one log line at most)
  // Without a stream id the line is named by its measurement, when that much parses.
  r.first = where(peer_, line_no_, stream.empty() ? measurement_of(line_) : std::string_view())
                .append(describe(reason, subject));
  if (reason == LineReject::syntax)
    r.first.append(" at column ").append(std::to_string(syntax_.column));
  r.first.append(" in ").append(quoted(line_, max_quoted_line_bytes));
}

void InfluxLineDecoder::ignored_field() {
  ++counters_.ignored_fields;
}

void InfluxLineDecoder::sample(std::string_view stream, std::int64_t time_ns,
                               std::span<const float> values) {
  auto it = pending_.find(stream);
  if (it == pending_.end()) {
    it = pending_.emplace(std::string(stream), Samples{}).first;
    it->second.dims = values.size();
  }
  it->second.times_ns.push_back(time_ns);
  it->second.values.insert(it->second.values.end(), values.begin(), values.end());
  ++pending_samples_;
}

void InfluxLineDecoder::flush() {
  counters_.samples += pending_samples_;  // first: whoever sees them queued sees them counted
  for (const auto& [stream, samples] : pending_) hub_.offer_samples(source_, stream, samples);
  pending_.clear();
  pending_samples_ = 0;
  for (const Rejections& r : rejected_)
    hub_.offer_rejected(r.stream, registry_reason(r.reason), r.first, r.count, r.log_key);
  rejected_.clear();
}

}  // namespace warpwatch::stream
