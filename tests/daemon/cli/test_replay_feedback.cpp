// `warpwatch replay` (and `load`) against a running warpwatchd (a real process): it reads the
// daemon's /metrics before and after sending and says what the daemon rejected, exiting 2 when it
// rejected every sample (an undeclared id, an id with a space), 0 when it accepted them, and
// 3 when the /metrics it was told to read cannot be read (issue 36).
#include <gtest/gtest.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "cli_test_support.hpp"
#include "http/http_client.hpp"
#include "processes/daemon_process.hpp"
#include "test_support.hpp"

namespace {

using namespace warpwatch;
using namespace warpwatch::testing;
using namespace std::chrono_literals;

// Concatenation by appending: GCC 12 warns falsely (-Wrestrict) on `"x" + std::string`.
std::string cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out.append(p);
  return out;
}

class ReplayFeedback : public ::testing::Test {
 protected:
  void SetUp() override {
    config_ = dir_.write(
        "warpwatch.yaml",
        cat({"instance: fb\nbackend: cpu\ncpu_threads: 1\ningest:\n  - pull: tcp://127.0.0.1:",
             std::to_string(ingest_),
             "\nstreams:\n  declared:\n    - {id: ecg-1, period_ms: 10}\n"
             "libraries:\n  - name: shapes\n"
             "    defaults: {metric: dtw, mode: stream, threshold: 1}\n"
             "    patterns:\n      - {id: blip, values: [5, -5]}\n"
             "publish: {endpoint: tcp://127.0.0.1:",
             std::to_string(publish_), "}\nmetrics: {listen: 127.0.0.1:", std::to_string(metrics_),
             "}\n"}));
    std::string series;
    for (int i = 0; i < 100; ++i) series.append(i ? "," : "").append(std::to_string(i % 7));
    series_ = dir_.write("ecg.csv", series + "\n");
    daemon_.emplace(WARPWATCHD_PATH, std::vector<std::string>{"--config", config_},
                    std::vector<std::string>{}, dir_.path() + "/stderr.log");
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    while (!bench::http_get(metrics_, "/metrics", 500ms) &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(50ms);
  }

  CliResult replay(const std::string& stream, std::vector<std::string> more) {
    std::vector<std::string> args = {
        "replay",   series_, "--endpoint", cat({"tcp://127.0.0.1:", std::to_string(ingest_)}),
        "--stream", stream};
    args.insert(args.end(), more.begin(), more.end());
    return run_cli(args);
  }
  std::string metrics_url() const {
    return cat({"http://127.0.0.1:", std::to_string(metrics_), "/metrics"});
  }

  TempDir dir_;
  int ingest_ = free_loopback_port(), publish_ = free_loopback_port(),
      metrics_ = free_loopback_port();
  std::string config_, series_;
  std::optional<DaemonProcess> daemon_;
};

TEST_F(ReplayFeedback, AnUndeclaredIdIsReportedRejectedWithItsReasonAndExits2) {
  const auto r = replay("ecg-9", {"--metrics", metrics_url()});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.out.find("sent 100 samples of"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("100 of 100 samples rejected (stream 'ecg-9'): unknown_stream 2"),
            std::string::npos)
      << r.err << daemon_->stderr_text();
}

TEST_F(ReplayFeedback, AnIdWithASpaceIsReportedRejectedAsInvalidAndExits2) {
  const auto r = replay("ecg 1", {"--config", config_});  // --metrics from metrics.listen
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("100 of 100 samples rejected (stream 'ecg 1'): invalid_stream_id 2"),
            std::string::npos)
      << r.err << daemon_->stderr_text();
}

TEST_F(ReplayFeedback, ADeclaredStreamIsReportedAcceptedAndExits0) {
  const auto r = replay("ecg-1", {"--metrics", metrics_url()});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("the daemon accepted all 100 samples (stream 'ecg-1')"), std::string::npos)
      << r.out << r.err;
}

TEST_F(ReplayFeedback, AMetricsEndpointThatDoesNotAnswerIsSaidAndExits3) {
  const int nobody = free_loopback_port();  // reserved, never listening
  const auto r = replay(
      "ecg-1", {"--metrics", cat({"http://127.0.0.1:", std::to_string(nobody), "/metrics"})});
  EXPECT_EQ(r.status, 3) << r.out << r.err;
  EXPECT_NE(r.err.find(cat({"could not check what the daemon accepted: http://127.0.0.1:",
                            std::to_string(nobody), "/metrics: "})),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.out.find("accepted"), std::string::npos) << "no claim of success: " << r.out;
}

TEST_F(ReplayFeedback, WithoutMetricsItSaysItCouldNotCheck) {
  const auto r = replay("ecg-9", {});
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("could not check what the daemon accepted: name the daemon's /metrics "
                       "with --metrics URL or its configuration with --config"),
            std::string::npos)
      << r.err;
}

TEST_F(ReplayFeedback, LoadToAnUndeclaredStreamIsReportedRejectedAndExits2) {
  const auto r = run_cli({"load", "--endpoint", cat({"tcp://127.0.0.1:", std::to_string(ingest_)}),
                          "--streams", "1", "--prefix", "ecg-", "--samples", "300", "--frame",
                          "100", "--every", "0", "--metrics", metrics_url()});
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("300 of 300 samples rejected (stream 'ecg-0'): unknown_stream 3"),
            std::string::npos)
      << r.out << r.err;
}

}  // namespace
