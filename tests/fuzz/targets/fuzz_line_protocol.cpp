// Fuzz target: InfluxDB line protocol, from bytes to the per-stream queue, with the pieces
// an influx source strings together (LineFramer, InfluxLineDecoder: parse_line, the
// PointMapper, the hub), fed in reads as a TCP connection delivers them, and parse_line on
// each line alone.
//
// Input: byte 0 picks the mapping (value mod 4: "{measurement}.{field}";
// "{measurement}.{field}" with fields [x, y]; "{tag:host}/{measurement}" with fields
// [x, y, z]; "{measurement}.{tag:host}.{field}") and the precision (value / 4 mod 4);
// byte 1 the line limit (64 << (value mod 5) bytes) and the read size (1 + value / 5
// bytes, up to 52); the rest is the stream of lines.
//
// Oracle: each line that parses, written again as line protocol (write_line below: the
// grammar's escapes), parses to the same point. Counters add up: every line read counts in
// lines; in a mapping without {field} each line is exactly one sample or one rejection (per
// field, at least one of either); every sample offered is accepted or dropped one by one
// (the registry auto-creates streams of the mapping's dims, so admission refuses none); the
// registry's counts per reason are the decoder's mapped by registry_reason(). What the hub
// hands out satisfies the validator's rules, and every log line is terminal-safe.
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "fuzz_ingest_support.hpp"
#include "ingest_oracle.hpp"
#include "warpwatch/stream/decode/influx_lines.hpp"
#include "warpwatch/stream/decode/line_protocol.hpp"

using namespace warpwatch::stream;
using warpwatch::fuzz::Input;

namespace {

// Escapes what `specials` names with a backslash (line protocol's name escapes).
void append_escaped(std::string& out, std::string_view s, std::string_view specials) {
  for (const char c : s) {
    if (specials.find(c) != std::string_view::npos) out.push_back('\\');
    out.push_back(c);
  }
}

void append_number(std::string& out, double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

// A point as line protocol, by the grammar of line_protocol.hpp.
std::string write_line(const Point& p) {
  std::string out;
  append_escaped(out, p.measurement, ", ");
  for (const LineTag& t : p.tags) {
    out.push_back(',');
    append_escaped(out, t.key, ",= ");
    out.push_back('=');
    append_escaped(out, t.value, ",= ");
  }
  out.push_back(' ');
  for (std::size_t i = 0; i < p.fields.size(); ++i) {
    const LineField& f = p.fields[i];
    if (i > 0) out.push_back(',');
    append_escaped(out, f.key, ",= ");
    out.push_back('=');
    switch (f.type) {
      case FieldType::float_:
        append_number(out, f.number);
        break;
      case FieldType::integer:
        // The nearest int64 of the double (2^63 is INT64_MAX's double).
        out.append(f.number >= 0x1p63 ? std::to_string(INT64_MAX)
                                      : std::to_string(static_cast<std::int64_t>(f.number)));
        out.push_back('i');
        break;
      case FieldType::unsigned_:
        out.append(f.number >= 0x1p64 ? std::to_string(UINT64_MAX)
                                      : std::to_string(static_cast<std::uint64_t>(f.number)));
        out.push_back('u');
        break;
      case FieldType::string:
        out.push_back('"');
        append_escaped(out, f.text, "\"\\");
        out.push_back('"');
        break;
      case FieldType::boolean:
        out.append(f.number != 0 ? "true" : "false");
        break;
    }
  }
  if (p.timestamp) out.append(" ").append(std::to_string(*p.timestamp));
  return out;
}

bool same_point(const Point& a, const Point& b) {
  if (a.measurement != b.measurement || a.timestamp != b.timestamp ||
      a.tags.size() != b.tags.size() || a.fields.size() != b.fields.size())
    return false;
  for (std::size_t i = 0; i < a.tags.size(); ++i)
    if (a.tags[i].key != b.tags[i].key || a.tags[i].value != b.tags[i].value) return false;
  for (std::size_t i = 0; i < a.fields.size(); ++i) {
    const LineField &x = a.fields[i], &y = b.fields[i];
    if (x.key != y.key || x.type != y.type || x.text != y.text ||
        std::memcmp(&x.number, &y.number, sizeof(double)) != 0)
      return false;
  }
  return true;
}

void check_round_trip(std::string_view line) {
  Point point, again;
  LineSyntaxError error;
  if (parse_line(line, point, error) != LineKind::point) return;
  for (const LineField& f : point.fields)
    WARPWATCH_FUZZ_CHECK(std::isfinite(f.number), "a parsed field's number is finite");
  const std::string written = write_line(point);
  WARPWATCH_FUZZ_CHECK(parse_line(written, again, error) == LineKind::point,
                       "a point written again parses");
  WARPWATCH_FUZZ_CHECK(same_point(point, again), "line protocol round trip");
}

InfluxMappingOptions mapping_options(std::uint8_t choice) {
  InfluxMappingOptions o;
  switch (choice % 4) {
    case 0:
      break;
    case 1:
      o.fields = {"x", "y"};
      break;
    case 2:
      o.stream_template = "{tag:host}/{measurement}";
      o.fields = {"x", "y", "z"};
      break;
    default:
      o.stream_template = "{measurement}.{tag:host}.{field}";
      break;
  }
  o.precision = static_cast<Precision>((choice / 4) % 4);
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Input in{std::span(data, size)};
  const InfluxMapping mapping(mapping_options(in.u8()));
  const std::uint8_t sizes = in.u8();
  const std::size_t max_line = std::size_t{64} << (sizes % 5);
  const std::size_t read_bytes = 1 + sizes / 5;
  const std::string_view text = in.rest();

  RegistryOptions options;
  options.auto_create = true;
  options.auto_dims = mapping.dims();
  const QueueLimits limits;
  StreamRegistry registry({}, options, warpwatch::fuzz::check_log_line);
  IngestHub hub(registry, limits);
  const SourceId source = hub.add_source("fuzz influx", Overflow::wait);
  InfluxCounters counters;
  InfluxLineDecoder decoder(mapping, hub, source, counters, "influx fuzz");

  // As a TCP connection: reads of read_bytes, each flushed; the end closes the last line.
  LineFramer framer(max_line);
  std::uint64_t line_no = 0, lines_read = 0;
  const auto on_line = [&](std::string_view line) {
    Point p;
    LineSyntaxError e;
    if (parse_line(line, p, e) != LineKind::skip) ++lines_read;
    check_round_trip(line);
    decoder.line(line, "127.0.0.1:1", ++line_no);
  };
  std::int64_t clock = 1'000'000'000;
  for (std::size_t at = 0; at < text.size(); at += read_bytes) {
    decoder.received_at(clock += 1000);
    framer.feed(text.substr(at, read_bytes), on_line, [&] {
      ++lines_read;
      decoder.reject_line(LineReject::line_too_long, "127.0.0.1:1", ++line_no, "too long");
    });
    decoder.flush();
  }
  framer.finish(on_line);
  decoder.flush();

  const InfluxStats stats = read_stats("fuzz", counters);
  WARPWATCH_FUZZ_CHECK(stats.lines == lines_read, "every line read counts in lines");
  std::uint64_t rejected = 0;
  for (const std::uint64_t n : stats.rejected) rejected += n;
  if (mapping.stream_id.per_field())
    WARPWATCH_FUZZ_CHECK(stats.samples + rejected >= stats.lines,
                         "every line is a sample or a rejection at least once");
  else
    WARPWATCH_FUZZ_CHECK(stats.samples + rejected == stats.lines,
                         "every line is one sample or one rejection");

  const RegistrySnapshot snap = registry.snapshot();
  WARPWATCH_FUZZ_CHECK(snap.accepted_samples +
                               snap.rejected[RejectReason::non_increasing_timestamp] +
                               snap.rejected[RejectReason::non_finite_value] ==
                           stats.samples,
                       "every sample offered is accepted or dropped one by one");
  RejectCounts expected;
  for (const LineReject r : all_line_rejects)
    expected.add(registry_reason(r), stats.rejected[static_cast<std::size_t>(r)]);
  for (const RejectReason r : all_reject_reasons) {
    if (r == RejectReason::non_increasing_timestamp || r == RejectReason::non_finite_value)
      continue;
    WARPWATCH_FUZZ_CHECK(snap.rejected[r] == expected[r],
                         "the registry counts each line rejection under its reason");
  }

  warpwatch::fuzz::TakenSamples taken(registry);
  taken.check_end(hub, options);
  return 0;
}
