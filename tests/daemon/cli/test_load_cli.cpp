// `warpwatch load`, run in-process against a PULL socket the test binds on loopback: what
// arrives is what the command says it sent (streams, samples, the planted occurrences at
// their indices), binary and text, built-in shapes and a pattern file.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "cli_test_support.hpp"
#include "test_support.hpp"
#include "warpwatch/bench/load_generator.hpp"
#include "warpwatch/stream/decode/frame.hpp"

namespace {

using nlohmann::json;
using warpwatch::testing::run_cli;
using warpwatch::testing::TempDir;
namespace stream = warpwatch::stream;

class Pull {
 public:
  Pull() : socket_(context_, zmq::socket_type::pull) {
    socket_.set(zmq::sockopt::rcvhwm, 0);
    socket_.set(zmq::sockopt::linger, 0);
    socket_.bind("tcp://127.0.0.1:*");
    endpoint_ = socket_.get(zmq::sockopt::last_endpoint);
  }
  const std::string& endpoint() const { return endpoint_; }
  // Reads until `samples` samples arrived in all or 10 s passed; per stream, in order.
  std::map<std::string, stream::Samples> receive(std::size_t samples, std::size_t& messages) {
    std::map<std::string, stream::Samples> out;
    std::size_t got = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (got < samples && std::chrono::steady_clock::now() < deadline) {
      std::vector<zmq::message_t> parts;
      zmq::pollitem_t item{socket_.handle(), 0, ZMQ_POLLIN, 0};
      zmq::poll(&item, 1, std::chrono::milliseconds(50));
      if (!zmq::recv_multipart(socket_, std::back_inserter(parts), zmq::recv_flags::dontwait))
        continue;
      EXPECT_EQ(parts.size(), 2u);
      ++messages;
      const auto decoded = stream::decode_payload(
          std::span(static_cast<const std::byte*>(parts[1].data()), parts[1].size()));
      EXPECT_TRUE(std::holds_alternative<stream::Decoded>(decoded));
      if (!std::holds_alternative<stream::Decoded>(decoded)) continue;
      const auto& s = std::get<stream::Decoded>(decoded).samples;
      auto& all = out[parts[0].to_string()];
      all.dims = s.dims;
      all.times_ns.insert(all.times_ns.end(), s.times_ns.begin(), s.times_ns.end());
      all.values.insert(all.values.end(), s.values.begin(), s.values.end());
      got += s.size();
    }
    return out;
  }

 private:
  zmq::context_t context_;
  zmq::socket_t socket_;
  std::string endpoint_;
};

json read_json(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

// Each reported occurrence lies where the samples hold the pattern (plus noise < 0.05).
void expect_occurrences_in(const json& doc, const std::map<std::string, stream::Samples>& got,
                           const std::map<std::string, std::vector<float>>& patterns) {
  ASSERT_GT(doc.at("occurrences").size(), 0u);
  for (const auto& o : doc.at("occurrences")) {
    const auto& s = got.at(o.at("stream").get<std::string>());
    const auto& p = patterns.at(o.at("pattern").get<std::string>());
    const auto start = o.at("start_index").get<std::size_t>();
    ASSERT_EQ(o.at("end_index").get<std::size_t>() - start + 1, p.size());
    for (std::size_t i = 0; i < p.size(); ++i)
      EXPECT_LE(std::abs(s.values[start + i] - p[i]), 0.05f + 1e-6f) << o.dump() << " at " << i;
    EXPECT_GT(o.at("sent_ns").get<std::int64_t>(), 0);
  }
}

TEST(LoadCli, ABoundedRunArrivesAsReported) {
  Pull pull;
  TempDir dir;
  const std::string json_path = dir.file("load.json");
  const auto r = run_cli({"load", "--endpoint", pull.endpoint(), "--streams", "3", "--samples",
                          "250", "--frame", "20", "--every", "100", "--pattern-length", "30",
                          "--shapes", "2", "--period-ms", "10", "--json", json_path});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("sent 750 samples in 39 messages"), std::string::npos) << r.out;
  std::size_t messages = 0;
  const auto got = pull.receive(750, messages);
  EXPECT_EQ(messages, 39u);  // 12 frames of 20 and one of 10, per stream
  ASSERT_EQ(got.size(), 3u);
  for (int k = 0; k < 3; ++k) {
    const auto& s = got.at("load-" + std::to_string(k));
    ASSERT_EQ(s.size(), 250u);
    for (std::size_t i = 1; i < s.size(); ++i)
      EXPECT_EQ(s.times_ns[i] - s.times_ns[i - 1], 10'000'000);
  }
  const json doc = read_json(json_path);
  EXPECT_EQ(doc.at("samples"), 750);
  EXPECT_EQ(doc.at("messages"), 39);
  EXPECT_EQ(doc.at("stopped_by"), "samples");
  EXPECT_EQ(doc.at("blocked_sends"), 0);
  std::map<std::string, std::vector<float>> patterns;
  // The built-in shapes' values, as the JSON names them: rebuild them the same way.
  for (const auto& p : warpwatch::bench::builtin_patterns(2, 30, 1)) patterns[p.name] = p.values;
  expect_occurrences_in(doc, got, patterns);
  // Every occurrence wholly inside 250 samples of each stream: 2 or 3 per stream.
  EXPECT_GE(doc.at("occurrences").size(), 6u);
}

TEST(LoadCli, TextAndAPatternFile) {
  Pull pull;
  TempDir dir;
  const std::string patterns = dir.write("spike.csv", "0,4,-4,4,-4,0\n");
  const std::string json_path = dir.file("load.json");
  const auto r = run_cli({"load", "--endpoint", pull.endpoint(), "--streams", "2", "--prefix",
                          "pump.", "--total", "400", "--frame", "50", "--text", "--patterns",
                          patterns, "--every", "40", "--json", json_path});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  std::size_t messages = 0;
  const auto got = pull.receive(400, messages);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got.at("pump.0").size() + got.at("pump.1").size(), 400u);
  const json doc = read_json(json_path);
  EXPECT_EQ(doc.at("stopped_by"), "total");
  EXPECT_EQ(doc.at("options").at("encoding"), "text");
  expect_occurrences_in(doc, got, {{"spike", {0, 4, -4, 4, -4, 0}}});
}

// The shapes it plants, written for a daemon's library: the same floats, bit for bit, and
// nothing sent.
TEST(LoadCli, WritePatternsWritesTheShapesExactly) {
  TempDir dir;
  const std::string path = dir.file("shapes.csv");
  const auto r = run_cli({"load", "--endpoint", "tcp://127.0.0.1:1", "--shapes", "3",
                          "--pattern-length", "20", "--seed", "7", "--write-patterns", path});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "wrote 3 patterns to " + path + "\n");
  const auto shapes = warpwatch::bench::builtin_patterns(3, 20, 7);
  std::ifstream in(path);
  std::size_t rows = 0;
  for (std::string line; std::getline(in, line); ++rows) {
    ASSERT_LT(rows, shapes.size());
    std::vector<float> values;
    for (std::size_t at = 0; at <= line.size();) {
      const std::size_t comma = std::min(line.find(',', at), line.size());
      values.push_back(std::stof(line.substr(at, comma - at)));
      at = comma + 1;
    }
    EXPECT_EQ(values, shapes[rows].values) << "row " << rows;
  }
  EXPECT_EQ(rows, 3u);
}

TEST(LoadCli, FaultsAreNamedAndReported) {
  Pull pull;
  const auto r = run_cli({"load", "--endpoint", pull.endpoint(), "--streams", "1", "--samples",
                          "100", "--frame", "10", "--every", "0", "--faults-every", "2", "--faults",
                          "malformed,unknown-id"});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("faults (messages the daemon refuses whole): malformed 3 unknown-id 2"),
            std::string::npos)
      << r.out;
  const auto bad = run_cli({"load", "--endpoint", pull.endpoint(), "--faults-every", "2",
                            "--faults", "malformed,bogus"});
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find("--faults: unknown fault 'bogus'"), std::string::npos) << bad.err;
}

TEST(LoadCli, BadPlansAreRefused) {
  const auto r = run_cli({"load", "--endpoint", "tcp://127.0.0.1:1", "--every", "50",
                          "--pattern-length", "64", "--samples", "10"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("warpwatch load: occurrences every 50 samples"), std::string::npos) << r.err;
}

}  // namespace
