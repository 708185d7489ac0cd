// The MQTT source against a real Mosquitto broker on a loopback port (started and stopped by
// each test, tests/support/processes/mosquitto_broker.hpp), messages published with libmosquitto:
// topic levels become stream ids, the three payload formats arrive in order with their
// times and values, bad payloads are counted per reason and the rest kept, QoS 1 with a
// persistent session, reconnection after the broker is killed and restarted, credentials
// and TLS, retained messages, a full queue, pause.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "processes/mosquitto_broker.hpp"
#include "test_support.hpp"
#include "warpwatch/stream/decode/frame.hpp"
#include "warpwatch/stream/ingest_hub.hpp"
#include "warpwatch/stream/registry.hpp"
#include "warpwatch/stream/sources/mqtt_source.hpp"

namespace {

using namespace warpwatch::stream;
using namespace warpwatch::testing;
using namespace std::chrono_literals;
namespace bench = warpwatch::bench;

// Log lines from several threads.
class Lines {
 public:
  void add(std::string line) {
    const std::lock_guard lock(mu_);
    lines_.push_back(std::move(line));
  }
  bool contains(const std::string& text) const {
    const std::lock_guard lock(mu_);
    for (const auto& l : lines_)
      if (l.find(text) != std::string::npos) return true;
    return false;
  }
  std::string joined() const {
    const std::lock_guard lock(mu_);
    std::string out;
    for (const auto& l : lines_) out += l + "\n";
    return out;
  }

 private:
  mutable std::mutex mu_;
  std::vector<std::string> lines_;
};

// What the hub handed out, per stream, in order.
struct Taken {
  std::map<std::string, std::vector<std::int64_t>> times;
  std::map<std::string, std::vector<float>> values;
  std::size_t samples = 0;

  // Takes until `want` samples in all were taken, at most 10 s.
  std::size_t take_until(IngestHub& hub, std::size_t want) {
    wait_until([&] {
      IngestBatch b = hub.take_all();
      for (const QueuedSamples& q : b.streams) {
        auto& t = times[q.stream->id];
        t.insert(t.end(), q.times_ns.begin(), q.times_ns.end());
        auto& v = values[q.stream->id];
        v.insert(v.end(), q.values.begin(), q.values.end());
      }
      samples += b.samples;
      return samples >= want;
    });
    return samples;
  }
};

// A source of the broker on `port`, quick to reconnect (20 ms, up to 400 ms).
MqttSourceOptions quick_options(int port, std::vector<std::string> topics,
                                std::string stream_template = "{topic}") {
  MqttSourceOptions o;
  o.host = "127.0.0.1";
  o.port = port;
  o.topics = std::move(topics);
  o.stream_template = std::move(stream_template);
  o.reconnect_min = 20ms;
  o.reconnect_max = 400ms;
  return o;
}

MqttLog into(Lines& lines) {
  return [&lines](MqttLogLevel, std::string_view line) { lines.add(std::string(line)); };
}

Samples samples(std::vector<std::int64_t> times, std::vector<float> values) {
  Samples s;
  s.dims = values.size() / times.size();
  s.times_ns = std::move(times);
  s.values = std::move(values);
  return s;
}

RegistryOptions auto_create() {
  RegistryOptions o;
  o.auto_create = true;
  o.log_interval = 0s;  // every rejection logged: the tests read them
  return o;
}

class MqttSourceTest : public ::testing::Test {
 protected:
  MqttSourceOptions options(std::vector<std::string> topics,
                            std::string stream_template = "{topic}") const {
    return quick_options(broker.port(), std::move(topics), std::move(stream_template));
  }
  std::unique_ptr<MqttSource> make(const MqttSourceOptions& o) {
    return std::make_unique<MqttSource>(o, hub, into(source_log));
  }
  // Starts `source` and waits (at most 10 s) until its subscriptions are acknowledged.
  void start_subscribed(MqttSource& source) {
    source.start();
    ASSERT_TRUE(wait_until([&] { return source.connected(); }))
        << "not subscribed within 10 s\nsource log:\n"
        << source_log.joined() << "broker log:\n"
        << broker.log();
  }
  RegistrySnapshot snapshot() const { return registry.snapshot(); }

  TempDir dir;
  MosquittoBroker broker{dir};
  Lines rejections, source_log;
  StreamRegistry registry{
      {},
      auto_create(),
      [this](std::string_view stream, RejectReason reason, std::string_view detail) {
        rejections.add(std::string(stream) + " " + std::string(to_string(reason)) + ": " +
                       std::string(detail));
      }};
  IngestHub hub{registry, QueueLimits{}};
};

TEST_F(MqttSourceTest, TopicLevelsBecomeStreamIdsAndEveryFormatArrivesInOrder) {
  auto source = make(options({"plant/+/+"}, "{2}-{3}"));
  EXPECT_FALSE(source->connected()) << "not started";
  EXPECT_EQ(source->describe(), "mqtt 127.0.0.1:" + std::to_string(broker.port()) + " plant/+/+");
  start_subscribed(*source);

  MqttPublisher pub(broker.port());
  pub.publish("plant/pump/1", "1000,1.5\n1010,2.5\n");                         // text
  pub.publish("plant/fan/2", R"([{"t": 5, "v": 10}, {"t": 6, "v": 11.25}])");  // JSON array
  pub.publish("plant/pump/1", R"({"t": 1020, "v": 3.5, "unit": "bar"})");      // JSON object
  pub.publish("plant/pump/1", encode_frame(samples({1030, 1040}, {4.5f, 5.5f}), true));
  pub.publish("plant/fan/2", encode_frame(samples({7, 8, 9}, {12, 13, 14}), false));

  Taken taken;
  ASSERT_EQ(taken.take_until(hub, 10), 10u) << rejections.joined();
  EXPECT_EQ(taken.times["pump-1"], (std::vector<std::int64_t>{1000, 1010, 1020, 1030, 1040}));
  EXPECT_EQ(taken.values["pump-1"], (std::vector<float>{1.5f, 2.5f, 3.5f, 4.5f, 5.5f}));
  EXPECT_EQ(taken.times["fan-2"], (std::vector<std::int64_t>{5, 6, 7, 8, 9}));
  EXPECT_EQ(taken.values["fan-2"], (std::vector<float>{10, 11.25f, 12, 13, 14}));
  EXPECT_EQ(source->counters().messages, 5u);
  EXPECT_EQ(snapshot().rejected.total(), 0u) << rejections.joined();
  source->stop();
  EXPECT_FALSE(source->connected());
}

TEST_F(MqttSourceTest, BadPayloadsAreCountedPerReasonAndTheRestIsKept) {
  auto source = make(options({"plant/#"}, "{2}-{3}"));
  start_subscribed(*source);
  MqttPublisher pub(broker.port());
  // Two good samples around a float time, then a two-value sample on a 1-dims stream.
  pub.publish("plant/a/1",
              R"([{"t": 1, "v": 1}, {"t": 2.5, "v": 2}, {"t": 3, "v": 3}, {"t": 4, "v": [4, 5]}])");
  pub.publish("plant/a/1", "{\"t\": 5, ");         // not JSON: the whole message
  pub.publish("plant/a/1", "6,6\nsix,6\n7,7\n");   // one bad text line
  pub.publish("plant/a/1", R"("just a string")");  // auto: text, and not a text line
  pub.publish("plant/a/1", "");                    // nothing at all
  pub.publish("plant/a", "8,8\n");                 // 2 levels, the template uses 3
  pub.publish("plant/a b/1", "9,9\n");             // id "a b-1": whitespace
  pub.publish("plant/a/1", R"({"t": 10, "v": 10})");

  Taken taken;
  ASSERT_EQ(taken.take_until(hub, 5), 5u) << rejections.joined();
  EXPECT_EQ(taken.times["a-1"], (std::vector<std::int64_t>{1, 3, 6, 7, 10}));
  EXPECT_EQ(taken.values["a-1"], (std::vector<float>{1, 3, 6, 7, 10}));
  ASSERT_TRUE(wait_until([&] { return source->counters().messages == 8; }));
  const RegistrySnapshot s = snapshot();
  EXPECT_EQ(s.rejected[RejectReason::malformed_frame], 4u)
      << "the float time, the broken JSON, the bad line, the string\n"
      << rejections.joined();
  EXPECT_EQ(s.rejected[RejectReason::wrong_dims], 1u);
  EXPECT_EQ(s.rejected[RejectReason::empty_payload], 1u);
  EXPECT_EQ(s.rejected[RejectReason::unmapped_topic], 1u);
  EXPECT_EQ(s.rejected[RejectReason::invalid_stream_id], 1u);
  EXPECT_TRUE(rejections.contains("a-1 malformed_frame: element 2: \"t\" is not an integer"))
      << rejections.joined();
  EXPECT_TRUE(rejections.contains("a-1 malformed_frame: not valid JSON (error at byte"));
  EXPECT_TRUE(rejections.contains(
      "plant/a unmapped_topic: the MQTT topic has 2 levels, the stream template '{2}-{3}' uses 3"))
      << rejections.joined();
}

TEST_F(MqttSourceTest, AConfiguredPayloadFormatTakesThatFormatOnly) {
  auto frames = options({"f/+"});
  frames.payload = PayloadFormat::frame;
  auto text = options({"t/+"});
  text.payload = PayloadFormat::text;
  auto json = options({"j/+"});
  json.payload = PayloadFormat::json;
  auto frame_source = make(frames), text_source = make(text), json_source = make(json);
  for (auto* s : {frame_source.get(), text_source.get(), json_source.get()}) start_subscribed(*s);

  MqttPublisher pub(broker.port());
  const auto frame = encode_frame(samples({1}, {1}), true);
  const std::string line = "2,2\n", object = R"({"t": 3, "v": 3})";
  for (const char* level : {"f", "t", "j"}) {
    const std::string topic = std::string(level) + "/x";
    pub.publish(topic, frame);
    pub.publish(topic, line);
    pub.publish(topic, object);
  }
  Taken taken;
  ASSERT_EQ(taken.take_until(hub, 3), 3u);
  EXPECT_EQ(taken.times["f/x"], std::vector<std::int64_t>{1});
  EXPECT_EQ(taken.times["t/x"], std::vector<std::int64_t>{2});
  EXPECT_EQ(taken.times["j/x"], std::vector<std::int64_t>{3});
  ASSERT_TRUE(wait_until([&] { return snapshot().rejected.total() == 6; })) << rejections.joined();
  EXPECT_EQ(snapshot().rejected[RejectReason::unknown_payload], 3u)
      << "frame-only: the line and the object; text-only: the frame (NUL bytes)\n"
      << rejections.joined();
  EXPECT_EQ(snapshot().rejected[RejectReason::malformed_frame], 3u)
      << "text-only: the object as a line; JSON-only: the frame and the line\n"
      << rejections.joined();
}

TEST_F(MqttSourceTest, QoS1MessagesWaitAtTheBrokerForAPersistentSession) {
  auto o = options({"s/#"});
  o.qos = 1;
  o.client_id = "warpwatch-test-persistent";
  o.clean_session = false;
  auto first = make(o);
  start_subscribed(*first);
  first->stop();  // a DISCONNECT: the session stays at the broker
  EXPECT_FALSE(first->connected());

  MqttPublisher pub(broker.port());
  for (int i = 0; i < 20; ++i) pub.publish("s/1", std::to_string(100 + i) + ",1\n", 1);

  auto second = make(o);  // the same client id takes the session with its queued messages
  start_subscribed(*second);
  Taken taken;
  EXPECT_EQ(taken.take_until(hub, 20), 20u) << "the broker kept them for the session\n"
                                            << broker.log();
  EXPECT_EQ(taken.times["s/1"].front(), 100);
  EXPECT_EQ(taken.times["s/1"].back(), 119);
}

TEST_F(MqttSourceTest, ReconnectsWithBackoffAfterTheBrokerIsKilledAndRestarted) {
  auto source = make(options({"r/+"}));
  start_subscribed(*source);
  {
    MqttPublisher pub(broker.port());
    pub.publish("r/1", "1,1\n");
  }
  Taken taken;
  ASSERT_EQ(taken.take_until(hub, 1), 1u);

  broker.kill();
  ASSERT_TRUE(wait_until([&] { return !source->connected(); })) << "the loss is noticed";
  // Attempts against a closed port fail and are counted (20 ms, 40, 80, ...).
  ASSERT_TRUE(wait_until([&] { return source->counters().connect_failures >= 3; }))
      << source_log.joined();
  broker.start();  // the same port
  ASSERT_TRUE(wait_until([&] { return source->connected(); })) << source_log.joined();
  {
    MqttPublisher pub(broker.port());
    pub.publish("r/1", "2,2\n");
  }
  ASSERT_EQ(taken.take_until(hub, 2), 2u);
  EXPECT_EQ(taken.times["r/1"], (std::vector<std::int64_t>{1, 2}));
  const MqttCounters c = source->counters();
  EXPECT_EQ(c.connects, 2u);
  EXPECT_EQ(c.connections_lost, 1u);
  EXPECT_GE(c.connect_failures, 3u);
  EXPECT_TRUE(source_log.contains("connection lost")) << source_log.joined();
  EXPECT_TRUE(source_log.contains("cannot connect: ")) << source_log.joined();
  EXPECT_TRUE(source_log.contains("connected after ")) << source_log.joined();
}

TEST_F(MqttSourceTest, ConnectionFailuresAreLoggedAtMostEveryTenSeconds) {
  broker.stop();
  auto source = make(options({"x/+"}));
  source->start();
  ASSERT_TRUE(wait_until([&] { return source->counters().connect_failures >= 5; }));
  source->stop();
  const std::string log = source_log.joined();
  std::size_t lines = 0;
  for (std::size_t at = log.find("cannot connect"); at != std::string::npos;
       at = log.find("cannot connect", at + 1))
    ++lines;
  EXPECT_EQ(lines, 1u) << "the first failure of an outage, then one line per 10 s\n" << log;
}

TEST(MqttAuth, UsernameAndPasswordAreCheckedByTheBroker) {
  TempDir dir;
  const std::string passwords = dir.file("passwords");
  bench::ChildProcess make_passwords("/usr/bin/mosquitto_passwd",
                                     {"-b", "-c", passwords, "warpwatch", "s3cret"},
                                     dir.file("mosquitto_passwd.log"));
  const auto status = make_passwords.wait_exit(10s);
  ASSERT_TRUE(status && WIFEXITED(*status) && WEXITSTATUS(*status) == 0)
      << bench::file_tail(dir.file("mosquitto_passwd.log"), 2000);
  MosquittoBroker broker(dir, "allow_anonymous false\npassword_file " + passwords + "\n");
  StreamRegistry registry({}, auto_create());
  IngestHub hub(registry, QueueLimits{});
  Lines log;
  const auto source_with = [&](std::string password) {
    MqttSourceOptions o = quick_options(broker.port(), {"a/+"});
    o.username = "warpwatch";
    o.password = std::move(password);
    return std::make_unique<MqttSource>(o, hub, into(log));
  };

  auto wrong = source_with("guess");
  wrong->start();
  ASSERT_TRUE(wait_until([&] { return wrong->counters().connect_failures >= 2; }));
  EXPECT_FALSE(wrong->connected());
  EXPECT_EQ(wrong->counters().connects, 0u);
  EXPECT_TRUE(log.contains("refused by the broker: Connection Refused: not authorised"))
      << log.joined();
  wrong->stop();

  auto right = source_with("s3cret");
  right->start();
  ASSERT_TRUE(wait_until([&] { return right->connected(); })) << log.joined() << broker.log();
  MqttPublisher pub(broker.port(), {.username = "warpwatch", .password = "s3cret", .ca_file = ""});
  pub.publish("a/1", "1,1\n");
  Taken taken;
  EXPECT_EQ(taken.take_until(hub, 1), 1u);
}

// A CA, and a certificate for 127.0.0.1 that it signed, made with the openssl command.
struct TestCertificates {
  explicit TestCertificates(const TempDir& dir, const std::string& prefix)
      : ca(dir.file(prefix + "ca.pem")),
        cert(dir.file(prefix + "server.pem")),
        key(dir.file(prefix + "server.key")) {
    const std::string ca_key = dir.file(prefix + "ca.key"), csr = dir.file(prefix + "server.csr"),
                      ext = dir.write(prefix + "ext.cnf", "subjectAltName=IP:127.0.0.1\n");
    run({"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
         "-keyout", ca_key, "-out", ca, "-days", "2", "-subj", "/CN=warpwatch test CA"},
        dir);
    run({"req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key,
         "-out", csr, "-subj", "/CN=127.0.0.1"},
        dir);
    run({"x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-out", cert,
         "-days", "2", "-extfile", ext},
        dir);
    // The broker reads it as the user `mosquitto` (a throwaway key of a test).
    std::filesystem::permissions(key, std::filesystem::perms::others_read,
                                 std::filesystem::perm_options::add);
  }
  static void run(std::vector<std::string> args, const TempDir& dir) {
    const std::string log = dir.file("openssl.log");
    bench::ChildProcess openssl("/usr/bin/openssl", args, log);
    const auto status = openssl.wait_exit(30s);
    if (!status || !WIFEXITED(*status) || WEXITSTATUS(*status) != 0)
      throw std::runtime_error("openssl " + args.front() +
                               " failed: " + bench::file_tail(log, 2000));
  }
  std::string ca, cert, key;
};

TEST(MqttTls, ConnectsOverTlsAndRefusesABrokerItsCaDidNotSign) {
  TempDir dir;
  const TestCertificates good(dir, "good-"), other(dir, "other-");
  MosquittoBroker broker(dir, "allow_anonymous true\ncafile " + good.ca + "\ncertfile " +
                                  good.cert + "\nkeyfile " + good.key + "\n");
  StreamRegistry registry({}, auto_create());
  IngestHub hub(registry, QueueLimits{});
  Lines log;
  const auto source_trusting = [&](const std::string& ca) {
    MqttSourceOptions o = quick_options(broker.port(), {"tls/+"});
    o.tls = MqttTls{ca, "", ""};
    return std::make_unique<MqttSource>(o, hub, into(log));
  };

  auto untrusting = source_trusting(other.ca);
  EXPECT_EQ(untrusting->describe().rfind("mqtts 127.0.0.1:", 0), 0u);
  untrusting->start();
  ASSERT_TRUE(wait_until([&] { return untrusting->counters().connect_failures >= 2; }))
      << log.joined() << broker.log();
  EXPECT_EQ(untrusting->counters().connects, 0u) << log.joined();
  EXPECT_TRUE(log.contains("certificate verify failed")) << log.joined();
  untrusting->stop();

  auto trusting = source_trusting(good.ca);
  trusting->start();
  ASSERT_TRUE(wait_until([&] { return trusting->connected(); })) << log.joined() << broker.log();
  const MqttPublisher::Options tls{.username = "", .password = "", .ca_file = good.ca};
  MqttPublisher(broker.port(), tls).publish("tls/1", R"({"t": 1, "v": [2]})");
  Taken taken;
  ASSERT_EQ(taken.take_until(hub, 1), 1u);
  EXPECT_EQ(taken.values["tls/1"], std::vector<float>{2});

  // Without a ca_file the system's trusted CAs are used: OpenSSL's default verify paths,
  // which SSL_CERT_FILE names (restored after).
  const char* system_cas = std::getenv("SSL_CERT_FILE");
  const std::string saved = system_cas ? system_cas : "";
  ::setenv("SSL_CERT_FILE", good.ca.c_str(), 1);
  auto system_trusting = source_trusting("");
  system_trusting->start();
  const bool connected = wait_until([&] { return system_trusting->connected(); }, 5s);
  system_trusting->stop();
  if (system_cas)
    ::setenv("SSL_CERT_FILE", saved.c_str(), 1);
  else
    ::unsetenv("SSL_CERT_FILE");
  EXPECT_TRUE(connected) << log.joined();

  // Refused connections over TLS fail and are retried too (libmosquitto alone would wait
  // for the keepalive: tens of seconds).
  broker.kill();
  ASSERT_TRUE(wait_until([&] { return trusting->counters().connect_failures >= 3; }, 5s))
      << log.joined();
  broker.start();
  ASSERT_TRUE(wait_until([&] { return trusting->connected(); }, 5s)) << log.joined();
  MqttPublisher(broker.port(), tls).publish("tls/1", R"({"t": 2, "v": [3]})");
  ASSERT_EQ(taken.take_until(hub, 2), 2u);
  EXPECT_EQ(taken.values["tls/1"], (std::vector<float>{2, 3}));
}

TEST_F(MqttSourceTest, RetainedMessagesAreSkippedAndCountedUnlessAsked) {
  {
    MqttPublisher pub(broker.port());
    pub.publish("k/1", "1,1\n", 0, true);
  }
  auto skipping = make(options({"k/+"}));
  start_subscribed(*skipping);
  ASSERT_TRUE(wait_until([&] { return skipping->counters().retained_skipped == 1; }));
  EXPECT_EQ(hub.take_all().samples, 0u);

  auto o = options({"k/+"});
  o.retained = true;
  auto taking = make(o);
  start_subscribed(*taking);
  Taken taken;
  EXPECT_EQ(taken.take_until(hub, 1), 1u);
  EXPECT_EQ(taking->counters().retained_skipped, 0u);
}

TEST_F(MqttSourceTest, AFullQueueDropsAndCountsWhileTheSourceReadsOn) {
  IngestHub small(registry,
                  QueueLimits{1 << 20, 10 * queued_sample_bytes(1), 10 * queued_sample_bytes(1)});
  MqttSource source(options({"q/+"}), small);
  start_subscribed(source);
  MqttPublisher pub(broker.port());
  for (int i = 0; i < 8; ++i)  // 8 messages of 4 samples: room for 3 of them (12 >= 10)
    pub.publish("q/1", std::to_string(4 * i) + ",1\n" + std::to_string(4 * i + 1) + ",1\n" +
                           std::to_string(4 * i + 2) + ",1\n" + std::to_string(4 * i + 3) + ",1\n");
  ASSERT_TRUE(wait_until([&] { return source.counters().messages == 8; }));
  const RegistrySnapshot s = snapshot();
  EXPECT_EQ(s.accepted_samples, 12u);
  EXPECT_EQ(s.rejected[RejectReason::queue_full], 20u) << "counted per sample";
  EXPECT_EQ(small.backlog().sources.at(0).dropped_messages, 5u);
  EXPECT_TRUE(source.connected()) << "a full queue does not stop the reading";
}

TEST_F(MqttSourceTest, APausedSourceReadsNothingUntilResumed) {
  auto source = make(options({"p/+"}));
  start_subscribed(*source);
  MqttPublisher pub(broker.port());
  pub.publish("p/1", "1,1\n");
  Taken taken;
  ASSERT_EQ(taken.take_until(hub, 1), 1u);
  source->pause();
  std::this_thread::sleep_for(200ms);  // a network round under way may finish first
  pub.publish("p/1", "2,2\n");
  std::this_thread::sleep_for(300ms);  // three rounds: a running source would have read it
  EXPECT_EQ(source->counters().messages, 1u) << "a paused source reads nothing";
  source->resume();
  EXPECT_EQ(taken.take_until(hub, 2), 2u) << "what waited in the socket arrives after the resume";
}

TEST(MqttSourceOptions, BadOptionsAreRefusedBeforeAnythingConnects) {
  StreamRegistry registry({});
  IngestHub hub(registry, QueueLimits{});
  const auto refused = [&](const std::function<void(MqttSourceOptions&)>& change) {
    MqttSourceOptions o;
    o.host = "127.0.0.1";
    o.topics = {"a/+/b"};
    change(o);
    try {
      MqttSource source(o, hub);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(refused([](auto&) {}), "accepted");
  EXPECT_EQ(refused([](auto& o) { o.host.clear(); }), "mqtt source: no host");
  EXPECT_EQ(refused([](auto& o) { o.topics = {"a/#/b"}; }),
            "mqtt source: 'a/#/b' is not an MQTT topic filter");
  EXPECT_EQ(refused([](auto& o) { o.stream_template = "{4}"; }),
            "mqtt source: the topic filter 'a/+/b' matches topics of 3 levels, the stream "
            "template '{4}' uses level 4");
  EXPECT_EQ(refused([](auto& o) { o.stream_template = "{x}"; }),
            "stream template '{x}', column 1: unknown placeholder '{x}': use {topic} or a topic "
            "level {1}, {2}, ...");
  EXPECT_EQ(refused([](auto& o) { o.qos = 2; }), "mqtt source: qos must be 0 or 1");
  EXPECT_EQ(refused([](auto& o) { o.clean_session = false; }),
            "mqtt source: a persistent session needs a client_id");
  EXPECT_EQ(refused([](auto& o) { o.password = "p"; }), "mqtt source: a password needs a username");
}

}  // namespace
