// The API's event, sample, library, learn and backtest routes (daemon/service/http/
// event_routes.cpp, library_routes.cpp, job_routes.cpp) over a real Pipeline with its scheduler on
// its own thread, fed over its PULL socket, its LibraryEditor as warpwatchd wires it, and
// `warpwatch explain` against it; real sockets on 127.0.0.1 throughout.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>

#include "cli_test_support.hpp"
#include "daemon_e2e_support.hpp"
#include "http/http_request.hpp"
#include "log_capture.hpp"
#include "test_support.hpp"
#include "warpwatch/base/sha256.hpp"
#include "warpwatch/files/files.hpp"
#include "warpwatch/kernels/matcher.hpp"
#include "warpwatch/service/api_routes.hpp"
#include "warpwatch/service/library_editor.hpp"

namespace {

using namespace warpwatch;
using namespace warpwatch::testing;
using nlohmann::json;

constexpr const char* read_token = "read-token-0123456789";
constexpr const char* write_token = "write-token-9876543210";

std::string token_line(const char* name, const char* role, const char* secret) {
  return std::string(name) + " " + role + " " + stream::to_hex(stream::sha256(secret)) + "\n";
}

// One stream, the library `shapes` with `blip` [5, -5] (dtw, stream mode, threshold 1),
// state.dir for the editor, the HTTP server on a free port with a read and a write token.
std::string config_text() {
  return "instance: wire\nbackend: cpu\ncpu_threads: 1\nscheduler: {tick_ms: 5}\n"
         "ingest:\n  - pull: \"tcp://127.0.0.1:*\"\n"
         "streams:\n  declared:\n    - {id: s1, dims: 1, period_ms: 10}\n"
         "state: {dir: state, checkpoint_ms: 0}\n"
         "libraries:\n  - name: shapes\n    defaults: {metric: dtw, mode: stream, threshold: 1}\n"
         "    patterns:\n      - {id: blip, values: [5, -5]}\n"
         "publish: {endpoint: \"tcp://127.0.0.1:*\"}\n"
         "http:\n  listen: 127.0.0.1:0\n  tokens_file: tokens\n"
         "  external_url: http://ww.example\n";
}

// warpwatchd's wiring: the Pipeline, its editor handed to it, the scheduler's loop on its
// own thread (the editor's changes are served there).
struct Daemon {
  explicit Daemon(const std::string& path)
      : pipeline(service::load_with_overlay(path), log.logger()),
        editor(std::make_shared<service::LibraryEditor>(pipeline, path, log.logger())),
        push(ctx, pipeline.ingest_endpoints().at(0)) {
    pipeline.set_library_editor(editor);
    pipeline.start();
    scheduler = std::jthread([this](const std::stop_token& stop) {
      while (!stop.stop_requested()) pipeline.step();
    });
  }
  ~Daemon() {
    scheduler.request_stop();
    scheduler.join();
  }
  int port() const { return pipeline.http_port(); }
  // Waits (bounded) until the store holds `n` events.
  bool wait_for_events(std::size_t n) {
    const auto deadline = Clock::now() + scaled(5000ms);
    while (Clock::now() < deadline) {
      if (pipeline.event_store().size() >= n) return true;
      std::this_thread::sleep_for(10ms);
    }
    return false;
  }
  CapturedLog log;
  service::Pipeline pipeline;
  std::shared_ptr<service::LibraryEditor> editor;
  zmq::context_t ctx;
  Producer push;
  std::jthread scheduler;
};

HttpReply request(int port, std::string method, std::string target, const char* bearer,
                  std::string body = {}, std::string if_match = {}) {
  HttpCall c;
  c.method = std::move(method);
  c.target = std::move(target);
  c.headers["Authorization"] = std::string("Bearer ") + bearer;
  if (!body.empty()) {
    c.headers["Content-Type"] = "application/json";
    c.body = std::move(body);
  }
  if (!if_match.empty()) c.headers["If-Match"] = std::move(if_match);
  return http_call(port, c);
}

json get_json(int port, const std::string& target) {
  const HttpReply r = request(port, "GET", target, read_token);
  EXPECT_EQ(r.status, 200) << target << ": " << r.body;
  EXPECT_EQ(r.headers.count("content-type") ? r.headers.at("content-type") : "",
            "application/json");
  return json::parse(r.body);
}

// The problem's field, asserting the status.
std::string problem_field(const HttpReply& r, int status) {
  EXPECT_EQ(r.status, status) << r.body;
  EXPECT_EQ(r.headers.count("content-type") ? r.headers.at("content-type") : "",
            "application/problem+json");
  return json::parse(r.body).value("field", "");
}

// warpwatchd of config_text() with the read and write tokens, started by start().
class DaemonTest : public ::testing::Test {
 protected:
  void start() {
    dir_.write("tokens", token_line("reader", "read", read_token) +
                             token_line("writer", "write", write_token));
    path_ = dir_.write("warpwatch.yaml", config_text());
    d_ = std::make_unique<Daemon>(path_);
  }
  TempDir dir_;
  std::string path_;
  std::unique_ptr<Daemon> d_;
};

class HttpApiRoutes : public DaemonTest {
 protected:
  void SetUp() override {
    start();
    // A blip near [5, -5] (not exact: the distance is not 0) at samples 2 and 3.
    d_->push.send("s1",
                  stream::encode_frame(samples_at(0, {0, 0, 5.25f, -4.5f, 0, 0, 0, 0}), false));
    ASSERT_TRUE(d_->wait_for_events(1)) << d_->log.joined();
  }
};

TEST_F(HttpApiRoutes, EventsListTheEventAndItsExplanationTotalIsItsDistance) {
  const int port = d_->port();
  const json list = get_json(port, "/api/v1/events?stream=s1&library=shapes");
  ASSERT_EQ(list.at("events").size(), 1u) << list.dump();
  const json& e = list["events"][0];
  EXPECT_EQ(e.at("pattern"), "blip");
  EXPECT_EQ(e.at("start_index"), 2);
  EXPECT_EQ(e.at("end_index"), 3);
  EXPECT_FALSE(e.contains("segment")) << "the list leaves the segments out";
  const std::string id = e.at("id");
  EXPECT_EQ(e.at("explain_url"), "http://ww.example/#/events/" + id);
  EXPECT_EQ(get_json(port, "/api/v1/events?pattern=other").at("events").size(), 0u);
  EXPECT_EQ(
      get_json(port, "/api/v1/events?since=" + std::to_string(e.at("end_ns").get<std::int64_t>()))
          .at("events")
          .size(),
      0u)
      << "since is exclusive, on end_ns";

  const json one = get_json(port, "/api/v1/events/" + id);
  EXPECT_EQ(one.at("segment").at("first_index"), 0);
  EXPECT_EQ(one.at("pattern").at("id"), "blip");
  EXPECT_EQ(one.at("threshold"), 1.0);
  const json& x = one.at("explanation");
  EXPECT_EQ(x.at("kind"), "path");
  ASSERT_EQ(x.at("steps").size(), 2u) << x.dump();
  EXPECT_EQ(x["steps"][0][0], 2);
  EXPECT_EQ(x["steps"][1][1], 2);
  const double distance = one.at("distance");
  EXPECT_GT(distance, 0.0);
  EXPECT_EQ(std::bit_cast<std::uint32_t>(x.at("total").get<float>()),
            std::bit_cast<std::uint32_t>(static_cast<float>(distance)))
      << x.at("total") << " vs " << distance;

  const HttpReply svg = request(port, "GET", "/api/v1/events/" + id + "/plot.svg", read_token);
  EXPECT_EQ(svg.status, 200);
  EXPECT_EQ(svg.headers.at("content-type"), "image/svg+xml");
  EXPECT_NE(svg.body.find("<svg"), std::string::npos) << svg.body.substr(0, 200);
  EXPECT_NE(svg.body.find("</svg>"), std::string::npos);

  EXPECT_EQ(problem_field(request(port, "GET", "/api/v1/events/nope", read_token), 404), "id");
  EXPECT_EQ(problem_field(request(port, "GET", "/api/v1/events?limit=1001", read_token), 400),
            "limit");
  EXPECT_EQ(problem_field(request(port, "GET", "/api/v1/events?since=soon", read_token), 400),
            "since");
}

TEST_F(HttpApiRoutes, SamplesOfAStreamSinceATime) {
  const int port = d_->port();
  const json all = get_json(port, "/api/v1/streams/s1/samples");
  EXPECT_EQ(all.at("first_index"), 0);
  EXPECT_EQ(all.at("times_ns").size(), 8u);
  EXPECT_EQ(all.at("values")[2][0], 5.25);
  const json later = get_json(
      port, "/api/v1/streams/s1/samples?limit=2&since=" + std::to_string(kT0 + 4 * kPeriod));
  EXPECT_EQ(later.at("first_index"), 5) << later.dump();
  EXPECT_EQ(later.at("times_ns").size(), 2u);
  EXPECT_EQ(problem_field(request(port, "GET", "/api/v1/streams/nope/samples", read_token), 404),
            "id");
  EXPECT_EQ(
      problem_field(request(port, "GET", "/api/v1/streams/s1/samples?limit=0", read_token), 400),
      "limit");
  // The streams list with each stream's newest samples (the console's sparklines).
  const json page = get_json(port, "/api/v1/streams?recent=3");
  ASSERT_EQ(page.at("streams").size(), 1u) << page.dump();
  EXPECT_EQ(page["streams"][0].at("recent"), (std::vector<float>{0, 0, 0})) << page.dump();
  const json more = get_json(port, "/api/v1/streams?recent=1000");
  ASSERT_EQ(more["streams"][0].at("recent").size(), 8u) << more.dump();
  EXPECT_EQ(more["streams"][0]["recent"][3], -4.5);
  EXPECT_FALSE(get_json(port, "/api/v1/streams")["streams"][0].contains("recent"));
  EXPECT_EQ(problem_field(request(port, "GET", "/api/v1/streams?recent=1001", read_token), 400),
            "recent");
}

TEST_F(HttpApiRoutes, PutWithIfMatchIsMatchedAndAStaleETagIs409AndAReadTokenIs403) {
  const int port = d_->port();
  const std::string target = "/api/v1/libraries/shapes/patterns/blip";
  const json libraries = get_json(port, "/api/v1/libraries");
  EXPECT_EQ(libraries.at("libraries").at(0).at("patterns").at(0).at("id"), "blip");
  const HttpReply got = request(port, "GET", target, read_token);
  ASSERT_EQ(got.status, 200) << got.body;
  const std::string etag = got.headers.at("etag");
  EXPECT_FALSE(etag.empty());

  const std::string body = R"({"values": [9, -9, 9]})";
  EXPECT_EQ(request(port, "PUT", target, read_token, body, etag).status, 403);
  EXPECT_EQ(problem_field(request(port, "PUT", target, write_token, "{nope", etag), 400), "body");
  const HttpReply put = request(port, "PUT", target, write_token, body, etag);
  ASSERT_EQ(put.status, 200) << put.body;
  EXPECT_NE(put.headers.at("etag"), etag) << "a new definition, a new ETag";
  EXPECT_EQ(json::parse(put.body).at("origin"), "overlay");
  const HttpReply stale = request(port, "PUT", target, write_token, R"({"values": [1, 2]})", etag);
  EXPECT_EQ(stale.status, 409) << stale.body;

  // The pattern as put is matched from then on: an occurrence of [9, -9, 9] is reported.
  d_->push.send("s1", stream::encode_frame(samples_at(8, {0, 9, -9, 9, 0, 0, 0, 0}), false));
  ASSERT_TRUE(d_->wait_for_events(2)) << d_->log.joined();
  const json events = get_json(port, "/api/v1/events?pattern=blip&limit=1");
  ASSERT_EQ(events.at("events").size(), 1u);
  EXPECT_EQ(events["events"][0].at("start_index"), 9) << events.dump();
  EXPECT_EQ(events["events"][0].at("distance"), 0.0);

  // A name that is not UTF-8 (%FF decoded) is quoted with U+FFFD, not a failed answer.
  const HttpReply bad = request(port, "GET", "/api/v1/libraries/%FF/patterns/x", read_token);
  EXPECT_EQ(bad.status, 404) << bad.body;
  EXPECT_NE(json::parse(bad.body).at("detail").get<std::string>().find("\xEF\xBF\xBD"),
            std::string::npos)
      << bad.body;

  const json changes = get_json(port, "/api/v1/changes").at("changes");
  ASSERT_GE(changes.size(), 1u);
  EXPECT_EQ(changes.at(0).at("who"), "writer") << changes.dump();
}

TEST_F(HttpApiRoutes, WarpwatchExplainPrintsThePathAndWritesThePlot) {
  const int port = d_->port();
  const json list = get_json(port, "/api/v1/events");
  ASSERT_EQ(list.at("events").size(), 1u);
  const std::string id = list["events"][0].at("id");
  const std::string token_file = dir_.write("token", std::string(read_token) + "\n");
  const std::string plot = dir_.path() + "/plot.svg";
  const std::string url = "http://127.0.0.1:" + std::to_string(port);
  const CliResult r =
      run_cli({"explain", id, "--url", url, "--token-file", token_file, "-o", plot});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("event " + id), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("threshold 1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("explanation: path, 2 steps"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  total "), std::string::npos) << r.out;
  EXPECT_NE(files::read_whole_file(plot).find("<svg"), std::string::npos);

  const CliResult unknown = run_cli({"explain", "nope", "--url", url, "--token-file", token_file});
  EXPECT_EQ(unknown.status, 1);
  EXPECT_NE(unknown.err.find("404 no stored event 'nope'"), std::string::npos) << unknown.err;
  // https is spoken (tests/daemon/service/test_http_server.cpp): nothing listens on port 1.
  const CliResult tls = run_cli({"explain", id, "--url", "https://127.0.0.1:1"});
  EXPECT_EQ(tls.status, 1);
  EXPECT_NE(tls.err.find("GET https://127.0.0.1:1/api/v1/events/" + id), std::string::npos)
      << tls.err;
  const CliResult ca_over_http = run_cli({"explain", id, "--url", url, "--ca-file", token_file});
  EXPECT_EQ(ca_over_http.status, 2);
  EXPECT_NE(ca_over_http.err.find("--ca-file is for an https:// --url"), std::string::npos)
      << ca_over_http.err;
  const CliResult ftp = run_cli({"explain", id, "--url", "ftp://127.0.0.1:1"});
  EXPECT_EQ(ftp.status, 2);
  EXPECT_NE(ftp.err.find("must start with http:// or https://"), std::string::npos) << ftp.err;
}

// The console (daemon/service/console/): its files need no token (the page asks for one),
// carry a Content Security Policy of this origin only and an ETag that revalidates to 304.
TEST_F(HttpApiRoutes, ConsoleFilesAreServedWithoutATokenWithCspAndEtag) {
  const int port = d_->port();
  HttpCall page;
  page.target = "/";
  const HttpReply index = http_call(port, page);
  ASSERT_EQ(index.status, 200) << index.body;
  EXPECT_EQ(index.headers.at("content-type"), "text/html; charset=utf-8");
  EXPECT_NE(index.body.find("<script src=\"app.js\" defer></script>"), std::string::npos);
  const std::string csp = index.headers.at("content-security-policy");
  EXPECT_NE(csp.find("default-src 'none'"), std::string::npos) << csp;
  EXPECT_NE(csp.find("script-src 'self';"), std::string::npos) << csp;
  EXPECT_EQ(csp.find("unsafe"), std::string::npos) << csp;
  const std::string etag = index.headers.at("etag");
  EXPECT_EQ(etag.size(), 18u) << etag;

  page.headers["If-None-Match"] = etag;
  const HttpReply again = http_call(port, page);
  EXPECT_EQ(again.status, 304);
  EXPECT_EQ(again.body, "");

  HttpCall js;
  js.target = "/dygraph.min.js";
  const HttpReply dygraphs = http_call(port, js);
  ASSERT_EQ(dygraphs.status, 200);
  EXPECT_EQ(dygraphs.headers.at("content-type"), "text/javascript; charset=utf-8");
  EXPECT_EQ(dygraphs.body.rfind("/*! @license", 0), 0u);
  EXPECT_NE(dygraphs.headers.at("etag"), etag);

  HttpCall console;
  console.target = "/console.json";
  EXPECT_EQ(json::parse(http_call(port, console).body), json({{"tokens_required", true}}));
}

// GET /api/v1/status: the counters of the one stream fed in SetUp (8 samples, one event).
TEST_F(HttpApiRoutes, StatusCountsTheSamplesRoundsAndEvents) {
  const int port = d_->port();
  const json s = get_json(port, "/api/v1/status");
  EXPECT_EQ(s.at("samples_in"), 8) << s.dump();
  EXPECT_EQ(s.at("samples_rejected"), 0);
  EXPECT_EQ(s.at("events"), 1);
  EXPECT_GE(s.at("samples_matched").get<int>(), 4);
  EXPECT_GE(s.at("rounds").get<int>(), 1);
  EXPECT_EQ(s.at("backend"), "cpu");
  EXPECT_EQ(s.at("instance"), "wire");
  EXPECT_EQ(s.at("streams"), 1);
  EXPECT_EQ(s.at("patterns"), 1);
  EXPECT_EQ(s.at("sinks"), json::array());
  EXPECT_GT(s.at("time_ns").get<std::int64_t>(), 0);
  EXPECT_GE(s.at("uptime_seconds").get<double>(), 0.0);
  EXPECT_TRUE(s.at("cuda").contains("devices"));

  HttpCall anonymous;
  anonymous.target = "/api/v1/status";
  EXPECT_EQ(problem_field(http_call(port, anonymous), 401), "Authorization");
}

// ---- POST /api/v1/learn and /api/v1/backtest (job_routes.cpp)

constexpr std::size_t kShape = 20;  // samples of the planted shape
constexpr std::size_t kPlanted[] = {100, 350, 600, 850, 1100};
constexpr std::size_t kHistory = 1400;  // samples sent before learning
constexpr std::size_t kNext = 1500;     // where the next occurrence goes

float shape_at(std::size_t i) {  // a bump of height 3
  return 3.0f * static_cast<float>(std::sin(3.14159265358979 * static_cast<double>(i) /
                                            static_cast<double>(kShape - 1)));
}

std::int64_t time_of(std::size_t index) {
  return kT0 + static_cast<std::int64_t>(index) * kPeriod;
}

// Samples [first, first + n) of s1: small noise, the shape at the planted places (with
// noise) and, from kNext on, at kNext (without).
std::vector<float> planted(std::size_t first, std::size_t n) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> noise(-0.05f, 0.05f);
  std::vector<float> all(first + n);
  for (float& x : all) x = noise(rng);
  for (const std::size_t at : kPlanted)
    for (std::size_t i = 0; i < kShape && at + i < all.size(); ++i) all[at + i] += shape_at(i);
  for (std::size_t i = 0; i < kShape && kNext + i < all.size(); ++i) all[kNext + i] = shape_at(i);
  return {all.begin() + static_cast<std::ptrdiff_t>(first), all.end()};
}

json range_json(std::size_t at) {
  return {{"stream", "s1"}, {"from", time_of(at)}, {"to", time_of(at + kShape - 1)}};
}

json learn_body() {
  json examples = json::array();
  for (const std::size_t at : kPlanted) examples.push_back(range_json(at));
  return {{"examples", examples}};
}

class HttpJobRoutes : public DaemonTest {
 protected:
  void SetUp() override {
    start();
    send(0, kHistory);
  }
  // Samples [first, first + n) sent in frames of 200, then waited for (bounded) in history.
  void send(std::size_t first, std::size_t n) {
    const std::vector<float> values = planted(first, n);
    for (std::size_t at = 0; at < n; at += 200) {
      const std::size_t k = std::min<std::size_t>(200, n - at);
      d_->push.send("s1", stream::encode_frame(
                              samples_at(first + at, {values.begin() + static_cast<long>(at),
                                                      values.begin() + static_cast<long>(at + k)}),
                              false));
    }
    const auto deadline = Clock::now() + scaled(5000ms);
    while (Clock::now() < deadline) {
      const auto h = d_->pipeline.history().samples("s1", std::nullopt, 100000);
      if (h && h->first_index + h->count() >= first + n) return;
      std::this_thread::sleep_for(10ms);
    }
    FAIL() << "the history did not reach sample " << first + n << "\n" << d_->log.joined();
  }
  HttpReply post(const std::string& route, const json& body, const char* token = write_token) {
    return request(d_->port(), "POST", route, token, body.dump());
  }
  // The Matcher (cpu backend) over s1's whole history with `pattern`, fed in one chunk:
  // what the backtest must equal.
  std::vector<kernels::RawMatch> matcher_over_history(const kernels::PatternDef& pattern) {
    const auto h = d_->pipeline.history().samples("s1", std::nullopt, 100000);
    EXPECT_TRUE(h && h->first_index == 0);
    auto m = kernels::make_matcher(kernels::Backend::cpu);
    m->add_pattern(pattern);
    m->add_stream(kernels::StreamDef{"s1", 1, kPeriod});
    const kernels::StreamChunk chunk{"s1", h->values, h->times_ns};
    auto out = m->process({&chunk, 1});
    for (auto& r : m->remove_stream("s1")) out.push_back(std::move(r));
    return out;
  }
};

TEST_F(HttpJobRoutes, LearntPatternPutThroughTheApiReportsTheNextOccurrence) {
  const auto started = Clock::now();
  const HttpReply r = post("/api/v1/learn", learn_body());
  ASSERT_EQ(r.status, 200) << r.body;
  const json learnt = json::parse(r.body);
  EXPECT_EQ(learnt.at("examples"), 5);
  EXPECT_GT(learnt.at("negative_samples").get<std::size_t>(), kHistory - 5 * kShape - 200)
      << "the history outside the examples";
  EXPECT_LE(learnt.at("negative_samples").get<std::size_t>(), kHistory - 5 * kShape);
  ASSERT_FALSE(learnt.at("table").empty());
  const json& chosen = learnt["table"][learnt.at("chosen_row").get<std::size_t>()];
  EXPECT_EQ(chosen.at("threshold"), learnt.at("threshold"));
  EXPECT_EQ(chosen.at("recall"), 1.0) << learnt.dump();
  EXPECT_EQ(chosen.at("false_alarms"), 0) << learnt.dump();
  const json& pattern = learnt.at("pattern");
  EXPECT_EQ(pattern.at("threshold"), learnt.at("threshold"));
  EXPECT_EQ(pattern.at("values").size(), kShape);
  EXPECT_EQ(pattern.at("mode"), learnt.at("settings").at("mode"));
  EXPECT_LT(learnt.at("seconds").get<double>(),
            std::chrono::duration<double>(Clock::now() - started).count() + 0.001);

  // Put as it is, then the next occurrence (at kNext) is an event of it.
  const HttpReply put = request(d_->port(), "PUT", "/api/v1/libraries/shapes/patterns/learnt",
                                write_token, pattern.dump());
  ASSERT_EQ(put.status, 201) << put.body;
  send(kHistory, 200);
  const auto deadline = Clock::now() + scaled(5000ms);
  json found;
  while (Clock::now() < deadline && found.is_null()) {
    const json list = get_json(d_->port(), "/api/v1/events?pattern=learnt");
    for (const json& e : list.at("events"))
      if (e.at("start_index").get<std::size_t>() + 5 >= kNext &&
          e.at("end_index").get<std::size_t>() <= kNext + kShape + 5)
        found = e;
    std::this_thread::sleep_for(10ms);
  }
  ASSERT_FALSE(found.is_null()) << get_json(d_->port(), "/api/v1/events").dump();
  EXPECT_LE(found.at("distance").get<double>(), learnt.at("threshold").get<double>());
}

TEST_F(HttpJobRoutes, LearnNamesTheFieldOfABadBodyAnUnknownStreamAndTooFewSamples) {
  json body = learn_body();
  body["examples"][1].erase("to");
  EXPECT_EQ(problem_field(post("/api/v1/learn", body), 400), "examples[1].to");
  body = learn_body();
  body["examples"][2]["to"] = time_of(1);
  EXPECT_EQ(problem_field(post("/api/v1/learn", body), 400), "examples[2].to") << "before from";
  body = learn_body();
  body["nope"] = 1;
  EXPECT_EQ(problem_field(post("/api/v1/learn", body), 400), "nope");
  body = learn_body();
  body["target"] = {{"recall", 2}};
  EXPECT_EQ(problem_field(post("/api/v1/learn", body), 400), "target.recall");
  body = learn_body();
  body["mode"] = "stream";
  body["znorm"] = true;
  EXPECT_EQ(problem_field(post("/api/v1/learn", body), 400), "znorm");
  EXPECT_EQ(problem_field(request(d_->port(), "POST", "/api/v1/learn", write_token, "[1]"), 400),
            "body");
  body = learn_body();
  body["examples"][3]["stream"] = "nope";
  EXPECT_EQ(problem_field(post("/api/v1/learn", body), 404), "examples[3].stream");
  body = learn_body();
  body["examples"][0]["to"] = time_of(kPlanted[0] + 1);  // 2 samples
  EXPECT_EQ(problem_field(post("/api/v1/learn", body), 422), "examples[0].to");
  body = learn_body();
  body["negatives"] = json::array({range_json(10)});
  body["negatives"][0]["to"] = time_of(12);  // fewer than an example
  EXPECT_EQ(problem_field(post("/api/v1/learn", body), 422), "negatives[0].to");
  EXPECT_EQ(problem_field(post("/api/v1/learn", learn_body(), read_token), 403), "Authorization");
}

TEST_F(HttpJobRoutes, BacktestEqualsTheMatcherOverTheSameSamplesAndTakesAThreshold) {
  const HttpReply r = post("/api/v1/learn", learn_body());
  ASSERT_EQ(r.status, 200) << r.body;
  const json pattern = json::parse(r.body).at("pattern");
  // A candidate (read token: the backtest changes nothing), over every stream by default.
  const HttpReply bt = post("/api/v1/backtest", {{"pattern", pattern}}, read_token);
  ASSERT_EQ(bt.status, 200) << bt.body;
  const json got = json::parse(bt.body);
  const auto def = d_->editor->candidate("shapes", "candidate", pattern);
  ASSERT_TRUE(def.pattern) << def.problem.problem_detail;
  const auto expected = matcher_over_history(*def.pattern);
  ASSERT_EQ(got.at("total"), expected.size()) << got.dump();
  ASSERT_GE(expected.size(), 5u) << "the planted occurrences at least";
  EXPECT_EQ(got.at("samples"), kHistory);
  EXPECT_EQ(got.at("from_ns"), time_of(0));
  EXPECT_EQ(got.at("to_ns"), time_of(kHistory - 1));
  const json& events = got.at("events");
  ASSERT_EQ(events.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {  // newest first
    const json& e = events[expected.size() - 1 - i];
    EXPECT_EQ(e.at("stream"), "s1");
    EXPECT_EQ(e.at("start_index"), expected[i].start_index);
    EXPECT_EQ(e.at("end_index"), expected[i].end_index);
    EXPECT_EQ(e.at("start_ns"), expected[i].start_ns);
    EXPECT_EQ(std::bit_cast<std::uint64_t>(e.at("distance").get<double>()),
              std::bit_cast<std::uint64_t>(expected[i].distance))
        << e.at("distance") << " vs " << expected[i].distance;
  }

  // A threshold override: the Matcher's count with that threshold (the planted ones' middle
  // distance: some of them only); 0 finds nothing here.
  std::vector<double> distances;
  for (const auto& m : expected) distances.push_back(m.distance);
  std::sort(distances.begin(), distances.end());
  kernels::PatternDef narrower = *def.pattern;
  narrower.params.threshold = distances[distances.size() / 2];
  const json more = json::parse(
      post("/api/v1/backtest",
           {{"stream", "s1"}, {"pattern", pattern}, {"threshold", narrower.params.threshold}})
          .body);
  EXPECT_EQ(more.at("total"), matcher_over_history(narrower).size());
  EXPECT_LT(more.at("total").get<std::size_t>(), expected.size());
  EXPECT_GT(more.at("total").get<std::size_t>(), 0u);
  EXPECT_EQ(more.at("threshold"), narrower.params.threshold);
  EXPECT_EQ(json::parse(post("/api/v1/backtest", {{"stream", "s1"},  // named twice: run once
                                                  {"streams", json::array({"s1", "s1"})},
                                                  {"pattern", pattern},
                                                  {"threshold", 0}})
                            .body)
                .at("total"),
            0);
  const json twice =
      json::parse(post("/api/v1/backtest",
                       {{"stream", "s1"}, {"streams", json::array({"s1"})}, {"pattern", pattern}})
                      .body);
  EXPECT_EQ(twice.at("total"), expected.size()) << "s1 named twice is run once";
  EXPECT_EQ(twice.at("samples"), kHistory);
  // A time range: the planted ones before sample 400 only (those at 100 and 350).
  const json early = json::parse(
      post("/api/v1/backtest", {{"stream", "s1"}, {"pattern", pattern}, {"to", time_of(399)}})
          .body);
  EXPECT_EQ(early.at("to_ns"), time_of(399));
  EXPECT_EQ(early.at("samples"), 400);
  for (const json& e : early.at("events")) EXPECT_LE(e.at("end_index").get<std::size_t>(), 399u);

  // A pattern in effect by library and id.
  const json blip = json::parse(
      post("/api/v1/backtest", {{"stream", "s1"}, {"library", "shapes"}, {"id", "blip"}}).body);
  EXPECT_EQ(blip.at("total"), matcher_over_history(*d_->editor->pattern("shapes", "blip")).size());
  EXPECT_EQ(problem_field(post("/api/v1/backtest", {{"library", "shapes"}, {"id", "nope"}}), 404),
            "id");
  EXPECT_EQ(
      problem_field(post("/api/v1/backtest", {{"stream", "nope"}, {"pattern", pattern}}), 404),
      "stream");
  json bad = pattern;
  bad["values"][3] = json::array({1.0, 2.0});  // a row of 2 in a pattern of 1 dim
  EXPECT_EQ(problem_field(post("/api/v1/backtest", {{"pattern", bad}}), 400).rfind("pattern.", 0),
            0u);
  EXPECT_EQ(problem_field(post("/api/v1/backtest", {{"id", "blip"}}), 400), "library");
}

TEST_F(HttpJobRoutes, ASecondJobOfAKindWhileOneRunsIs429WithRetryAfter) {
  const json body = {{"library", "shapes"}, {"id", "blip"}};
  {
    const std::lock_guard running(service::http::job_slots().backtest);  // one runs
    const HttpReply busy = post("/api/v1/backtest", body);
    EXPECT_EQ(busy.status, 429) << busy.body;
    EXPECT_EQ(busy.headers.count("retry-after"), 1u);
    const HttpReply learn =
        post("/api/v1/learn", json{{"examples", json::array({range_json(100)})}});
    EXPECT_EQ(learn.status, 200) << "a learn is another kind: it runs. " << learn.body;
  }
  EXPECT_EQ(post("/api/v1/backtest", body).status, 200);
  const std::lock_guard running(service::http::job_slots().learn);
  const HttpReply busy = post("/api/v1/learn", learn_body());
  EXPECT_EQ(busy.status, 429) << busy.body;
  EXPECT_EQ(busy.headers.at("retry-after"), "5");
}

}  // namespace
