// MqttSink: the load generator's messages published at an MQTT broker (libmosquitto).
#include <mosquitto.h>

#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <string>

#include "warpwatch/bench/load_generator.hpp"

namespace warpwatch::bench {
namespace {

void check(int rc, const char* what) {
  if (rc != MOSQ_ERR_SUCCESS)
    throw std::runtime_error(std::string("mqtt sink: ") + what + ": " + mosquitto_strerror(rc));
}

}  // namespace

struct MqttSink::Impl {
  MqttSinkOptions options;
  mosquitto* client = nullptr;
  std::mutex mu;
  std::condition_variable cv;  // connected, or a message left
  bool connected = false;
  std::uint64_t published = 0, left = 0;  // messages handed to libmosquitto, and those sent
  std::string topic;                      // scratch: <topic_prefix><stream id>
};

MqttSink::MqttSink(const MqttSinkOptions& options) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.options = options;
  mosquitto_lib_init();  // reference-counted by libmosquitto
  m.client = mosquitto_new(nullptr, true, &m);
  if (!m.client) throw std::runtime_error("mqtt sink: mosquitto_new failed");
  mosquitto_connect_callback_set(m.client, [](mosquitto*, void* obj, int rc) {
    auto& self = *static_cast<Impl*>(obj);
    const std::lock_guard lock(self.mu);
    self.connected = rc == 0;
    self.cv.notify_all();
  });
  mosquitto_disconnect_callback_set(m.client, [](mosquitto*, void* obj, int) {
    auto& self = *static_cast<Impl*>(obj);
    const std::lock_guard lock(self.mu);
    self.connected = false;
  });
  mosquitto_publish_callback_set(m.client, [](mosquitto*, void* obj, int) {
    auto& self = *static_cast<Impl*>(obj);
    const std::lock_guard lock(self.mu);
    ++self.left;
    self.cv.notify_all();
  });
  check(mosquitto_reconnect_delay_set(m.client, 1, 1, false), "reconnect delay");
  // Asynchronous: a broker that is not up yet is retried by the loop thread.
  check(mosquitto_connect_async(m.client, options.host.c_str(), options.port, 30), "connect");
  check(mosquitto_loop_start(m.client), "loop");
}

MqttSink::~MqttSink() {
  Impl& m = *impl_;
  {
    std::unique_lock lock(m.mu);
    m.cv.wait_for(lock, std::chrono::milliseconds(m.options.linger_ms),
                  [&] { return m.left >= m.published || !m.connected; });
  }
  mosquitto_disconnect(m.client);
  mosquitto_loop_stop(m.client, false);
  mosquitto_destroy(m.client);
  mosquitto_lib_cleanup();
}

bool MqttSink::try_send(std::string_view stream_id, std::span<const std::byte> payload) {
  Impl& m = *impl_;
  {
    const std::lock_guard lock(m.mu);
    if (!m.connected) return false;
  }
  m.topic.assign(m.options.topic_prefix).append(stream_id);
  const int rc =
      mosquitto_publish(m.client, nullptr, m.topic.c_str(), static_cast<int>(payload.size()),
                        payload.data(), m.options.qos, false);
  if (rc == MOSQ_ERR_NO_CONN || rc == MOSQ_ERR_CONN_LOST) return false;  // wait and retry
  check(rc, "publish");
  const std::lock_guard lock(m.mu);
  ++m.published;
  return true;
}

void MqttSink::wait_writable(std::chrono::milliseconds limit) {
  Impl& m = *impl_;
  std::unique_lock lock(m.mu);
  m.cv.wait_for(lock, limit, [&] { return m.connected; });
}

}  // namespace warpwatch::bench
