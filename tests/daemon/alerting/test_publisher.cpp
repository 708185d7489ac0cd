// Event JSON (daemon/alerting/event.cpp) and the publisher (daemon/alerting/publisher.cpp), over
// real ZeroMQ sockets on loopback with a real SUB socket as the subscriber.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>
#include <zmq.hpp>

#include "alerting_support.hpp"
#include "log_capture.hpp"
#include "test_support.hpp"
#include "warpwatch/alerting/event.hpp"
#include "warpwatch/alerting/publisher.hpp"

namespace {

using warpwatch::alerting::Event;
using warpwatch::alerting::event_id;
using warpwatch::alerting::Publisher;
using warpwatch::alerting::PublisherOptions;
using warpwatch::alerting::to_json;
using warpwatch::testing::sample_event;
using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

constexpr const char* kAnyPort = "tcp://127.0.0.1:*";

PublisherOptions options(int hwm = 1000) {
  PublisherOptions o;
  o.endpoint = kAnyPort;
  o.send_high_water_mark = hwm;
  o.linger = 0ms;  // tests never wait on close
  return o;
}

struct Message {
  std::string topic;
  nlohmann::json payload;
};

// A real subscriber: its own context, SUB socket connected to the publisher.
class Subscriber {
 public:
  Subscriber(const std::string& endpoint, const std::vector<std::string>& topics,
             int receive_hwm = 1000, int receive_buffer = 0)
      : socket_(context_, zmq::socket_type::sub) {
    socket_.set(zmq::sockopt::rcvhwm, receive_hwm);
    if (receive_buffer > 0) socket_.set(zmq::sockopt::rcvbuf, receive_buffer);
    socket_.set(zmq::sockopt::linger, 0);
    for (const auto& t : topics) socket_.set(zmq::sockopt::subscribe, t);
    socket_.connect(endpoint);
  }

  // The next message, or nullopt after `timeout`.
  std::optional<Message> receive(std::chrono::milliseconds timeout) {
    socket_.set(zmq::sockopt::rcvtimeo, static_cast<int>(timeout.count()));
    zmq::message_t topic, payload;
    if (!socket_.recv(topic)) return std::nullopt;
    EXPECT_TRUE(topic.more()) << "a topic frame is followed by the payload";
    EXPECT_TRUE(socket_.recv(payload));
    EXPECT_FALSE(payload.more()) << "two frames exactly";
    return Message{topic.to_string(), nlohmann::json::parse(payload.to_string())};
  }

  // The next message that is not a probe (see await_connection).
  std::optional<Message> receive_event(std::chrono::milliseconds timeout) {
    for (;;) {
      auto m = receive(timeout);
      if (!m || m->payload.at("stream") != "probe") return m;
    }
  }

 private:
  zmq::context_t context_{1};
  zmq::socket_t socket_;
};

// What the pipeline does with the Publisher: number the events (EventSequence), then offer
// them; the numbers are written back into the test's events.
struct Numbered {
  Publisher& sink;
  warpwatch::alerting::EventSequence sequence{};

  void publish(std::span<Event> events) {
    sequence.assign(events);
    std::vector<warpwatch::alerting::SharedEvent> shared;
    for (const Event& e : events) shared.push_back(std::make_shared<const Event>(e));
    sink.offer(shared);
  }
  std::uint64_t last_sequence() const { return sequence.last(); }
  const std::string& endpoint() const { return sink.endpoint(); }
  warpwatch::alerting::PublisherCounters counters() const { return sink.counters(); }
};

// ZeroMQ's slow joiner: a subscription reaches the publisher some time after connect,
// and PUB drops what nobody has subscribed to yet. Publishes probes (stream "probe", so
// receive_event skips them) until one arrives; bounded at 2 s.
void await_connection(Numbered& publisher, Subscriber& subscriber, const std::string& rule) {
  const auto deadline = Clock::now() + 2s;
  while (Clock::now() < deadline) {
    std::vector<Event> probe{sample_event(rule, "probe")};
    publisher.publish(probe);
    if (subscriber.receive(20ms)) return;
  }
  FAIL() << "subscriber saw no probe within 2 s";
}

TEST(EventJson, HasEveryKeyInOrderWithItsValue) {
  Event e = sample_event("hot", "pump.3");
  e.sequence = 17;
  e.labels = {{"site", "plant-7"}, {"team", "ops"}};
  const std::string text = to_json(e);
  EXPECT_EQ(text.find('\n'), std::string::npos) << "one line, for JSON-lines";
  const auto j = nlohmann::ordered_json::parse(text);
  std::vector<std::string> keys;
  for (const auto& item : j.items()) keys.push_back(item.key());
  EXPECT_EQ(keys, (std::vector<std::string>{
                      "rule", "severity", "stream", "library", "pattern", "metric", "mode",
                      "distance", "threshold", "start_index", "end_index", "start_ns", "end_ns",
                      "detected_ns", "sequence", "id", "instance", "labels"}));
  EXPECT_EQ(j["rule"], "hot");
  EXPECT_EQ(j["severity"], "warning");
  EXPECT_EQ(j["stream"], "pump.3");
  EXPECT_EQ(j["library"], "shapes");
  EXPECT_EQ(j["pattern"], "spike");
  EXPECT_EQ(j["metric"], "dtw");
  EXPECT_EQ(j["mode"], "stream");
  EXPECT_EQ(j["distance"].get<double>(), 0.25);
  EXPECT_EQ(j["threshold"].get<double>(), 1.5);
  EXPECT_EQ(j["start_index"].get<std::uint64_t>(), 5u);
  EXPECT_EQ(j["end_index"].get<std::uint64_t>(), 9u);
  EXPECT_EQ(j["start_ns"].get<std::int64_t>(), 1'700'000'000'000'000'005);  // exact in int64
  EXPECT_EQ(j["end_ns"].get<std::int64_t>(), 1'700'000'000'000'000'009);
  EXPECT_EQ(j["detected_ns"].get<std::int64_t>(), 1'700'000'001'000'000'000);
  EXPECT_EQ(j["sequence"].get<std::uint64_t>(), 17u);
  EXPECT_EQ(j["id"], e.id);
  EXPECT_EQ(j["instance"], "node-1");
  EXPECT_EQ(j["labels"], (nlohmann::json{{"site", "plant-7"}, {"team", "ops"}}));
}

// The expected ids are Python's (hashlib, struct: the recipe in docs/sinks.md §2), not ours.
TEST(EventId, IsTheDocumentedSha256PrefixOfStreamPatternAndIndices) {
  EXPECT_EQ(event_id("pump.3", "spike", 5, 9), "534b606bb6f8a00a96ffd8a0f0e99693");
  EXPECT_EQ(event_id("pump.3", "spike", 5, 10), "8557efeb4f46f2cec98170a737ecb0a7");
  EXPECT_EQ(event_id("\xc3\xa9tage-\xe2\x82\xac", "p", 0, UINT64_MAX),
            "55a2ffc32e28049ca7c4d84f49050223");
  // Lengths are part of the input: moving a byte from one id to the other changes the id.
  EXPECT_EQ(event_id("ab", "c", 1, 2), "adbede419b893ee6d5349196e94d769d");
  EXPECT_EQ(event_id("a", "bc", 1, 2), "54759e1065b07375df406de4483d4638");
}

TEST(EventJson, DistanceRoundTripsAndEmptyLabelsAreAnObject) {
  Event e = sample_event("r", "s");
  e.distance = 0.1 + 0.2;
  e.labels.clear();
  const auto j = nlohmann::json::parse(to_json(e));
  EXPECT_EQ(j["distance"].get<double>(), 0.1 + 0.2);
  EXPECT_TRUE(j["labels"].is_object());
  EXPECT_TRUE(j["labels"].empty());
}

TEST(EventJson, InvalidUtf8IsReplacedNotThrown) {
  Event e = sample_event("r", std::string("bad\xff", 4));
  std::string text;
  ASSERT_NO_THROW(text = to_json(e));
  EXPECT_EQ(nlohmann::json::parse(text)["stream"], "bad\xEF\xBF\xBD");
}

// A label key is bytes from the configuration: a NUL inside it stays in the key (escaped),
// so two keys that differ after it stay two keys.
TEST(EventJson, LabelKeysKeepEveryByte) {
  Event e = sample_event("r", "s");
  e.labels = {{std::string("a\0x", 3), "1"}, {std::string("a\0y", 3), "2"}};
  const std::string text = to_json(e);
  EXPECT_NE(text.find(R"("labels":{"a\u0000x":"1","a\u0000y":"2"})"), std::string::npos) << text;
}

TEST(Publisher, BindsAWildcardPortAndReportsTheEndpoint) {
  Publisher sink(options());
  Numbered publisher{sink};
  const std::string& endpoint = publisher.endpoint();
  ASSERT_EQ(endpoint.rfind("tcp://127.0.0.1:", 0), 0u) << endpoint;
  EXPECT_GT(std::stoi(endpoint.substr(16)), 0) << endpoint;
}

TEST(Publisher, BadEndpointThrowsNamingIt) {
  PublisherOptions o = options();
  o.endpoint = "nonsense://here";
  try {
    Publisher sink(o);
    FAIL() << "bind should have failed";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("nonsense://here"), std::string::npos) << e.what();
  }
}

TEST(Publisher, EventsArriveWithTopicJsonAndConsecutiveSequenceNumbers) {
  zmq::context_t context(1);  // the daemon's shared context
  Publisher sink(context, options());
  Numbered publisher{sink};
  Subscriber subscriber(publisher.endpoint(), {""});
  await_connection(publisher, subscriber, "hot");
  const std::uint64_t before = publisher.last_sequence();

  std::vector<Event> batch1{sample_event("hot", "pump.1", 10), sample_event("cold", "fan/2", 11)};
  std::vector<Event> batch2{sample_event("hot", "pump.1", 12)};
  publisher.publish(batch1);
  publisher.publish(batch2);
  EXPECT_EQ(batch1[0].sequence, before + 1);  // written back into the events
  EXPECT_EQ(batch2[0].sequence, before + 3);

  const std::vector<std::pair<std::string, std::uint64_t>> expected{
      {"hot/pump.1", 10}, {"cold/fan/2", 11}, {"hot/pump.1", 12}};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const auto m = subscriber.receive_event(2000ms);
    ASSERT_TRUE(m) << "event " << i << " did not arrive";
    EXPECT_EQ(m->topic, expected[i].first);
    EXPECT_EQ(m->payload["end_index"].get<std::uint64_t>(), expected[i].second);
    EXPECT_EQ(m->payload["sequence"].get<std::uint64_t>(), before + 1 + i);
    EXPECT_EQ(m->topic, m->payload["rule"].get<std::string>() + "/" +
                            m->payload["stream"].get<std::string>());
    EXPECT_EQ(m->payload["instance"], "node-1");
    EXPECT_EQ(m->payload["labels"]["site"], "plant-7");
  }
  const auto c = publisher.counters();
  EXPECT_EQ(c.dropped, 0u);
  EXPECT_EQ(c.published, publisher.last_sequence());
}

TEST(Publisher, SubscriberGetsOnlyItsTopicPrefix) {
  Publisher sink(options());
  Numbered publisher{sink};
  Subscriber subscriber(publisher.endpoint(), {"ruleA/"});
  await_connection(publisher, subscriber, "ruleA");

  std::vector<Event> batch;
  for (int i = 0; i < 30; ++i) {
    const char* rule = i % 3 == 0 ? "ruleA" : i % 3 == 1 ? "ruleB" : "ruleAB";
    batch.push_back(sample_event(rule, std::to_string(i)));
  }
  batch.push_back(sample_event("ruleA", "end"));
  publisher.publish(batch);

  int received = 0;
  for (;;) {
    const auto m = subscriber.receive_event(2000ms);
    ASSERT_TRUE(m) << "the end marker did not arrive";
    EXPECT_EQ(m->topic.rfind("ruleA/", 0), 0u) << m->topic;
    EXPECT_EQ(m->payload["rule"], "ruleA");
    if (m->payload["stream"] == "end") break;
    ++received;
  }
  EXPECT_EQ(received, 10);
}

TEST(Publisher, SlowSubscriberNeverBlocksAndDropsAreCounted) {
  Publisher sink(options(/*hwm=*/4));
  Numbered publisher{sink};
  // Never reads while the flood goes out; small queues so that they fill quickly.
  Subscriber subscriber(publisher.endpoint(), {""}, /*receive_hwm=*/4, /*receive_buffer=*/4096);
  await_connection(publisher, subscriber, "r");
  const auto before = publisher.counters();
  const std::uint64_t first_sequence = publisher.last_sequence() + 1;

  constexpr std::uint64_t attempted = 5000;  // the queues and socket buffers hold ~600
  std::vector<Event> batch;
  for (std::uint64_t i = 0; i < attempted; ++i) {
    batch.push_back(sample_event("r", "s", 10 + i));
    batch.back().labels["pad"] = std::string(4096, 'x');  // fills socket buffers sooner
  }
  const auto start = Clock::now();
  publisher.publish(batch);
  const auto elapsed = Clock::now() - start;
  EXPECT_LT(elapsed, 30s) << "publish must not wait for the subscriber";

  const auto after = publisher.counters();
  const std::uint64_t published = after.published - before.published;
  const std::uint64_t dropped = after.dropped - before.dropped;
  EXPECT_EQ(published + dropped, attempted);
  EXPECT_GT(dropped, 0u);
  EXPECT_GT(published, 0u);
  std::cout << "[ info     ] published " << published << ", dropped " << dropped << " in "
            << std::chrono::duration<double>(elapsed).count() << " s\n";
  EXPECT_EQ(publisher.last_sequence(), first_sequence + attempted - 1);

  // Everything the socket accepted reaches the subscriber once it reads, in order, and the
  // sequence numbers show where events were dropped.
  std::uint64_t received = 0, gaps = 0, previous = first_sequence - 1;
  while (received < published) {
    const auto m = subscriber.receive_event(2000ms);
    if (!m) break;
    const auto sequence = m->payload["sequence"].get<std::uint64_t>();
    EXPECT_GT(sequence, previous);
    if (sequence != previous + 1) ++gaps;
    previous = sequence;
    ++received;
  }
  EXPECT_EQ(received, published);
  EXPECT_GT(gaps, 0u);
}

TEST(Publisher, NoSubscriberNeverBlocks) {
  Publisher sink(options(/*hwm=*/1));
  Numbered publisher{sink};
  std::vector<Event> batch(5000, sample_event("r", "s"));
  const auto start = Clock::now();
  publisher.publish(batch);
  publisher.publish(batch);
  EXPECT_LT(Clock::now() - start, 30s);
  const auto c = publisher.counters();
  EXPECT_EQ(c.published + c.dropped, 10000u);
  EXPECT_EQ(c.dropped, 0u) << "with nobody subscribed PUB has no queue to fill";
  EXPECT_EQ(publisher.last_sequence(), 10000u);
}

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(Publisher, FileSinkWritesExactlyTheEventsAsJsonLines) {
  warpwatch::testing::TempDir dir;
  PublisherOptions o = options();
  o.events_file = dir.file("events.jsonl");
  const std::string existing = R"({"earlier":"run"})";
  dir.write("events.jsonl", existing + "\n");
  Publisher sink(o);
  Numbered publisher{sink};

  std::vector<Event> batch1{sample_event("a", "s1", 10), sample_event("b", "s2", 11)};
  std::vector<Event> batch2{sample_event("a", "s1", 12)};
  std::vector<Event> empty;
  publisher.publish(batch1);
  publisher.publish(empty);
  // Flushed per batch: readable before the publisher closes.
  EXPECT_EQ(read_lines(*o.events_file).size(), 3u);
  publisher.publish(batch2);

  EXPECT_EQ(read_lines(*o.events_file),
            (std::vector<std::string>{existing, to_json(batch1[0]), to_json(batch1[1]),
                                      to_json(batch2[0])}));
  EXPECT_EQ(batch2[0].sequence, 3u);
  EXPECT_EQ(publisher.counters().file_errors, 0u);
}

TEST(Publisher, FileErrorsAreCountedAndLoggedNotThrown) {
  warpwatch::testing::CapturedLog captured;
  PublisherOptions o = options();
  o.events_file = "/dev/full";  // every write fails with ENOSPC
  o.log = captured.logger();
  Publisher sink(o);
  Numbered publisher{sink};
  std::vector<Event> batch{sample_event("a", "s")};
  ASSERT_NO_THROW(publisher.publish(batch));
  ASSERT_NO_THROW(publisher.publish(batch));
  EXPECT_EQ(publisher.counters().file_errors, 2u);
  EXPECT_EQ(publisher.counters().published, 2u) << "the socket side is unaffected";
  const auto log = captured.lines();
  ASSERT_EQ(log.size(), 1u) << "one line per run of errors, not one per batch";
  EXPECT_NE(log[0].find("error: events file '/dev/full'"), std::string::npos) << log[0];
}

TEST(Publisher, UnopenableFileIsCountedAndRetried) {
  warpwatch::testing::TempDir dir;
  warpwatch::testing::CapturedLog log;
  PublisherOptions o = options();
  o.events_file = dir.path() + "/missing/events.jsonl";
  o.log = log.logger();
  Publisher sink(o);
  Numbered publisher{sink};
  std::vector<Event> batch{sample_event("a", "s")};
  publisher.publish(batch);
  EXPECT_EQ(publisher.counters().file_errors, 1u);
  std::filesystem::create_directories(dir.path() + "/missing");
  publisher.publish(batch);  // the next batch opens it
  EXPECT_EQ(publisher.counters().file_errors, 1u);
  EXPECT_EQ(read_lines(*o.events_file), (std::vector<std::string>{to_json(batch[0])}));
  EXPECT_EQ(log.lines().size(), 2u) << "the failure, then the recovery";
  EXPECT_EQ(log.count("writing again"), 1u) << log.joined();
}

}  // namespace
