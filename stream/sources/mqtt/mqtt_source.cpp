#include "warpwatch/stream/sources/mqtt_source.hpp"

#include <mosquitto.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <system_error>

#include "warpwatch/base/stream_id.hpp"

namespace warpwatch::stream {
namespace {

constexpr int loop_timeout_ms = 100;  // how long one network round waits: stop and pause latency
constexpr auto failure_log_interval = std::chrono::seconds(10);

// libmosquitto's messages ("The connection was lost.") as part of a line: no full stop.
std::string clause(const char* message) {
  std::string text = message ? message : "";
  if (text.ends_with('.')) text.pop_back();
  return text;
}

// libmosquitto's global state, set up once per process (its network and TLS libraries)
// and left for the process' exit.
void init_library() {
  static const int rc = mosquitto_lib_init();
  if (rc != MOSQ_ERR_SUCCESS)
    throw std::runtime_error("libmosquitto: " + clause(mosquitto_strerror(rc)));
}

std::string joined(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) {
    if (!out.empty()) out.push_back(',');
    out.append(p);
  }
  return out;
}

void require(bool ok, std::string_view what) {
  if (!ok) throw std::invalid_argument("mqtt source: " + std::string(what));
}

void check(const MqttSourceOptions& o, const TopicTemplate& tmpl) {
  require(!o.host.empty(), "no host");
  require(o.port >= 1 && o.port <= 65535, "port outside 1..65535");
  require(!o.topics.empty(), "no topic filters");
  for (const std::string& filter : o.topics) {
    require(is_topic_filter(filter), "'" + filter + "' is not an MQTT topic filter");
    if (const auto why = tmpl.misfit(filter)) require(false, *why);
  }
  require(o.qos == 0 || o.qos == 1, "qos must be 0 or 1");
  require(o.keepalive_s >= 5 && o.keepalive_s <= 65535, "keepalive_s outside 5..65535");
  require(o.reconnect_min.count() > 0 && o.reconnect_max >= o.reconnect_min,
          "reconnect delays must be > 0, the maximum at least the minimum");
  require(o.clean_session || !o.client_id.empty(), "a persistent session needs a client_id");
  require(!o.username.empty() || o.password.empty(), "a password needs a username");
  require(!o.tls || o.tls->cert_file.empty() == o.tls->key_file.empty(),
          "a TLS client certificate needs both cert_file and key_file");
}

// An encrypted private key would make OpenSSL ask on the terminal: answer no password, so
// that the attempt fails (and says so) instead.
int no_key_password(char*, int, int, void*) {
  return 0;
}

const char* or_null(const std::string& s) {
  return s.empty() ? nullptr : s.c_str();
}

// Why a socket whose connection is under way has failed, or nullopt while it has not.
std::optional<std::string> failed_connect(int fd) {
  pollfd p{fd, 0, 0};
  if (::poll(&p, 1, 0) != 1 || (p.revents & (POLLERR | POLLHUP)) == 0) return std::nullopt;
  int error = 0;
  socklen_t size = sizeof error;
  ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &size);
  return error != 0 ? std::error_code(error, std::generic_category()).message()
                    : std::string("the connection failed");
}

MqttSource* self(void* obj) {
  return static_cast<MqttSource*>(obj);
}

}  // namespace

MqttSource::MqttSource(MqttSourceOptions options, IngestHub& hub, MqttLog log)
    : options_(std::move(options)),
      template_(options_.stream_template),
      hub_(hub),
      log_(std::move(log)),
      client_(nullptr, mosquitto_destroy) {
  check(options_, template_);
  init_library();
  client_.reset(mosquitto_new(or_null(options_.client_id), options_.clean_session, this));
  if (!client_)
    throw std::runtime_error("mqtt source: cannot create the client: " +
                             std::error_code(errno, std::generic_category()).message());
  mosquitto* c = client_.get();
  const auto setup = [&](int rc, std::string_view what) {
    if (rc != MOSQ_ERR_SUCCESS)
      throw std::runtime_error("mqtt source " + describe() + ": " + std::string(what) + ": " +
                               clause(mosquitto_strerror(rc)));
  };
  if (!options_.username.empty())
    setup(mosquitto_username_pw_set(c, options_.username.c_str(), or_null(options_.password)),
          "username and password");
  if (options_.tls) {
    const MqttTls& tls = *options_.tls;
    if (tls.ca_file.empty())
      setup(mosquitto_int_option(c, MOSQ_OPT_TLS_USE_OS_CERTS, 1), "the system's trusted CAs");
    else
      setup(mosquitto_tls_set(c, tls.ca_file.c_str(), nullptr, or_null(tls.cert_file),
                              or_null(tls.key_file), no_key_password),
            "TLS files (ca_file " + tls.ca_file + ")");
  }
  mosquitto_connect_callback_set(c,
                                 [](mosquitto*, void* obj, int rc) { self(obj)->on_connect(rc); });
  mosquitto_subscribe_callback_set(
      c, [](mosquitto*, void* obj, int mid, int count, const int* granted) {
        self(obj)->on_subscribe(mid, count, granted);
      });
  mosquitto_message_callback_set(
      c, [](mosquitto*, void* obj, const mosquitto_message* m) { self(obj)->on_message(*m); });
  mosquitto_log_callback_set(c, [](mosquitto*, void* obj, int level, const char* text) {
    self(obj)->on_library_log(level, text);
  });
  source_ = hub_.add_source(describe(), Overflow::drop);
}

MqttSource::~MqttSource() {
  stop();
}

std::string MqttSource::describe() const {
  return (options_.tls ? "mqtts " : "mqtt ") + options_.host + ":" + std::to_string(options_.port) +
         " " + joined(options_.topics);
}

MqttCounters MqttSource::counters() const {
  return {describe(),
          connected(),
          messages_.load(),
          retained_skipped_.load(),
          connects_.load(),
          connect_failures_.load(),
          connections_lost_.load(),
          subscriptions_refused_.load()};
}

void MqttSource::run(std::stop_token stop) {
  delay_ = options_.reconnect_min;
  next_attempt_ = Clock::now();
  std::mutex sleep_mu;
  std::condition_variable_any sleep_cv;
  while (wait_while_paused(stop)) {
    if (link_ == Link::down) {
      if (Clock::now() < next_attempt_) {
        std::unique_lock lock(sleep_mu);
        sleep_cv.wait_until(lock, stop, next_attempt_, [] { return false; });
      } else {
        begin_attempt();
      }
      continue;
    }
    const int rc = mosquitto_loop(client_.get(), loop_timeout_ms, 1);
    if (rc != MOSQ_ERR_SUCCESS || mosquitto_socket(client_.get()) < 0) {
      link_ended(rc);
    } else if (link_ == Link::connecting) {
      if (const auto error = failed_connect(mosquitto_socket(client_.get()))) {
        // libmosquitto 2.0.11 over TLS does not notice a refused connection: its loop then
        // returns at once, with success, until the keepalive ends the attempt. The next
        // attempt closes the socket (mosquitto_connect_async starts with that).
        link_ = Link::down;
        attempt_failed(*error);
      }
    }
  }
  // A DISCONNECT, so that the broker ends the session now rather than after the keepalive.
  // What is still unread in the socket was not received, so not acknowledged either.
  if (link_ != Link::down) mosquitto_disconnect(client_.get());
  receiving_ = false;
  link_ = Link::down;
}

void MqttSource::begin_attempt() {
  refusal_.clear();
  library_error_.clear();
  const int rc = mosquitto_connect_async(client_.get(), options_.host.c_str(), options_.port,
                                         options_.keepalive_s);
  if (rc == MOSQ_ERR_SUCCESS) {
    link_ = Link::connecting;
    return;
  }
  attempt_failed(failure_reason(rc));
}

void MqttSource::on_connect(int rc) {
  if (rc != 0) {  // refused; libmosquitto then ends the connection and the loop says so
    refusal_ = "refused by the broker: " + clause(mosquitto_connack_string(rc));
    return;
  }
  link_ = Link::up;
  up_since_ = Clock::now();
  ++connects_;
  log(MqttLogLevel::info,
      failures_in_outage_ == 0
          ? std::string("connected")
          : "connected after " + std::to_string(failures_in_outage_) + " failed attempts");
  failures_in_outage_ = failures_unlogged_ = 0;
  subscribing_.clear();
  for (const std::string& filter : options_.topics) {
    int mid = 0;
    const int sub = mosquitto_subscribe(client_.get(), &mid, filter.c_str(), options_.qos);
    if (sub == MOSQ_ERR_SUCCESS)
      subscribing_.emplace(mid, filter);
    else  // the connection is going: the loop will say so and the next one subscribes anew
      log(MqttLogLevel::warning,
          "cannot subscribe to '" + filter + "': " + clause(mosquitto_strerror(sub)));
  }
}

void MqttSource::on_subscribe(int mid, int count, const int* granted) {
  const auto it = subscribing_.find(mid);
  if (it == subscribing_.end()) return;
  const int qos = count > 0 ? granted[0] : 0x80;
  if (qos == 0x80) {  // MQTT 3.1.1's SUBACK failure code
    ++subscriptions_refused_;
    log(MqttLogLevel::warning, "the broker refused the subscription to '" + it->second + "'");
  } else if (qos < options_.qos) {
    log(MqttLogLevel::info, "the broker granted QoS " + std::to_string(qos) + " for '" +
                                it->second + "' (asked for " + std::to_string(options_.qos) + ")");
  }
  subscribing_.erase(it);
  if (subscribing_.empty()) receiving_ = true;
}

void MqttSource::on_message(const mosquitto_message& message) {
  ++messages_;
  if (message.retain && !options_.retained) {
    ++retained_skipped_;
    return;
  }
  const std::span<const std::byte> payload(
      static_cast<const std::byte*>(message.payload),
      static_cast<std::size_t>(std::max(message.payloadlen, 0)));
  deliver_mqtt_message(hub_, source_, template_, options_.payload,
                       message.topic ? message.topic : "", payload);
}

void deliver_mqtt_message(IngestHub& hub, SourceId source, const TopicTemplate& stream_template,
                          PayloadFormat format, std::string_view topic,
                          std::span<const std::byte> payload) {
  const std::optional<std::string> id = stream_template.stream_id(topic);
  if (!id) {
    hub.offer_rejected(topic, RejectReason::unmapped_topic,
                       "the MQTT topic has " + std::to_string(topic_levels(topic)) +
                           " levels, the stream template " +
                           quoted(stream_template.text(), max_stream_id_bytes) + " uses " +
                           std::to_string(stream_template.highest_level()));
    return;
  }
  hub.offer_message(source, *id, payload, format);
}

void MqttSource::on_library_log(int level, const char* text) {
  if ((level & (MOSQ_LOG_ERR | MOSQ_LOG_WARNING)) != 0 && text) library_error_ = text;
}

void MqttSource::link_ended(int rc) {
  const bool was_up = link_ == Link::up;
  link_ = Link::down;
  receiving_ = false;
  subscribing_.clear();
  if (!was_up) {
    attempt_failed(failure_reason(rc));
    return;
  }
  ++connections_lost_;
  // A connection that lasted: the next attempt comes soon (and backs off anew if it fails).
  if (Clock::now() - up_since_ >= options_.reconnect_max) delay_ = options_.reconnect_min;
  const auto wait = schedule_attempt();
  log(MqttLogLevel::warning, "connection lost (" + failure_reason(rc) + "); reconnecting in " +
                                 std::to_string(wait.count()) + " ms");
}

void MqttSource::attempt_failed(const std::string& why) {
  ++connect_failures_;
  ++failures_in_outage_;
  const auto wait = schedule_attempt();
  const auto now = Clock::now();
  if (failures_in_outage_ > 1 && now - last_failure_line_ < failure_log_interval) {
    ++failures_unlogged_;
    return;
  }
  std::string line =
      "cannot connect: " + why + "; next attempt in " + std::to_string(wait.count()) + " ms";
  if (failures_unlogged_ > 0)
    line += " (" + std::to_string(failures_unlogged_) + " more failed since the last line)";
  log(MqttLogLevel::warning, line);
  last_failure_line_ = now;
  failures_unlogged_ = 0;
}

std::chrono::milliseconds MqttSource::schedule_attempt() {
  const auto wait = delay_;
  next_attempt_ = Clock::now() + wait;
  delay_ = std::min(delay_ * 2, options_.reconnect_max);
  return wait;
}

std::string MqttSource::failure_reason(int rc) const {
  if (!refusal_.empty()) return refusal_;
  std::string why = rc == MOSQ_ERR_ERRNO ? std::error_code(errno, std::generic_category()).message()
                    : rc == MOSQ_ERR_SUCCESS ? std::string("the connection closed")
                                             : clause(mosquitto_strerror(rc));
  if (!library_error_.empty()) why += " (" + library_error_ + ")";
  return why;
}

void MqttSource::log(MqttLogLevel level, std::string_view text) const {
  if (!log_) return;
  std::string line = describe();
  line += ": ";
  line += text;
  log_(level, line);
}

}  // namespace warpwatch::stream
