// `warpwatch backtest` (daemon/cli/backtest/): the daemon's Pipeline run offline over
// recordings. The same events as a live run of the same recording (ids and sequence numbers
// included), line protocol read as the live influx source reads it, every bad input refused
// with nothing written, and the table's figures on a case counted by hand.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <nlohmann/json.hpp>

#include <bit>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "backtest/backtest.hpp"
#include "cli_test_support.hpp"
#include "daemon_e2e_support.hpp"
#include "ingest_support.hpp"
#include "test_support.hpp"
#include "warpwatch/plugins/registry.hpp"
#include "warpwatch/stream/sources/influx_source.hpp"

namespace {

using namespace warpwatch;
using namespace warpwatch::testing;
namespace asio = boost::asio;

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<nlohmann::json> json_lines(const std::string& text) {
  std::vector<nlohmann::json> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(nlohmann::json::parse(line));
  return out;
}

std::string csv_row(const std::vector<float>& values) {
  std::ostringstream s;
  for (std::size_t i = 0; i < values.size(); ++i) s << (i ? "," : "") << values[i];
  return s.str() + "\n";
}

std::string values_yaml(const std::vector<float>& values) {
  std::ostringstream s;
  s << "[";
  for (std::size_t i = 0; i < values.size(); ++i) s << (i ? ", " : "") << values[i];
  return s.str() + "]";
}

// Files in `dir` other than those named.
std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

// A replay configuration of one stream with two patterns planted, under a rule with a
// cooldown and a rule without; events written to `events_file` when the daemon runs it.
std::string replay_config(const std::string& series_file, const std::string& events_file) {
  std::vector<float> ramp;
  for (int i = 0; i < 12; ++i) ramp.push_back(i % 2 ? 3.0f : -3.0f);
  return "instance: bt\nbackend: cpu\ncpu_threads: 2\n"
         "scheduler: {tick_ms: 1, batch_samples: 700}\n"
         "metrics: {listen: \"\"}\n"
         "ingest:\n  - {replay: " +
         series_file +
         ", stream: s1, period_ms: 10}\n"
         "streams:\n  declared:\n    - {id: s1, dims: 1, period_ms: 10}\n"
         "libraries:\n  - name: shapes\n    defaults: {metric: dtw, mode: stream, threshold: 4}\n"
         "    patterns:\n      - {id: wave, values: " +
         values_yaml(wave_pattern()) + "}\n      - {id: zigzag, values: " + values_yaml(ramp) +
         "}\n"
         "rules:\n  - {name: quiet, cooldown_ms: 3000, severity: warning}\n"
         "  - {name: every, patterns: [wave]}\n"
         "publish: {endpoint: \"tcp://127.0.0.1:*\", events_file: " +
         events_file + "}\n";
}

TEST(Backtest, SameEventsAsTheLiveDaemonOverTheSameRecording) {
  TempDir dir;
  std::vector<float> zigzag;
  for (int i = 0; i < 12; ++i) zigzag.push_back(i % 2 ? 3.0f : -3.0f);
  std::mt19937_64 rng(test_seed());
  // wave at 1000, 1100 (within the 3 s cooldown of 'quiet'), 4000; zigzag at 1200 (within it
  // too), 2500, 6000.
  const Series s =
      make_series("s1", 8000, {wave_pattern(), zigzag},
                  {{0, 1000}, {0, 1100}, {1, 1200}, {1, 2500}, {0, 4000}, {1, 6000}}, rng,
                  /*warped=*/false);
  const std::string series = dir.write("s1.csv", csv_row(s.values));
  const std::string live_events = dir.file("live.jsonl");
  const std::string config = dir.write("bt.yaml", replay_config(series, live_events));

  // The live run: warpwatchd's Pipeline with its replay source, until the replay is matched.
  {
    service::Pipeline pipeline(plugins::load_daemon_config(config), nullptr);
    pipeline.start();
    const auto deadline = Clock::now() + scaled(20s);
    while (!pipeline.replays_done() && Clock::now() < deadline) pipeline.step();
    ASSERT_TRUE(pipeline.replays_done());
    pipeline.shutdown();
  }
  const auto live = json_lines(read_text(live_events));

  const std::string backtest_events = dir.file("backtest.jsonl");
  const CliResult r = run_cli({"backtest", "--config", config, "--events", backtest_events});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto offline = json_lines(read_text(backtest_events));

  // Planted: 3 waves, 3 zigzags. 'every' takes each wave; 'quiet' drops what ends within 3 s
  // of its last event: the wave at 1100 and the zigzag at 1200.
  ASSERT_EQ(live.size(), 7u) << read_text(live_events);
  ASSERT_EQ(offline.size(), live.size()) << read_text(backtest_events);
  for (std::size_t i = 0; i < live.size(); ++i) {
    nlohmann::json a = live[i], b = offline[i];
    EXPECT_NE(b.value("detected_ns", 0LL), 0);
    a.erase("detected_ns");
    b.erase("detected_ns");
    EXPECT_EQ(a, b) << "event " << i;
    EXPECT_EQ(b["sequence"], i + 1);
  }
  std::map<std::string, int> by_rule;
  for (const auto& e : offline) ++by_rule[e["rule"].get<std::string>()];
  EXPECT_EQ(by_rule["every"], 3);
  EXPECT_EQ(by_rule["quiet"], 4);
  // The table on stderr: the rules' counts.
  EXPECT_NE(r.err.find("quiet"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("7 events over"), std::string::npos) << r.err;
  // Nothing of the daemon's outside world: no events file of the configuration written.
  EXPECT_EQ(files_in(dir.path()),
            (std::vector<std::string>{"backtest.jsonl", "bt.yaml", "live.jsonl", "s1.csv"}));
}

// A .npy recording is read in parts while the parts before are matched (SeriesFeed): its
// events are those of the same samples in a CSV read whole, over rounds of 700 samples that
// do not divide its 8,000; float32 1-D and float64 2-D with a time column alike. A value
// that turns out bad half-way is an error naming the file and the sample, nothing written.
void put_le(std::string& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}
std::string npy_bytes(const std::string& descr, const std::string& shape, const std::string& data) {
  std::string header =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out = "\x93NUMPY";
  out += '\x01';
  out += '\0';
  put_le(out, header.size(), 2);
  return out + header + data;
}

TEST(Backtest, NpyRecordingReadInPartsGivesTheEventsOfTheSameCsv) {
  TempDir dir;
  std::vector<float> zigzag;
  for (int i = 0; i < 12; ++i) zigzag.push_back(i % 2 ? 3.0f : -3.0f);
  std::mt19937_64 rng(test_seed());
  const Series s = make_series("s1", 8000, {wave_pattern(), zigzag},
                               {{0, 1000}, {1, 2500}, {0, 4000}, {1, 6000}, {0, 7960}}, rng,
                               /*warped=*/false);
  // The CSV with every float32 exactly (9 significant digits), a sample per row with its time.
  std::ostringstream csv, timed;
  csv.precision(9);
  timed.precision(17);
  std::string f4, f8;
  for (std::size_t i = 0; i < s.values.size(); ++i) {
    csv << s.values[i] << "\n";
    const double t = 100.0 + 0.01 * static_cast<double>(i);
    timed << t << "," << static_cast<double>(s.values[i]) << "\n";
    put_le(f4, std::bit_cast<std::uint32_t>(s.values[i]), 4);
    put_le(f8, std::bit_cast<std::uint64_t>(t), 8);
    put_le(f8, std::bit_cast<std::uint64_t>(static_cast<double>(s.values[i])), 8);
  }
  // Its replay entry is not run (--input replaces it), but must load: a row of the samples.
  const std::string csv_file = dir.write("s1.csv", csv.str());
  const std::string config =
      dir.write("bt.yaml", replay_config(dir.write("row.csv", csv_row(s.values)), dir.file("x")));
  const auto events_of = [&](const std::string& input, std::vector<std::string> more) {
    const std::string out = dir.file("events.jsonl");
    std::filesystem::remove(out);
    std::vector<std::string> args{"backtest", "--config", config, "--input",
                                  input,      "--events", out};
    args.insert(args.end(), more.begin(), more.end());
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.status, 0) << r.err;
    auto events = json_lines(read_text(out));
    for (auto& e : events) e.erase("detected_ns");
    return events;
  };
  const auto whole = events_of("s1=" + csv_file, {"--layout", "columns"});
  ASSERT_GE(whole.size(), 5u);  // the five planted (one ending 8 samples before the end)
  EXPECT_EQ(events_of("s1=" + dir.write("s1.npy", npy_bytes("<f4", "(8000,)", f4)), {}), whole);
  const auto timed_whole = events_of("s1=" + dir.write("t.csv", timed.str()),
                                     {"--layout", "columns", "--time-column", "0"});
  ASSERT_EQ(timed_whole.size(), whole.size());
  EXPECT_EQ(events_of("s1=" + dir.write("t.npy", npy_bytes("<f8", "(8000, 2)", f8)),
                      {"--layout", "columns", "--time-column", "0"}),
            timed_whole);

  // A NaN at sample 5000 of 8000: found when its part is read, after rounds were matched.
  std::string bad = f4;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  bad.replace(5000 * 4, 4, std::string(reinterpret_cast<const char*>(&nan), 4));
  const std::string bad_file = dir.write("bad.npy", npy_bytes("<f4", "(8000,)", bad));
  const std::string out = dir.file("bad-events.jsonl");
  const CliResult r =
      run_cli({"backtest", "--config", config, "--input", "s1=" + bad_file, "--events", out});
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find("cannot load recording '" + bad_file + "'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("sample 5000"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("NaN or infinite value"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

// A day of Telegraf-like lines, some bad: the streams and samples the live source gives.
const char* kLines =
    "cpu,host=web-1 usage=1.5,idle=98 1700000000000\n"
    "cpu,host=web-2 usage=2.5,idle=97 1700000000000\n"
    "cpu,host=web-1 usage=1.75,idle=97 1700000010000\n"
    "this is not line protocol\n"
    "cpu,host=web-2 usage=2.0,idle=96 1700000010000\n"
    "cpu usage=9 1700000010000\n"  // no host tag
    "cpu,host=web-1 usage=\"high\" 1700000020000\n"
    "cpu,host=web-1 usage=1.25,idle=98 1700000030000\n"
    "mem,host=web-1 used=50 1700000030000";  // the last line needs no '\n'

std::map<std::string, stream::Samples> by_stream(stream::IngestBatch batch) {
  std::map<std::string, stream::Samples> out;
  for (const stream::QueuedSamples& q : batch.streams) {
    stream::Samples& s = out[q.stream->id];
    s.dims = q.stream->dims;
    s.times_ns.insert(s.times_ns.end(), q.times_ns.begin(), q.times_ns.end());
    s.values.insert(s.values.end(), q.values.begin(), q.values.end());
  }
  return out;
}

TEST(Backtest, LineProtocolFileGivesTheLiveInfluxSourcesStreamsAndSamples) {
  TempDir dir;
  const stream::RegistryOptions auto_create{true, 100, 1, 1'000'000'000, std::chrono::seconds(10)};
  const stream::InfluxMappingOptions mapping{
      "{measurement}.{tag:host}.{field}", {}, stream::Precision::ms};
  // Live: the influx source on a loopback port, the same bytes written to it.
  stream::StreamRegistry live_registry({}, auto_create);
  stream::IngestHub live_hub(live_registry, {});
  std::map<std::string, stream::Samples> live;
  {
    stream::InfluxSource source({"tcp://127.0.0.1:0", mapping, 64 << 10, 4}, live_hub);
    source.start();
    const std::string endpoint = source.endpoint();
    asio::io_context io;
    asio::ip::tcp::socket socket(io);
    socket.connect(
        {asio::ip::make_address("127.0.0.1"),
         static_cast<unsigned short>(std::stoul(endpoint.substr(endpoint.rfind(':') + 1)))});
    asio::write(socket, asio::buffer(std::string_view(kLines)));
    socket.close();  // the last line ends with the connection
    const auto deadline = Clock::now() + scaled(5s);
    while (source.stats().lines < 9 && Clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_EQ(source.stats().lines, 9u);
    source.stop();
    live = by_stream(live_hub.take_all());
  }
  // Backtest: the file through read_line_protocol.
  const std::string file = dir.write("day.lp", kLines);
  stream::StreamRegistry registry({}, auto_create);
  stream::IngestHub hub(registry, {});
  int reads = 0;
  const auto read = cli::backtest::read_line_protocol(
      file, {mapping, 64 << 10}, hub, hub.add_source("backtest", stream::Overflow::wait),
      [&] { ++reads; });
  EXPECT_EQ(read.lines, 9u);
  EXPECT_EQ(read.samples, 11u);  // usage and idle of 5 lines, mem's used
  EXPECT_EQ(read.rejected, 3u);
  EXPECT_EQ(reads, 1);
  const auto offline = by_stream(hub.take_all());
  ASSERT_EQ(offline.size(), 5u);
  EXPECT_EQ(offline, live);
  EXPECT_EQ(offline.at("cpu.web-1.usage").values, (std::vector<float>{1.5f, 1.75f, 1.25f}));
  EXPECT_EQ(offline.at("cpu.web-1.usage").times_ns.front(), 1'700'000'000'000'000'000);
  // Rejected as the daemon rejects them: under the same reasons, for the same streams.
  EXPECT_EQ(registry.snapshot().rejected, live_registry.snapshot().rejected);
  EXPECT_EQ(registry.snapshot().rejected[stream::RejectReason::malformed_frame], 1u);
}

TEST(Backtest, LineProtocolRecordingThroughTheVerbWithTheInfluxEntrysMapping) {
  TempDir dir;
  const std::string file = dir.write("day.lp", kLines);
  const std::string config = dir.write(
      "lp.yaml",
      "backend: cpu\nmetrics: {listen: \"\"}\n"
      "ingest:\n  - {influx: \"tcp://127.0.0.1:0\", stream_template: "
      "\"{measurement}.{tag:host}.{field}\","
      " precision: ms}\n"
      "streams: {auto_create: true}\n"
      "libraries:\n  - name: l\n    defaults: {metric: dtw, mode: stream, threshold: 0.01}\n"
      "    patterns:\n      - {id: dip, values: [1.75, 1.25]}\n");
  const std::string report = dir.file("report.html");
  const CliResult r =
      run_cli({"backtest", "--config", config, "--input", file, "--report", report});
  ASSERT_EQ(r.status, 0) << r.err;
  // The report: the command and configuration named, the tables, a chart per stream with the
  // event's span labelled with its pattern and rule; nothing fetched from elsewhere.
  const std::string html = read_text(report);
  EXPECT_NE(html.find("warpwatch backtest of " + config), std::string::npos);
  EXPECT_NE(html.find("warpwatch backtest --config " + config + " --input " + file),
            std::string::npos);
  EXPECT_EQ(std::count(html.begin(), html.end(), '\0'), 0);
  std::size_t charts = 0;
  for (std::size_t at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1))
    ++charts;
  EXPECT_EQ(charts, 5u);  // the five streams
  EXPECT_NE(html.find("dip (default)"), std::string::npos);
  EXPECT_NE(html.find("<th>events/h</th>"), std::string::npos) << "the rules' table";
  EXPECT_NE(html.find("<td>cpu.web-2.idle</td>"), std::string::npos) << "the streams' table";
  EXPECT_EQ(html.find("src=\"http"), std::string::npos);
  EXPECT_EQ(html.find("href=\"http"), std::string::npos);
  const auto events = json_lines(r.out);
  ASSERT_EQ(events.size(), 1u) << r.out << r.err;
  EXPECT_EQ(events[0]["stream"], "cpu.web-1.usage");
  EXPECT_EQ(events[0]["start_index"], 1);
  // The table: every stream the lines made, and the bad lines counted with their reason.
  EXPECT_NE(r.err.find("cpu.web-2.idle"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("mem.web-1.used"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(no stream id)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("3 inputs rejected"), std::string::npos) << r.err;
  // A configuration without an influx entry cannot map the lines.
  const std::string no_influx =
      dir.write("none.yaml",
                "backend: cpu\nmetrics: {listen: \"\"}\nstreams: {auto_create: true}\n"
                "libraries:\n  - name: l\n    defaults: {threshold: 1}\n"
                "    patterns:\n      - {id: dip, values: [1.75, 1.25]}\n");
  const CliResult bad = run_cli({"backtest", "--config", no_influx, "--input", file});
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find("is line protocol, but the configuration has no 'influx' entry"),
            std::string::npos)
      << bad.err;
}

std::string small_config(bool auto_create) {
  return std::string("backend: cpu\nmetrics: {listen: \"\"}\n") +
         "streams:\n  auto_create: " + (auto_create ? "true" : "false") +
         "\n  declared:\n    - {id: s, dims: 1, period_ms: 1000}\n"
         "libraries:\n  - name: l\n    defaults: {metric: dtw, mode: stream, threshold: 0.5}\n"
         "    patterns:\n      - {id: blip, values: [5, -5]}\n"
         "rules:\n  - {name: all}\n  - {name: calm, cooldown_ms: 10000}\n"
         "sinks:\n  - {webhook: \"http://127.0.0.1:9/hook\", name: hook, rules: [calm]}\n";
}

TEST(Backtest, BadInputsAreClearErrorsAndWriteNothing) {
  TempDir dir;
  const std::string events = dir.file("events.jsonl"), table = dir.file("table.txt"),
                    report = dir.file("report.html");
  const auto run = [&](const std::string& config, std::vector<std::string> inputs,
                       std::vector<std::string> more = {}) {
    std::vector<std::string> args{"backtest", "--config", config,     "--events", events,
                                  "--table",  table,      "--report", report};
    for (auto& i : inputs) {
      args.push_back("--input");
      args.push_back(i);
    }
    args.insert(args.end(), more.begin(), more.end());
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.status, 1);
    EXPECT_FALSE(std::filesystem::exists(events));
    EXPECT_FALSE(std::filesystem::exists(table));
    EXPECT_FALSE(std::filesystem::exists(report));
    return r.err;
  };
  const std::string good = dir.write("good.yaml", small_config(false));
  const std::string series = dir.write("s.csv", "0,5,-5,0\n");
  // A configuration that does not load: file:line:column, as check-config says it.
  const std::string broken = dir.write("broken.yaml", "backend: cpu\nscheduler: {tick_ms: -3}\n");
  std::string err = run(broken, {series});
  EXPECT_NE(err.find(broken + ":2:"), std::string::npos) << err;
  EXPECT_NE(err.find("tick_ms"), std::string::npos) << err;
  // Other dims than the stream's.
  const std::string two = dir.write("two.csv", "t,a,b\n0,1,2\n1,3,4\n");
  err = run(good, {"s=" + two}, {"--layout", "columns", "--time-column", "0"});
  EXPECT_NE(err.find("recording '" + two + "' has 2 values per sample, stream 's' 1"),
            std::string::npos)
      << err;
  // An unknown stream when auto_create is off: which one, and what is declared.
  err = run(good, {"other=" + series});
  EXPECT_NE(err.find("stream 'other' is not declared in 'streams.declared' (declared: s) and "
                     "'streams.auto_create' is false"),
            std::string::npos)
      << err;
  // An empty recording.
  const std::string empty = dir.write("s2.csv", "");
  err = run(good, {"s=" + empty});
  EXPECT_NE(err.find("recording '" + empty + "' holds no samples"), std::string::npos) << err;
  // A missing one, and none at all.
  err = run(good, {"s=" + dir.file("missing.csv")});
  EXPECT_NE(err.find("cannot read recording"), std::string::npos) << err;
  err = run(good, {});
  EXPECT_NE(err.find("no recording: give --input"), std::string::npos) << err;
  // No temporary file left behind either.
  for (const std::string& f : files_in(dir.path()))
    EXPECT_EQ(f.find(".tmp."), std::string::npos) << f;
}

// 100 samples 1 s apart, [5, -5] every 5: 20 occurrences ending at 1, 6, 11, ... 96 s.
// 'all' has them all; 'calm' (cooldown 10 s) every other one (6 ends 5 s after 1: dropped; 11
// ends 10 s after: kept): 10. 99 s of recording = 0.0275 h: 727.27 and 363.64 events/h. The
// webhook sink takes 'calm' only.
TEST(Backtest, TableFiguresOnAHandCountedCase) {
  TempDir dir;
  std::vector<float> values;
  for (int i = 0; i < 100; ++i) values.push_back(i % 5 == 0 ? 5.0f : i % 5 == 1 ? -5.0f : 0.0f);
  const std::string series = dir.write("s.csv", csv_row(values));
  const std::string config = dir.write("c.yaml", small_config(false));
  const std::string table = dir.file("table.txt");
  const CliResult r = run_cli({"backtest", "--config", config, "--input", series, "--table", table,
                               "--events", dir.file("e.jsonl")});
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<std::string> header;
  const auto events = json_lines(read_text(dir.file("e.jsonl")));
  EXPECT_EQ(events.size(), 30u);
  const std::string text = read_text(table);
  std::istringstream lines(text);
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(lines, line);) {
    std::istringstream words(line);
    std::vector<std::string> row;
    for (std::string w; words >> w;) row.push_back(w);
    rows.push_back(row);
  }
  ASSERT_GE(rows.size(), 7u) << text;
  EXPECT_EQ(rows[0], (std::vector<std::string>{"rule", "events", "events/h", "alerts:hook"}));
  EXPECT_EQ(rows[1], (std::vector<std::string>{"all", "20", "727.27", "0"})) << text;
  EXPECT_EQ(rows[2], (std::vector<std::string>{"calm", "10", "363.64", "10"})) << text;
  EXPECT_EQ(rows[4], (std::vector<std::string>{"stream", "samples", "hours", "events", "rejected",
                                               "recording"}));
  EXPECT_EQ(rows[5], (std::vector<std::string>{"s", "100", "0.028", "30", "0", series})) << text;
  EXPECT_NE(text.find("30 events over 0.028 hours of recording"), std::string::npos) << text;
}

}  // namespace
