// limits.max_library_bytes: the estimate of a pattern's memory (kernels::pattern_memory_bytes),
// a library over the limit refused at start with its file:line:column, and on reload with
// the running configuration kept; and limits.max_stream_rate_hz, which a reload changes live.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "daemon_e2e_support.hpp"
#include "log_capture.hpp"
#include "test_support.hpp"
#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/kernels/matcher.hpp"
#include "warpwatch/plugins/registry.hpp"
#include "warpwatch/service/pipeline.hpp"

namespace {

using namespace warpwatch;
using namespace warpwatch::testing;
using namespace std::chrono_literals;

TEST(PatternMemory, DefinitionTwiceAndWindowModesQuery) {
  kernels::PatternDef p;
  p.dims = 2;
  p.values.assign(100 * 2, 1.0f);
  p.params.mode = kernels::Mode::stream;
  EXPECT_EQ(kernels::pattern_memory_bytes(p), 2 * (4 * 100 * 2) + 256u);
  p.times.assign(100, 0.0);
  EXPECT_EQ(kernels::pattern_memory_bytes(p), 2 * (4 * 100 * 2 + 8 * 100) + 256u);
  p.times.clear();
  p.params.mode = kernels::Mode::window;
  p.params.window = 150;
  EXPECT_EQ(kernels::pattern_memory_bytes(p),
            2 * (4 * 100 * 2) + (8 * 100 * 2 + 12 * 100 + 8 * 150 * 2 + 12 * 150) + 256u);
}

// A configuration whose library "shapes" has a pattern of `length` samples.
std::string config(std::size_t length, const std::string& limits) {
  std::string values = "[";
  for (std::size_t i = 0; i < length; ++i) values += (i ? ", " : "") + std::to_string(i % 7);
  values += "]";
  return "instance: lim\nbackend: cpu\ncpu_threads: 1\n"
         "ingest:\n  - pull: \"tcp://127.0.0.1:*\"\n"
         "streams:\n  declared:\n    - {id: keep, dims: 1}\n"
         "limits: {" +
         limits +
         "}\n"
         "libraries:\n"
         "  - name: small\n    defaults: {metric: dtw, mode: stream, threshold: 1}\n"
         "    patterns:\n      - {id: blip, values: [5, -5]}\n"
         "  - name: shapes\n    defaults: {metric: dtw, mode: stream, threshold: 1}\n"
         "    patterns:\n      - {id: long, values: " +
         values + "}\n" + "publish: {endpoint: \"tcp://127.0.0.1:*\"}\n";
}

// 300 samples: 2 x 1200 + 256 = 2656 bytes estimated.
constexpr std::size_t kLong = 300;

TEST(LibraryLimit, ALibraryOverTheLimitIsRefusedAtItsEntry) {
  TempDir dir;
  EXPECT_NO_THROW(warpwatch::plugins::load_daemon_config(
      dir.write("ok.yaml", config(kLong, "max_library_bytes: 2656"))));
  const std::string path = dir.write("big.yaml", config(kLong, "max_library_bytes: 2655"));
  try {
    warpwatch::plugins::load_daemon_config(path);
    FAIL() << "expected a ConfigError";
  } catch (const config::ConfigError& e) {
    EXPECT_EQ(e.where().file, path);
    EXPECT_EQ(e.where().line, 15) << e.what();  // "  - name: shapes"
    EXPECT_EQ(e.where().column, 5) << e.what();
    EXPECT_NE(std::string(e.what()).find(
                  "library 'shapes' is over limits.max_library_bytes (2655): its patterns up to "
                  "'long' take an estimated 2656 bytes"),
              std::string::npos)
        << e.what();
  }
}

TEST(LibraryLimit, AReloadOverTheLimitIsRefusedAndTheRunningConfigurationKept) {
  TempDir dir;
  const std::string path = dir.write("warpwatch.yaml", config(10, "max_library_bytes: 2000"));
  CapturedLog log;
  service::Pipeline pipeline(warpwatch::plugins::load_daemon_config(path), log.logger());
  pipeline.start();
  ASSERT_EQ(pipeline.stats().patterns, 2u);
  dir.write("warpwatch.yaml", config(kLong, "max_library_bytes: 2000"));
  EXPECT_FALSE(pipeline.reload(path));
  EXPECT_EQ(log.count("reload refused, keeping the running configuration: " + path +
                      ":15:5: library 'shapes' is over limits.max_library_bytes (2000)"),
            1u)
      << log.joined();
  EXPECT_EQ(pipeline.stats().reloads_refused, 1u);
  EXPECT_EQ(pipeline.stats().reloads, 0u);
  EXPECT_EQ(pipeline.config().live.libraries.at(1).patterns.at(0).length(), 10u);
  EXPECT_EQ(pipeline.stats().patterns, 2u);
  pipeline.shutdown();
}

TEST(RateLimitReload, AReloadChangesTheLimitLive) {
  TempDir dir;
  const std::string path = dir.write("warpwatch.yaml", config(10, ""));
  CapturedLog log;
  service::Pipeline pipeline(warpwatch::plugins::load_daemon_config(path), log.logger());
  zmq::context_t ctx;
  Producer push(ctx, pipeline.ingest_endpoints().at(0));
  pipeline.start();
  const auto offered = [&] {
    const auto s = pipeline.registry().snapshot();
    return s.accepted_samples + s.rejected.total();
  };
  const auto wait_offered = [&](std::uint64_t n) {
    const auto deadline = Clock::now() + 5s;
    while (offered() < n && Clock::now() < deadline) std::this_thread::sleep_for(5ms);
    return offered();
  };
  push.send("keep", stream::encode_frame(samples_at(0, std::vector<float>(100, 1.0f)), false));
  ASSERT_EQ(wait_offered(100), 100u);
  EXPECT_EQ(pipeline.registry().snapshot().accepted_samples, 100u);  // unlimited by default
  dir.write("warpwatch.yaml", config(10, "max_stream_rate_hz: 5"));
  ASSERT_TRUE(pipeline.reload(path)) << log.joined();
  EXPECT_EQ(log.count("takes effect when warpwatchd restarts"), 0u) << log.joined();
  push.send("keep", stream::encode_frame(samples_at(100, std::vector<float>(100, 1.0f)), false));
  ASSERT_EQ(wait_offered(200), 200u);
  const auto s = pipeline.registry().snapshot();
  EXPECT_EQ(s.accepted_samples, 105u);
  EXPECT_EQ(s.rejected[stream::RejectReason::rate_limited], 95u);
  EXPECT_EQ(log.count("rejected input on stream 'keep': rate_limited: 95 of 100 samples over "
                      "the limit of 5 a second (burst 5)"),
            1u)
      << log.joined();
  pipeline.shutdown();
}

}  // namespace
