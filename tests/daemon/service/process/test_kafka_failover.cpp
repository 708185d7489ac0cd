// Issue 17's acceptance test of the Kafka part: librdkafka's mock cluster in this process,
// three real warpwatchd processes in one consumer group (static members), 64 streams keyed
// over 8 partitions with planted occurrences, input produced while they run; one daemon is
// SIGKILLed mid-run and its partitions move to the others, which restore the streams'
// matching state from the changelog and replay the messages after its last cut. Then:
// every planted occurrence is reported at least once, and exactly once after dropping
// duplicate event ids, and nothing else is; no sample is lost: each stream's last changelog
// record has seen every sample produced, and the samples matched by all daemons add up to
// at least those produced (the excess was replayed). The reconciliation table is printed.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "processes/daemon_process.hpp"
#include "processes/kafka_cluster.hpp"
#include "processes/mosquitto_broker.hpp"  // wait_until
#include "test_support.hpp"
#include "warpwatch/bench/loopback.hpp"
#include "warpwatch/service/checkpoint.hpp"
#include "warpwatch/stream/decode/frame.hpp"

namespace {

using namespace warpwatch;
using namespace warpwatch::testing;
using namespace std::chrono_literals;

constexpr int kStreams = 64;
constexpr int kPartitions = 8;
constexpr std::size_t kSamples = 2000;  // per stream
constexpr std::size_t kChunk = 50;      // samples per message
constexpr std::int64_t kT0 = 1'700'000'000'000'000'000;
constexpr std::int64_t kPeriod = 10'000'000;  // 10 ms
const std::vector<float> kBump = {0, 4, 8, 4, 0};

std::string stream_id(int s) {
  char id[16];
  std::snprintf(id, sizeof id, "s%02d", s);
  return id;
}

struct Planted {
  std::string stream;
  std::uint64_t start = 0, end = 0;  // the bump's first and last sample
};

struct Daemon {
  std::string name, config, events;
  int metrics_port = 0;
  std::unique_ptr<DaemonProcess> process;
  double matched = 0;  // warpwatch_batch_samples_total at its last scrape
  std::string fate = "running";
};

double metric(int port, const std::string& name) {
  const auto response = bench::http_get(port, "/metrics", std::chrono::seconds(5));
  if (!response || response->status != 200) return -1;
  const auto values = bench::parse_prometheus_text(response->body);
  const auto it = values.find(name);
  return it == values.end() ? -1 : it->second;
}

bool ready(int port) {
  const auto response = bench::http_get(port, "/readyz", std::chrono::seconds(2));
  return response && response->status == 200;
}

// Every stream's latest changelog record: its next index.
std::map<std::string, std::uint64_t> changelog_next_index(KafkaCluster& cluster) {
  std::map<std::string, std::uint64_t> next;
  for (const KafkaRecord& r : cluster.read_all("fleet-state"))
    next[r.key] = service::decode_stream_record(r.value).matcher.next_index;
  return next;
}

TEST(KafkaFailover, ThreeDaemonsOneKilledEveryOccurrenceReportedOnceAndNoSampleLost) {
  const std::uint64_t seed = test_seed();
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> noise(-0.1F, 0.1F);
  std::uniform_int_distribution<int> jitter(0, 150);
  // The series: noise with three bumps each, the last well before the end (a pending match
  // at the end would travel with the state, never reported).
  std::vector<std::vector<float>> series(kStreams);
  std::vector<Planted> planted;
  for (int s = 0; s < kStreams; ++s) {
    auto& v = series[s];
    v.resize(kSamples);
    for (float& x : v) x = noise(rng);
    // The second band straddles the kill (at sample 1000): some occurrences span it.
    for (const std::size_t base : {200u, 900u, 1500u}) {
      const std::size_t at = base + static_cast<std::size_t>(jitter(rng));
      for (std::size_t k = 0; k < kBump.size(); ++k) v[at + k] = kBump[k];
      planted.push_back({stream_id(s), at, at + kBump.size() - 1});
    }
  }

  KafkaCluster cluster;
  cluster.create_topic("samples", kPartitions);
  cluster.create_topic("fleet-state", kPartitions);  // the changelog: <group>-state
  TempDir dir;
  std::vector<Daemon> daemons(3);
  for (int d = 0; d < 3; ++d) {
    Daemon& daemon = daemons[d];
    daemon.name = "host-" + std::to_string(d + 1);
    daemon.events = dir.file(daemon.name + ".events");
    daemon.metrics_port = free_loopback_port();
    daemon.config = dir.write(
        daemon.name + ".yaml",
        "instance: " + daemon.name +
            "\nbackend: cpu\ncpu_threads: 1\n"
            "streams: {auto_create: true, auto_period_ms: 10}\n"
            "ingest:\n  - kafka: {brokers: '" +
            cluster.bootstraps() +
            "', topic: samples, group_id: fleet, instance_id: " + daemon.name +
            ", session_timeout_ms: 6000, payload: frame}\n"
            "state: {checkpoint_ms: 300}\n"
            "libraries:\n  - name: shapes\n    patterns: [{id: bump, values: [0, 4, 8, 4, 0], "
            "threshold: 1.0}]\n"
            "publish: {endpoint: 'tcp://127.0.0.1:*', events_file: " +
            daemon.events + "}\nmetrics: {listen: '127.0.0.1:" +
            std::to_string(daemon.metrics_port) + "'}\nshutdown: {drain_grace_ms: 5000}\n");
    daemon.process = std::make_unique<DaemonProcess>(
        WARPWATCHD_PATH, std::vector<std::string>{"--config", daemon.config},
        std::vector<std::string>{}, dir.file(daemon.name + ".log"));
  }
  const auto logs = [&] {
    std::string out;
    for (const Daemon& d : daemons) out += "--- " + d.name + "\n" + d.process->stderr_text();
    return out;
  };
  ASSERT_TRUE(wait_until(
      [&] {
        for (const Daemon& d : daemons)
          if (!ready(d.metrics_port)) return false;
        return true;
      },
      30s))
      << logs();

  // Rounds of one message per stream, each stream on the partition of its number.
  const auto produce_round = [&](std::size_t round) {
    std::vector<KafkaRecord> records;
    for (int s = 0; s < kStreams; ++s) {
      stream::Samples chunk;
      chunk.dims = 1;
      for (std::size_t i = round * kChunk; i < (round + 1) * kChunk; ++i) {
        chunk.times_ns.push_back(kT0 + static_cast<std::int64_t>(i) * kPeriod);
        chunk.values.push_back(series[s][i]);
      }
      const auto bytes = stream::encode_frame(chunk, false);
      records.push_back({s % kPartitions, 0, stream_id(s),
                         std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                         true});
    }
    cluster.produce_all("samples", records);
  };
  constexpr std::size_t kRounds = kSamples / kChunk;
  constexpr std::size_t kKillAfter = kRounds / 2;
  for (std::size_t round = 0; round < kKillAfter; ++round) {
    produce_round(round);
    std::this_thread::sleep_for(100ms);
  }
  // Killed while input flows: what it took after its last cut is replayed by the others.
  Daemon& victim = daemons[1];
  victim.matched = metric(victim.metrics_port, "warpwatch_batch_samples_total");
  victim.process->signal(SIGKILL);
  victim.process->wait_exit(10s);
  victim.fate = "SIGKILLed after round " + std::to_string(kKillAfter);
  for (std::size_t round = kKillAfter; round < kRounds; ++round) {
    produce_round(round);
    std::this_thread::sleep_for(50ms);
  }

  // Every stream's state has reached its last sample (the survivors hold every partition).
  std::map<std::string, std::uint64_t> next;
  const bool complete = wait_until(
      [&] {
        next = changelog_next_index(cluster);
        if (next.size() != kStreams) return false;
        for (const auto& [id, n] : next)
          if (n != kSamples) return false;
        return true;
      },
      45s);
  for (const int d : {0, 2}) {
    daemons[d].matched = metric(daemons[d].metrics_port, "warpwatch_batch_samples_total");
    daemons[d].process->signal(SIGTERM);
  }
  for (const int d : {0, 2}) {
    EXPECT_EQ(daemons[d].process->wait_exit(30s), 0) << logs();
    daemons[d].fate = "SIGTERM, exit 0";
  }
  ASSERT_TRUE(complete) << "streams whose changelog did not reach " << kSamples << " samples: " <<
      [&] {
        std::string out;
        for (const auto& [id, n] : next)
          if (n != kSamples) out += id + "=" + std::to_string(n) + " ";
        return out + "(" + std::to_string(next.size()) + " streams)";
      }() << "\n" << logs();

  // The events of all three, the killed one's included (its file is written as it goes).
  std::map<std::string, int> reports;  // id -> times reported
  std::vector<nlohmann::json> events;
  std::map<std::string, std::size_t> per_daemon, distinct_per_daemon;
  for (const Daemon& d : daemons) {
    std::ifstream in(d.events);
    std::set<std::string> ids;
    for (std::string line; std::getline(in, line);) {
      const auto e = nlohmann::json::parse(line, nullptr, false);
      if (e.is_discarded()) continue;  // a line torn by the SIGKILL
      ++per_daemon[d.name];
      ids.insert(e.at("id").get<std::string>());
      if (++reports[e.at("id").get<std::string>()] == 1) events.push_back(e);
    }
    distinct_per_daemon[d.name] = ids.size();
  }
  std::size_t found = 0, duplicates = 0;
  for (const auto& [id, n] : reports) duplicates += static_cast<std::size_t>(n - 1);
  std::map<std::size_t, int> hits;  // planted index -> distinct events overlapping it
  for (const auto& e : events) {
    const auto stream = e.at("stream").get<std::string>();
    const auto start = e.at("start_index").get<std::uint64_t>();
    const auto end = e.at("end_index").get<std::uint64_t>();
    bool matched_one = false;
    for (std::size_t p = 0; p < planted.size(); ++p)
      if (planted[p].stream == stream && start <= planted[p].end && end >= planted[p].start) {
        ++hits[p];
        matched_one = true;
      }
    EXPECT_TRUE(matched_one) << "an event where nothing was planted: " << e.dump();
  }
  for (std::size_t p = 0; p < planted.size(); ++p) {
    EXPECT_EQ(hits[p], 1) << planted[p].stream << " [" << planted[p].start << ", " << planted[p].end
                          << "]: distinct events after dropping duplicate ids";
    found += hits[p] >= 1;
  }

  const double produced = static_cast<double>(kStreams) * kSamples;
  double matched = 0;
  for (const Daemon& d : daemons) matched += std::max(d.matched, 0.0);
  std::size_t complete_streams = 0;
  for (const auto& [id, n] : next) complete_streams += n == kSamples;
  std::printf(
      "\nKafka failover reconciliation (seed %llu): 3 daemons, group 'fleet', %d streams over "
      "%d partitions, %zu samples each\n",
      static_cast<unsigned long long>(seed), kStreams, kPartitions, kSamples);
  std::printf("| daemon | fate | samples matched | events reported | distinct ids |\n");
  std::printf("| --- | --- | ---: | ---: | ---: |\n");
  for (const Daemon& d : daemons)
    std::printf("| %s | %s | %.0f%s | %zu | %zu |\n", d.name.c_str(), d.fate.c_str(), d.matched,
                d.fate.starts_with("SIGKILL") ? " (last scrape before the kill)" : "",
                per_daemon[d.name], distinct_per_daemon[d.name]);
  std::printf("| all | | %.0f | %zu | %zu |\n", matched, events.size() + duplicates,
              reports.size());
  std::printf(
      "samples produced %.0f; matched by all %.0f, so at least %.0f replayed after the kill; "
      "streams whose last changelog record holds all %zu samples: %zu of %d\n",
      produced, matched, matched - produced, kSamples, complete_streams, kStreams);
  std::printf(
      "planted occurrences %zu: reported %zu; events %zu, of them duplicates (same id) %zu; "
      "exactly once after dropping duplicates: %s\n\n",
      planted.size(), found, events.size() + duplicates, duplicates,
      found == planted.size() && events.size() == planted.size() ? "yes" : "NO");
  EXPECT_EQ(found, planted.size());
  EXPECT_EQ(events.size(), planted.size());
  EXPECT_GE(matched, produced) << "samples matched by the daemons";
  EXPECT_EQ(complete_streams, static_cast<std::size_t>(kStreams));
}

}  // namespace
