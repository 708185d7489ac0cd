// LibraryEditor (daemon/service/edit/): runtime changes of libraries applied to a running
// Pipeline, its scheduler on its own thread as in warpwatchd, fed over its PULL socket;
// the overlay persisted in state.dir, shown by check-config and folded into the file.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <latch>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "cli_test_support.hpp"
#include "daemon_e2e_support.hpp"
#include "log_capture.hpp"
#include "test_support.hpp"
#include "warpwatch/files/files.hpp"
#include "warpwatch/plugins/registry.hpp"
#include "warpwatch/service/library_editor.hpp"

namespace {

using namespace warpwatch;
using namespace warpwatch::testing;
using nlohmann::json;

// One 1-dim stream and one 2-dim stream, the library `shapes` with `blip` (and more
// patterns when given), state.dir `state` (or none).
std::string config_text(const std::string& more_patterns = "", bool state = true) {
  return std::string(
             "instance: edit\nbackend: cpu\ncpu_threads: 1\nscheduler: {tick_ms: 5}\n"
             "ingest:\n  - pull: \"tcp://127.0.0.1:*\"\n"
             "streams:\n  declared:\n"
             "    - {id: s1, dims: 1, period_ms: 10}\n"
             "    - {id: s2, dims: 2, period_ms: 10}\n") +
         (state ? "state: {dir: state, checkpoint_ms: 0}\n" : "") +
         "libraries:\n  - name: shapes\n    defaults: {metric: dtw, mode: stream, threshold: 1}\n"
         "    patterns:\n      - {id: blip, values: [5, -5]}\n" +
         more_patterns + "publish: {endpoint: \"tcp://127.0.0.1:*\"}\n";
}

// The scheduler's loop on its own thread, as warpwatchd runs it: the editor's changes are
// served there (Pipeline::step serves the scheduler's requests).
class Scheduler {
 public:
  explicit Scheduler(service::Pipeline& p)
      : thread_([&p](const std::stop_token& stop) {
          while (!stop.stop_requested()) p.step();
        }) {}
  void stop() {
    thread_.request_stop();
    if (thread_.joinable()) thread_.join();
  }
  ~Scheduler() { stop(); }

 private:
  std::jthread thread_;
};

// Waits (bounded) until `done`, reading events meanwhile.
template <class Done>
bool wait_until(Done done, Subscriber& sub, std::chrono::milliseconds limit = 5000ms) {
  const auto deadline = Clock::now() + scaled(limit);
  while (Clock::now() < deadline) {
    sub.wait_for(sub.events.size() + 1, 20ms);
    if (done()) return true;
  }
  return false;
}

service::PatternChange change(const std::string& id, std::string if_match = "",
                              std::optional<json> definition = std::nullopt) {
  service::PatternChange c;
  c.library = "shapes";
  c.pattern = id;
  c.definition = std::move(definition);
  c.if_match = std::move(if_match);
  c.who = "alice";
  return c;
}

struct Daemon {
  explicit Daemon(const std::string& path)
      : pipeline(service::load_with_overlay(path), log.logger()),
        editor(pipeline, path, log.logger()),
        sub(ctx, pipeline.publish_endpoint()),
        push(ctx, pipeline.ingest_endpoints().at(0)) {
    pipeline.start();
  }
  CapturedLog log;
  service::Pipeline pipeline;
  service::LibraryEditor editor;
  zmq::context_t ctx;
  Subscriber sub;
  Producer push;
};

// A pattern put while samples flow is matched from then on; `blip`, unchanged, keeps its
// state across the change: a blip that straddles the change is reported, once, and every
// sample is matched exactly once.
TEST(LibraryEditor, PutPatternIsMatchedAndOtherPairsKeepTheirState) {
  TempDir dir;
  const std::string path = dir.write("warpwatch.yaml", config_text());
  Daemon d(path);
  Scheduler scheduler(d.pipeline);
  d.push.send("s1", stream::encode_frame(samples_at(0, {0, 0, 5}), false));  // blip's first half
  ASSERT_TRUE(wait_until([&] { return d.pipeline.stats().samples == 3; }, d.sub)) << d.log.joined();

  const service::ChangeResult put = d.editor.put(change("spike", "", json{{"values", {9, -9, 9}}}));
  ASSERT_EQ(put.status, 201) << put.problem_field << ": " << put.problem_detail;
  EXPECT_FALSE(put.etag.empty());
  EXPECT_EQ(put.body.at("origin"), "overlay");
  EXPECT_EQ(put.body.at("threshold"), 1.0) << "the library's defaults apply";
  EXPECT_EQ(d.log.count("patterns added: 'spike'"), 1u) << d.log.joined();

  d.push.send("s1", stream::encode_frame(samples_at(3, {-5, 0, 9, -9, 9, 0}), false));
  ASSERT_TRUE(wait_until([&] { return d.sub.events.size() >= 2; }, d.sub)) << d.log.joined();
  scheduler.stop();
  const service::PipelineSummary summary = d.pipeline.shutdown();
  d.sub.wait_for(3, 200ms);
  EXPECT_EQ(event_spans(d.sub.events),
            (std::vector<std::string>{"s1/blip [2,3]", "s1/spike [5,7]"}));
  EXPECT_EQ(summary.samples, 9u) << "no sample lost or matched twice";
  EXPECT_EQ(summary.unmatched, 0u);
  EXPECT_EQ(summary.events, 2u);
  EXPECT_EQ(d.pipeline.stats().reloads, 1u);
}

// Replace, threshold and delete, each with If-Match; missing and stale ETags refused; every
// change logged with who, what and the ETags; the history newest first.
TEST(LibraryEditor, ThresholdReplaceAndDeleteNeedTheCurrentEtag) {
  TempDir dir;
  const std::string path = dir.write("warpwatch.yaml", config_text());
  Daemon d(path);
  Scheduler scheduler(d.pipeline);
  const service::ChangeResult before = d.editor.get("shapes", "blip");
  ASSERT_EQ(before.status, 200);
  EXPECT_EQ(before.body.at("origin"), "files");
  EXPECT_EQ(before.body.at("values"), json::parse("[[5.0], [-5.0]]"));
  EXPECT_EQ(before.etag, service::LibraryEditor::etag_of(
                             d.pipeline.config().live.libraries.at(0).patterns.at(0)));

  auto threshold = change("blip");
  threshold.threshold = 0.5;
  EXPECT_EQ(d.editor.set_threshold(threshold).status, 428);
  threshold.if_match = "\"0123\"";
  const service::ChangeResult stale = d.editor.set_threshold(threshold);
  EXPECT_EQ(stale.status, 409);
  EXPECT_NE(stale.problem_detail.find(before.etag), std::string::npos) << stale.problem_detail;
  threshold.if_match = before.etag;
  const service::ChangeResult set = d.editor.set_threshold(threshold);
  ASSERT_EQ(set.status, 200) << set.problem_detail;
  EXPECT_NE(set.etag, before.etag);
  EXPECT_EQ(d.editor.get("shapes", "blip").body.at("threshold"), 0.5);
  EXPECT_EQ(d.pipeline.config().live.libraries.at(0).patterns.at(0).params.threshold, 0.5);
  EXPECT_EQ(d.log.count("library change by 'alice': threshold library 'shapes' pattern 'blip': "
                        "etag " +
                        before.etag + " -> " + set.etag + " (200)"),
            1u)
      << d.log.joined();

  // Replaced: the new values are matched, the library's threshold applies again.
  EXPECT_EQ(d.editor.put(change("blip", before.etag, json{{"values", {4, -4}}})).status, 409)
      << "the ETag before the threshold change is stale";
  const service::ChangeResult replaced =
      d.editor.put(change("blip", set.etag, json{{"values", {4, -4}}}));
  ASSERT_EQ(replaced.status, 200) << replaced.problem_detail;
  d.push.send("s1", stream::encode_frame(samples_at(0, {0, 4, -4, 0}), false));
  ASSERT_TRUE(wait_until([&] { return d.sub.events.size() == 1; }, d.sub)) << d.log.joined();
  EXPECT_EQ(event_spans(d.sub.events), std::vector<std::string>{"s1/blip [1,2]"});
  EXPECT_EQ(d.sub.events.at(0).event.at("threshold"), 1.0);

  // Deleted: no more blips.
  EXPECT_EQ(d.editor.remove(change("blip")).status, 428);
  const service::ChangeResult removed = d.editor.remove(change("blip", replaced.etag));
  EXPECT_EQ(removed.status, 204) << removed.problem_detail;
  EXPECT_EQ(d.editor.get("shapes", "blip").status, 404);
  EXPECT_EQ(d.editor.remove(change("blip", replaced.etag)).status, 404);
  EXPECT_EQ(d.editor.libraries().at("removed"),
            json::parse(R"([{"library": "shapes", "pattern": "blip"}])"));
  d.push.send("s1", stream::encode_frame(samples_at(4, {4, -4, 0, 5, -5, 0}), false));
  ASSERT_TRUE(wait_until([&] { return d.pipeline.stats().samples == 10; }, d.sub));
  scheduler.stop();
  d.pipeline.shutdown();
  d.sub.wait_for(2, 200ms);
  EXPECT_EQ(d.sub.events.size(), 1u) << "a deleted pattern matches nothing";

  const json history = d.editor.history().at("changes");
  ASSERT_EQ(history.size(), 8u) << history.dump();
  EXPECT_EQ(history.at(0).at("status"), 404);
  EXPECT_EQ(history.at(1).at("what"), "remove");
  EXPECT_EQ(history.at(1).at("old_etag"), replaced.etag);
  EXPECT_EQ(history.at(1).at("who"), "alice");
  EXPECT_EQ(history.back().at("status"), 428);
}

// A body the configuration refuses: 400 naming the field, nothing changed.
TEST(LibraryEditor, BadBodiesNameTheField) {
  TempDir dir;
  const std::string path = dir.write("warpwatch.yaml", config_text());
  Daemon d(path);
  Scheduler scheduler(d.pipeline);
  const double inf = std::numeric_limits<double>::infinity();
  const struct {
    json body;
    std::string field, detail;
  } cases[] = {
      {json{{"values", {{1, 1}, {2, 2}, {3, 3}, {inf, 0}}}}, "values[3][0]",
       "must be a finite number"},
      {json{{"values", {1, 2}}, {"treshold", 2}}, "treshold", "threshold"},
      {json{{"values", {{1, 2, 3}, {4, 5, 6}}}}, "values", "3 dims, which no stream has"},
      {json{{"values", {1, 2}}, {"threshold", "high"}}, "threshold", "number"},
      {json{{"values", {1, 2}}, {"metric", "dtww"}}, "metric", "dtw"},
      {json{{"values", {1, 2}}, {"file", "/etc/passwd"}}, "file", "values"},
      {json{{"values", {1}}}, "values", "at least 2"},
  };
  for (const auto& c : cases) {
    const service::ChangeResult r = d.editor.put(change("bad", "", c.body));
    EXPECT_EQ(r.status, 400) << c.body.dump();
    EXPECT_EQ(r.problem_field, c.field) << c.body.dump() << ": " << r.problem_detail;
    EXPECT_NE(r.problem_detail.find(c.detail), std::string::npos)
        << c.body.dump() << ": " << r.problem_detail;
  }
  EXPECT_EQ(d.editor.get("shapes", "bad").status, 404);
  EXPECT_EQ(d.editor.put(change("x", "", json{{"values", {1, 2}}})).status, 201);
  auto unknown = change("x", "", json{{"values", {1, 2}}});
  unknown.library = "nope";
  EXPECT_EQ(d.editor.put(unknown).status, 404);
  scheduler.stop();
  d.pipeline.shutdown();
  EXPECT_EQ(d.pipeline.stats().reloads, 1u) << "only the good change was applied";
}

// A change the configuration takes entry by entry but not as a whole (the library over
// limits.max_library_bytes): 422 with the reason, nothing changed.
TEST(LibraryEditor, ChangeRefusedAsAWholeIs422AndChangesNothing) {
  TempDir dir;
  const std::string path =
      dir.write("warpwatch.yaml", "limits: {max_library_bytes: 4096}\n" + config_text());
  Daemon d(path);
  Scheduler scheduler(d.pipeline);
  const service::ChangeResult r =
      d.editor.put(change("long", "", json{{"values", std::vector<double>(2000, 1.0)}}));
  EXPECT_EQ(r.status, 422);
  EXPECT_EQ(r.problem_field, "");
  EXPECT_NE(r.problem_detail.find("over limits.max_library_bytes (4096)"), std::string::npos)
      << r.problem_detail;
  EXPECT_EQ(d.editor.get("shapes", "long").status, 404);
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/state/overlay/libraries.json"));
  scheduler.stop();
  d.pipeline.shutdown();
  EXPECT_EQ(d.pipeline.stats().reloads, 0u);
  EXPECT_EQ(d.pipeline.config().live.libraries.at(0).patterns.size(), 1u);
}

// Without state.dir, changes are refused (403): nothing would keep them.
TEST(LibraryEditor, ChangesNeedStateDir) {
  TempDir dir;
  const std::string path = dir.write("warpwatch.yaml", config_text("", false));
  Daemon d(path);
  const service::ChangeResult r = d.editor.put(change("x", "", json{{"values", {1, 2}}}));
  EXPECT_EQ(r.status, 403);
  EXPECT_NE(r.problem_detail.find("state.dir"), std::string::npos) << r.problem_detail;
  EXPECT_EQ(d.editor.libraries().at("persisted"), false);
  d.pipeline.shutdown();
}

// Two changes made with one ETag: exactly one applies, the other is told 409.
TEST(LibraryEditor, TwoPutsWithOneEtagOneWins) {
  TempDir dir;
  const std::string path = dir.write("warpwatch.yaml", config_text());
  Daemon d(path);
  Scheduler scheduler(d.pipeline);
  const std::string etag = d.editor.get("shapes", "blip").etag;
  std::latch start(2);
  int status[2] = {0, 0};
  std::vector<std::jthread> threads;
  for (int k = 0; k < 2; ++k)
    threads.emplace_back([&, k] {
      start.arrive_and_wait();
      status[k] = d.editor.put(change("blip", etag, json{{"values", {3 + k, -3 - k}}})).status;
    });
  threads.clear();  // joined
  std::sort(std::begin(status), std::end(status));
  EXPECT_EQ(status[0], 200);
  EXPECT_EQ(status[1], 409);
  EXPECT_NE(d.editor.get("shapes", "blip").etag, etag);
  scheduler.stop();
  d.pipeline.shutdown();
  EXPECT_EQ(d.pipeline.stats().reloads, 1u);
}

// The overlay outlives the process (a new Pipeline on the same state.dir) and a reload of
// a changed file (SIGHUP keeps the runtime changes).
TEST(LibraryEditor, OverlaySurvivesRestartAndReload) {
  TempDir dir;
  const std::string path = dir.write("warpwatch.yaml", config_text());
  std::string spike_etag, blip_etag;
  {
    Daemon d(path);
    Scheduler scheduler(d.pipeline);
    spike_etag = d.editor
                     .put(change("spike", "",
                                 json::parse(R"({"values": [[9], [-9], [9]], "threshold": 2})")))
                     .etag;
    auto t = change("blip", d.editor.get("shapes", "blip").etag);
    t.threshold = 0.25;
    blip_etag = d.editor.set_threshold(t).etag;
    ASSERT_FALSE(spike_etag.empty());
    ASSERT_FALSE(blip_etag.empty());
    scheduler.stop();
    d.pipeline.shutdown();
  }
  const std::string overlay = (std::filesystem::path(dir.path()) / "state/overlay/libraries.json");
  ASSERT_TRUE(std::filesystem::exists(overlay));
  const json saved = json::parse(files::read_whole_file(overlay));
  EXPECT_EQ(saved.at("libraries").at("shapes").at("blip"), json::parse(R"({"threshold": 0.25})"));

  Daemon d(path);  // restarted
  EXPECT_EQ(d.editor.get("shapes", "spike").etag, spike_etag);
  EXPECT_EQ(d.editor.get("shapes", "spike").body.at("origin"), "overlay");
  EXPECT_EQ(d.editor.get("shapes", "blip").etag, blip_etag);

  // The file gains a pattern; a reload (SIGHUP, on the scheduler's thread) keeps the overlay.
  dir.write("warpwatch.yaml", config_text("      - {id: ramp, values: [0, 1, 2]}\n"));
  ASSERT_TRUE(d.editor.reload()) << d.log.joined();
  EXPECT_EQ(d.editor.get("shapes", "ramp").status, 200);
  EXPECT_EQ(d.editor.get("shapes", "spike").etag, spike_etag);
  EXPECT_EQ(d.editor.get("shapes", "blip").etag, blip_etag);
  // Pipeline::reload(path) (the file given) keeps it too.
  ASSERT_TRUE(d.pipeline.reload(path)) << d.log.joined();
  std::vector<std::string> ids;
  for (const auto& p : d.pipeline.config().live.libraries.at(0).patterns) ids.push_back(p.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"blip", "ramp", "spike"}));
  d.pipeline.shutdown();
}

// check-config shows the overlay and validates the file with it; `overlay fold` writes it
// into the file (values into CSVs beside it) and clears it; the file then loads to the same
// libraries.
TEST(LibraryEditor, CheckConfigShowsTheOverlayAndFoldWritesItIntoTheFile) {
  TempDir dir;
  const std::string path =
      dir.write("warpwatch.yaml", config_text("      - {id: dip, values: [-3, 3]}\n"
                                              "      - {id: ramp, values: [0, 1, 2]}\n"));
  {
    Daemon d(path);
    Scheduler scheduler(d.pipeline);
    ASSERT_EQ(d.editor.put(change("spike", "", json{{"values", {{9, 1}, {-9, 1}, {9, 1}}}})).status,
              201);
    ASSERT_EQ(d.editor.remove(change("dip", d.editor.get("shapes", "dip").etag)).status, 204);
    auto t = change("ramp", d.editor.get("shapes", "ramp").etag);
    t.threshold = 3;
    ASSERT_EQ(d.editor.set_threshold(t).status, 200);
    scheduler.stop();
    d.pipeline.shutdown();
  }
  const config::DaemonConfig in_effect = service::load_with_overlay(path);
  const std::string overlay = dir.path() + "/state/overlay/libraries.json";

  const CliResult check = run_cli({"check-config", path});
  EXPECT_EQ(check.status, 0) << check.err;
  EXPECT_NE(check.out.find("shapes: 3 patterns"), std::string::npos) << check.out;
  EXPECT_NE(check.out.find("overlay " + overlay +
                           " (3)\n  shapes/dip: removed\n"
                           "  shapes/ramp: threshold 3.0\n  shapes/spike: put (adds a pattern)\n"),
            std::string::npos)
      << check.out;
  // The overlay of another state directory, and a bad one: named, exit 1.
  TempDir other;
  const CliResult none = run_cli({"check-config", path, "--state-dir", other.path()});
  EXPECT_NE(none.out.find("overlay: none in"), std::string::npos) << none.out;
  std::filesystem::create_directories(other.path() + "/overlay");
  other.write("overlay/libraries.json",
              R"({"format": "warpwatch library overlay 1", "libraries": {"shapes": )"
              R"({"w": {"put": {"values": [1, 2], "band": -1}}}}})");
  const CliResult bad = run_cli({"check-config", path, "--state-dir", other.path()});
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find("library 'shapes' pattern 'w' field 'band'"), std::string::npos)
      << bad.err;

  const std::string text_before = files::read_whole_file(path);
  const CliResult dry = run_cli({"overlay", "fold", "--config", path, "--dry-run"});
  EXPECT_EQ(dry.status, 0) << dry.err;
  EXPECT_NE(dry.out.find("-      - {id: dip, values: [-3, 3]}"), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find("+        file: \"patterns/shapes/spike.csv\""), std::string::npos)
      << dry.out;
  EXPECT_EQ(files::read_whole_file(path), text_before) << "--dry-run writes nothing";
  EXPECT_TRUE(std::filesystem::exists(overlay));

  const CliResult fold = run_cli({"overlay", "fold", "--config", path});
  ASSERT_EQ(fold.status, 0) << fold.err;
  EXPECT_FALSE(std::filesystem::exists(overlay));
  EXPECT_EQ(files::read_whole_file(dir.path() + "/patterns/shapes/spike.csv"), "9,1\n-9,1\n9,1\n");
  const config::DaemonConfig folded = plugins::load_daemon_config(path);
  ASSERT_EQ(folded.live.libraries.size(), 1u);
  EXPECT_EQ(folded.live.libraries.at(0).patterns, in_effect.live.libraries.at(0).patterns);
  EXPECT_EQ(service::load_with_overlay(path).live.libraries.at(0).patterns,
            in_effect.live.libraries.at(0).patterns);
  const CliResult again = run_cli({"overlay", "fold", "--config", path});
  EXPECT_NE(again.out.find("nothing to fold"), std::string::npos) << again.out;
}

}  // namespace

// Issue 38: a threshold changed and a pattern put while a stream is fed at a known rate
// (frames of 10 samples, each with a blip at 2-3 and a spike at 6-8, one frame every 2 ms from
// a thread of its own), the scheduler stepping on its own thread. Across both changes the
// counters reconcile (every sample accepted; blip, which existed before and after, matched
// every accepted sample once, by its old definition and then its new one; the new spike
// every sample accepted after it applied), each change applied within one round of its
// arrival (the rounds the history measured), and the events follow the definitions: every
// blip once with the threshold in effect at its samples, a spike for every frame after the
// put and none before.
TEST(LibraryEditor, ChangesUnderLoadApplyWithinARoundAndReconcileTheCounters) {
  TempDir dir;
  Daemon d(dir.write("warpwatch.yaml", config_text()));
  Scheduler scheduler(d.pipeline);
  constexpr std::size_t frame = 10, before = 10, during = 20, frames = before + during;
  const auto frame_at = [&](std::size_t k) {
    return stream::encode_frame(samples_at(k * frame, {0, 0, 5, -5, 0, 0, 9, -9, 9, 0}), false);
  };
  for (std::size_t k = 0; k < before; ++k) d.push.send("s1", frame_at(k));
  ASSERT_TRUE(wait_until([&] { return d.pipeline.stats().samples == before * frame; }, d.sub))
      << d.log.joined();
  std::thread feeder([&] {  // the socket is the feeder's alone from here on
    for (std::size_t k = before; k < frames; ++k) {
      d.push.send("s1", frame_at(k));
      std::this_thread::sleep_for(2ms);
    }
  });
  auto threshold = change("blip", d.editor.get("shapes", "blip").etag);
  threshold.threshold = 2.0;
  const service::ChangeResult set = d.editor.set_threshold(threshold);
  const service::ChangeResult put =
      d.editor.put(change("spike", "", json{{"values", {9, -9, 9}}, {"threshold", 1.0}}));
  feeder.join();
  ASSERT_EQ(set.status, 200) << set.problem_detail;
  ASSERT_EQ(put.status, 201) << put.problem_detail;
  ASSERT_TRUE(wait_until([&] { return d.pipeline.stats().samples == frames * frame; }, d.sub))
      << d.log.joined();
  scheduler.stop();
  const service::PipelineSummary summary = d.pipeline.shutdown();
  d.sub.wait_for(1000, 300ms);  // what the shutdown published (bounded; no more is expected)

  // The rounds, as measured: the history's entries, newest first.
  const json history = d.editor.history().at("changes");
  ASSERT_EQ(history.size(), 2u) << history.dump();
  const json& put_at = history.at(0).at("applied");
  const json& set_at = history.at(1).at("applied");
  for (const json* at : {&put_at, &set_at}) {
    EXPECT_LE(at->at("rounds_between").get<std::uint64_t>(), 1u) << at->dump();
    EXPECT_EQ(
        at->at("round_applied").get<std::uint64_t>() - at->at("round_asked").get<std::uint64_t>(),
        at->at("rounds_between").get<std::uint64_t>());
  }
  ASSERT_TRUE(put.applied && set.applied);
  EXPECT_EQ(put_at.at("samples_matched").get<std::uint64_t>(), put.applied->samples_matched);
  // Samples matched by the old definitions: a whole number of frames (the reload matched
  // everything accepted before it first), at least those matched before the feeder began.
  const std::uint64_t set_from = set.applied->samples_matched,
                      put_from = put.applied->samples_matched;
  EXPECT_GE(set_from, before * frame);
  EXPECT_GE(put_from, set_from);
  EXPECT_LE(put_from, frames * frame);
  EXPECT_EQ(set_from % frame, 0u);
  EXPECT_EQ(put_from % frame, 0u);

  // The counters: sent = accepted + rejected; each pattern's samples.
  const stream::RegistrySnapshot registry = d.pipeline.registry().snapshot();
  EXPECT_EQ(registry.accepted_samples, frames * frame);
  EXPECT_EQ(registry.rejected.total(), 0u);
  EXPECT_EQ(summary.samples, frames * frame) << "every accepted sample matched once";
  const auto patterns = d.pipeline.stats().pattern_matches;
  EXPECT_EQ(patterns.at("blip").samples, frames * frame)
      << "blip existed before and after: every sample of s1, old definition then new";
  EXPECT_EQ(patterns.at("spike").samples, frames * frame - put_from)
      << "the new pattern: every sample accepted after it applied";

  // The events: each blip once, with the threshold in effect at its samples; a spike for
  // each frame from the put on, none before.
  std::vector<std::string> expected;
  for (std::size_t k = 0; k < frames; ++k) {
    expected.push_back("s1/blip [" + std::to_string(k * frame + 2) + "," +
                       std::to_string(k * frame + 3) + "]");
    if (k * frame >= put_from)
      expected.push_back("s1/spike [" + std::to_string(k * frame + 6) + "," +
                         std::to_string(k * frame + 8) + "]");
  }
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(event_spans(d.sub.events), expected);
  for (const auto& e : d.sub.events) {
    if (e.event.at("pattern") != "blip") continue;
    EXPECT_EQ(e.event.at("threshold").get<double>(),
              e.event.at("start_index").get<std::uint64_t>() >= set_from ? 2.0 : 1.0)
        << e.event.dump();
  }
}
