// Line protocol as a real client writes it: the InfluxDB Python client (Debian's
// python3-influxdb, installed by `make deps`) serializes random points with its own
// escaping, and the parser must read back exactly those points; the same client's UDP
// writer sends to an InfluxSource. Telegraf itself is not packaged by Debian; the client's
// serializer is InfluxData's other common writer. When python3 or the module is missing the
// tests fail (CI installs them).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "ingest_support.hpp"
#include "test_support.hpp"
#include "warpwatch/stream/decode/line_protocol.hpp"
#include "warpwatch/stream/registry.hpp"
#include "warpwatch/stream/sources/influx_source.hpp"

namespace {

using namespace warpwatch::stream;
using nlohmann::json;

// Debian's interpreter, where python3-influxdb is installed (not a python3 found first on
// PATH, which may be another installation).
constexpr const char* python = "/usr/bin/python3";

constexpr const char* client_script = R"(import json, sys
from influxdb import InfluxDBClient
from influxdb.line_protocol import make_lines
data = json.load(open(sys.argv[1], encoding='utf-8'))
if sys.argv[2] == 'lines':
    sys.stdout.write(make_lines(data))
else:
    InfluxDBClient(host='127.0.0.1', use_udp=True, udp_port=int(sys.argv[3])).send_packet(data)
)";

// Runs the client script on `points` ("lines": returns what make_lines writes; "udp": sends
// them to `port`); a failure to run it fails the test.
std::string run_client(const json& points, const std::string& mode, unsigned short port = 0) {
  const warpwatch::testing::TempDir dir;
  const std::string script = dir.write("client.py", client_script);
  const std::string data = dir.write("points.json", points.dump());
  const std::string command = "PYTHONIOENCODING=utf-8 " + std::string(python) + " " + script + " " +
                              data + " " + mode + " " + std::to_string(port) + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) {
    ADD_FAILURE() << "cannot run " << command;
    return {};
  }
  std::string out;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  const int status = ::pclose(pipe);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << command << " failed (is python3-influxdb installed? `make deps`):\n"
      << out;
  return out;
}

// Names from the characters that line protocol escapes and others that it does not. No
// backslash: the client doubles it in names, which InfluxDB's parsers do not undo.
std::string random_name(std::mt19937_64& rng, bool measurement) {
  static const std::vector<std::string> pieces = {"a", "b", "Z", "0", "9",  "_", "-", ".", ":",
                                                  "/", " ", ",", "=", "\"", "'", "#", "é", "Ω"};
  std::string s = "m";  // a measurement starting with '#' would be a comment
  for (std::size_t n = rng() % 8; n > 0; --n) {
    const std::string& piece = pieces[rng() % pieces.size()];
    // The client escapes '=' in a measurement, which line protocol does not (it stays "\=").
    if (!(measurement && piece == "=")) s += piece;
  }
  return s;
}

TEST(InfluxClient, PointsTheClientWritesParseAsTheyWere) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  json points = json::array();
  for (int i = 0; i < 300; ++i) {
    json tags = json::object(), fields = json::object();
    for (std::size_t t = rng() % 4; t > 0; --t)
      tags[random_name(rng, false)] = random_name(rng, false);
    for (std::size_t f = 1 + rng() % 4; f > 0; --f) {
      const std::string key = random_name(rng, false);
      switch (rng() % 4) {
        case 0:
          fields[key] = std::uniform_real_distribution<double>(-1e6, 1e6)(rng) *
                        std::pow(10.0, static_cast<double>(rng() % 40) - 20.0);
          break;
        case 1:
          fields[key] = static_cast<std::int64_t>(rng()) >> 11;  // exact as a double
          break;
        case 2:
          fields[key] = rng() % 2 == 0;
          break;
        default:
          fields[key] = random_name(rng, false) + "\\ \"quoted\\\" " + random_name(rng, false);
      }
    }
    points.push_back({{"measurement", random_name(rng, true)},
                      {"tags", tags},
                      {"fields", fields},
                      {"time", static_cast<std::int64_t>(rng())}});
  }
  const std::string lines = run_client({{"points", points}}, "lines");
  Point p;
  LineSyntaxError error;
  std::size_t at = 0;
  for (const json& want : points) {
    const std::size_t nl = lines.find('\n', at);
    ASSERT_NE(nl, std::string::npos) << "fewer lines than points";
    const std::string line = lines.substr(at, nl - at);
    at = nl + 1;
    ASSERT_EQ(parse_line(line, p, error), LineKind::point)
        << line << "\ncolumn " << error.column << ": " << error.what;
    EXPECT_EQ(p.measurement, want["measurement"].get<std::string>()) << line;
    std::map<std::string, std::string> tags;
    for (const LineTag& t : p.tags) tags[t.key] = t.value;
    EXPECT_EQ(tags, (want["tags"].get<std::map<std::string, std::string>>())) << line;
    ASSERT_EQ(p.fields.size(), want["fields"].size()) << line;
    for (const auto& [key, value] : want["fields"].items()) {
      const LineField* f = p.find_field(key);
      ASSERT_NE(f, nullptr) << key << " in " << line;
      if (value.is_boolean()) {
        EXPECT_EQ(f->type, FieldType::boolean) << line;
        EXPECT_EQ(f->number, value.get<bool>() ? 1.0 : 0.0) << line;
      } else if (value.is_number_integer()) {
        EXPECT_EQ(f->type, FieldType::integer) << line;
        EXPECT_EQ(f->number, static_cast<double>(value.get<std::int64_t>())) << line;
      } else if (value.is_number_float()) {
        EXPECT_EQ(f->type, FieldType::float_) << line;
        EXPECT_EQ(f->number, value.get<double>()) << line;
      } else {
        EXPECT_EQ(f->type, FieldType::string) << line;
        EXPECT_EQ(f->text, value.get<std::string>()) << line;
      }
    }
    EXPECT_EQ(p.timestamp, want["time"].get<std::int64_t>()) << line;
  }
  EXPECT_EQ(at, lines.size()) << "more lines than points";
}

TEST(InfluxClient, TheClientsUdpWriterReachesTheSource) {
  StreamRegistry registry({}, {true, 10000, 1, 1'000'000'000, std::chrono::seconds(10), 0.0, 0.0});
  IngestHub hub(registry, QueueLimits{});
  InfluxSourceOptions options;
  options.address = "udp://127.0.0.1:0";
  options.mapping = {"{measurement}.{tag:host}.{field}", {}, Precision::ns};
  InfluxSource source(options, hub);
  source.start();
  json points = json::array();
  for (int i = 0; i < 100; ++i)
    points.push_back({{"measurement", "cpu"},
                      {"tags", {{"host", i % 2 ? "a" : "b"}}},
                      {"fields", {{"usage", 0.5 * i}, {"count", i}, {"state", "ok"}, {"up", true}}},
                      {"time", 1'700'000'000'000'000'000 + i}});
  run_client({{"points", points}}, "udp", source.port());
  std::map<std::string, std::vector<float>> got;
  warpwatch::testing::take_until(hub, 200, [&](IngestBatch b) {
    for (const QueuedSamples& q : b.streams)
      got[q.stream->id].insert(got[q.stream->id].end(), q.values.begin(), q.values.end());
  });
  ASSERT_EQ(got.size(), 4u);
  ASSERT_EQ(got["cpu.a.usage"].size(), 50u);
  EXPECT_EQ(got["cpu.a.usage"][0], 0.5f);
  EXPECT_EQ(got["cpu.b.count"].back(), 98.0f);
  EXPECT_EQ(source.stats().datagrams, 1u);
  EXPECT_EQ(source.stats().ignored_fields, 200u) << "the string and the boolean of each line";
}

}  // namespace
