// The MQTT ingest source (docs/ingest.md §5): a libmosquitto client on a thread of its own,
// subscribed to topic filters at a broker. A message's topic gives its stream id (a
// TopicTemplate), its payload the samples (a frame, text, JSON, or any of them), delivered
// into the IngestHub on the same thread, in the message callback.
//
// Connection: started by start(), in the background, and made again whenever it is lost or
// an attempt fails, after a delay that starts at reconnect_min and doubles with each
// attempt that fails, up to reconnect_max; it starts again from reconnect_min once a
// connection has lasted reconnect_max (a broker that accepts and then drops the client
// at once is not hammered). An attempt that gets no answer ends after keepalive_s
// (libmosquitto's keepalive check). Subscriptions are made on every connection.
//
// Backpressure: a broker cannot be made to wait for one subscriber (it queues for a slow
// one up to its own limits, then drops, out of sight), so the source reads on and the hub
// drops and counts as queue_full what a full queue cannot take (Overflow::drop, as a
// ZeroMQ SUB). pause() stops the network loop: nothing is read while paused, and a pause
// longer than the keepalive costs the connection, which is made again on resume.
//
// QoS 1: libmosquitto acknowledges a message while it hands it to this source, which
// passes it to the hub in the same call: an acknowledged message has been accepted or
// counted. Messages the broker could not deliver while the client was away are kept for
// it only with a persistent session (clean_session false, a fixed client_id), and then
// only QoS 1 ones; with a clean session they are lost to this client.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "warpwatch/stream/ingest_hub.hpp"
#include "warpwatch/stream/source.hpp"
#include "warpwatch/stream/sources/mqtt_options.hpp"
#include "warpwatch/stream/sources/topic_template.hpp"

struct mosquitto;
struct mosquitto_message;

namespace warpwatch::stream {

// One MQTT source's counters, for /metrics.
struct MqttCounters {
  std::string name;                         // MqttSource::describe()
  bool connected = false;                   // MqttSource::connected()
  std::uint64_t messages = 0;               // messages received
  std::uint64_t retained_skipped = 0;       // retained messages not taken (`retained` false)
  std::uint64_t connects = 0;               // connections made (the broker accepted)
  std::uint64_t connect_failures = 0;       // attempts that made none
  std::uint64_t connections_lost = 0;       // connections that ended without a stop()
  std::uint64_t subscriptions_refused = 0;  // topic filters the broker refused
};

enum class MqttLogLevel { info, warning };
// Receives the source's own log lines (connections, refused subscriptions), each starting
// with describe(); called on the source's thread. Failed attempts are rate-limited: the
// first of an outage, then one line every 10 s with the count of those in between.
using MqttLog = std::function<void(MqttLogLevel level, std::string_view line)>;

// What an MQTT source hands the hub for a message it takes (retained ones are skipped
// before): the stream id that `stream_template` makes of `topic`, with `payload` read as
// `format`; a topic the template cannot map is counted as unmapped_topic under the topic.
// Free of a broker, so that tests and the fuzz target call what the source calls.
void deliver_mqtt_message(IngestHub& hub, SourceId source, const TopicTemplate& stream_template,
                          PayloadFormat format, std::string_view topic,
                          std::span<const std::byte> payload);

class MqttSource final : public ThreadedSource {
 public:
  // Checks the options (std::invalid_argument: no host or topics, a bad topic filter or
  // stream template, a filter the template cannot map, out-of-range numbers) and sets
  // the client up (std::runtime_error: a TLS file libmosquitto cannot use); connects on
  // start(). Registers with the hub as an Overflow::drop source.
  MqttSource(MqttSourceOptions options, IngestHub& hub, MqttLog log = {});
  ~MqttSource() override;

  // "mqtt HOST:PORT FILTER[,FILTER...]" ("mqtts" with TLS).
  std::string describe() const override;
  // True from the broker's answer to the subscriptions until the connection ends.
  bool connected() const override { return receiving_.load(); }
  MqttCounters counters() const;

 private:
  using Clock = std::chrono::steady_clock;
  enum class Link { down, connecting, up };

  void run(std::stop_token stop) override;
  void begin_attempt();
  // The connection ended (libmosquitto closed the socket): a lost one, or a failed attempt.
  void link_ended(int rc);
  void attempt_failed(const std::string& why);
  // The next attempt after the current delay, and the delay after that.
  std::chrono::milliseconds schedule_attempt();
  // What went wrong: the broker's refusal, libmosquitto's error and its last error line.
  std::string failure_reason(int rc) const;
  void log(MqttLogLevel level, std::string_view text) const;

  // libmosquitto's callbacks (on the source's thread, inside mosquitto_loop).
  void on_connect(int rc);
  void on_subscribe(int mid, int count, const int* granted);
  void on_message(const mosquitto_message& message);
  void on_library_log(int level, const char* text);

  MqttSourceOptions options_;
  TopicTemplate template_;
  IngestHub& hub_;
  MqttLog log_;
  SourceId source_ = 0;
  std::unique_ptr<mosquitto, void (*)(mosquitto*)> client_;

  // The source thread's state.
  Link link_ = Link::down;
  std::string refusal_;                     // the broker's CONNACK refusal in this attempt
  std::string library_error_;               // libmosquitto's last error line in this attempt
  std::map<int, std::string> subscribing_;  // message id -> filter, until its SUBACK
  Clock::time_point next_attempt_, up_since_, last_failure_line_;
  std::chrono::milliseconds delay_{0};
  std::uint64_t failures_in_outage_ = 0, failures_unlogged_ = 0;

  // Read by other threads.
  std::atomic<bool> receiving_{false};
  std::atomic<std::uint64_t> messages_{0}, retained_skipped_{0}, connects_{0}, connect_failures_{0},
      connections_lost_{0}, subscriptions_refused_{0};
};

}  // namespace warpwatch::stream
