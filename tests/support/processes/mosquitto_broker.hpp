// A real Mosquitto broker for the MQTT tests (Debian's `mosquitto`, which `make deps`
// installs): started on a free loopback port with a generated configuration, stopped, or
// killed and started again on the same port, by the test; and a libmosquitto publisher.
// Without the broker's binary the tests fail (they never skip) and say what to install.
// The broker, started as root, runs as the user `mosquitto`: the files it reads must be
// readable by others.
#pragma once

#include <mosquitto.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "test_support.hpp"
#include "warpwatch/bench/loopback.hpp"

namespace warpwatch::testing {

inline std::string mosquitto_binary() {
  for (const char* path : {"/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto"})
    if (std::filesystem::exists(path)) return path;
  throw std::runtime_error(
      "the Mosquitto broker is not installed (no /usr/sbin/mosquitto): the MQTT tests run "
      "against a real broker; install Debian's `mosquitto` (`make deps`)");
}

// Whether something accepts TCP connections on 127.0.0.1:port now.
inline bool accepts_connections(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = ::connect(fd, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
  ::close(fd);
  return ok;
}

// Waits (polling every 10 ms, at most `limit`, scaled) until `done()`; returns its last
// answer.
template <class Done>
bool wait_until(Done done, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + scaled(limit);
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return done();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

class MosquittoBroker {
 public:
  // A broker listening on 127.0.0.1 at a free port, `listener_options` written after its
  // `listener` line (authentication, TLS files). Started here.
  explicit MosquittoBroker(const TempDir& dir,
                           const std::string& listener_options = "allow_anonymous true\n")
      : binary_(mosquitto_binary()),
        port_(bench::free_loopback_port()),
        config_(dir.file("mosquitto.conf")),
        log_base_(dir.file("mosquitto")) {
    dir.write("mosquitto.conf",
              "per_listener_settings true\n"
              "persistence false\n"
              "log_dest stderr\n"
              "log_type all\n"
              "listener " +
                  std::to_string(port_) + " 127.0.0.1\n" + listener_options);
    start();
  }
  ~MosquittoBroker() { stop(); }
  MosquittoBroker(const MosquittoBroker&) = delete;
  MosquittoBroker& operator=(const MosquittoBroker&) = delete;

  int port() const { return port_; }
  // Starts it (again, on the same port) and waits until it says it runs (after it has read
  // every file of its configuration) and accepts connections.
  void start() {
    logs_.push_back(log_base_ + "-" + std::to_string(logs_.size() + 1) + ".log");
    process_ = std::make_unique<bench::ChildProcess>(
        binary_, std::vector<std::string>{"-c", config_}, logs_.back());
    wait_until([&] { return says_it_runs() || !process_->running(); });
    if (!process_->running() || !accepts_connections(port_))
      throw std::runtime_error("mosquitto did not start listening on port " +
                               std::to_string(port_) + ": " + bench::file_tail(logs_.back(), 2000));
  }
  // SIGTERM, and waits (bounded) for its exit.
  void stop() { end(SIGTERM); }
  // SIGKILL: the broker vanishes without a word to its clients' sessions.
  void kill() { end(SIGKILL); }
  // What it logged, every start's log one after the other.
  std::string log() const {
    std::string out;
    for (const std::string& path : logs_) out += bench::file_tail(path, 20000);
    return out;
  }

 private:
  bool says_it_runs() const {
    std::ifstream in(logs_.back());
    for (std::string line; std::getline(in, line);)
      if (line.ends_with(" running")) return true;
    return false;
  }
  void end(int signal) {
    if (!process_) return;
    if (process_->running()) process_->signal(signal);
    process_->wait_exit(std::chrono::seconds(10));
    process_.reset();  // SIGKILLs it if it is somehow still there
  }

  std::string binary_;
  int port_;
  std::string config_, log_base_;
  std::vector<std::string> logs_;  // one per start
  std::unique_ptr<bench::ChildProcess> process_;
};

// A libmosquitto client that publishes from the test thread (its network loop runs on
// libmosquitto's thread) and waits for each message to be sent (QoS 0) or acknowledged
// (QoS 1), at most 10 s.
class MqttPublisher {
 public:
  struct Options {
    std::string username, password;
    std::string ca_file;  // TLS when set
  };

  explicit MqttPublisher(int port, const Options& options = {})
      : client_(mosquitto_new(nullptr, true, this), mosquitto_destroy) {
    mosquitto_lib_init();  // counted by libmosquitto; nothing to undo for a test
    if (!client_) throw std::runtime_error("mosquitto_new failed");
    mosquitto* c = client_.get();
    if (!options.username.empty())
      check(mosquitto_username_pw_set(c, options.username.c_str(), options.password.c_str()));
    if (!options.ca_file.empty())
      check(mosquitto_tls_set(c, options.ca_file.c_str(), nullptr, nullptr, nullptr, nullptr));
    mosquitto_connect_callback_set(c, [](mosquitto*, void* obj, int rc) {
      auto* self = static_cast<MqttPublisher*>(obj);
      const std::lock_guard lock(self->mu_);
      self->connack_ = rc;
      self->cv_.notify_all();
    });
    mosquitto_publish_callback_set(c, [](mosquitto*, void* obj, int mid) {
      auto* self = static_cast<MqttPublisher*>(obj);
      const std::lock_guard lock(self->mu_);
      self->done_.insert(mid);
      self->cv_.notify_all();
    });
    check(mosquitto_connect(c, "127.0.0.1", port, 30));
    check(mosquitto_loop_start(c));
    std::unique_lock lock(mu_);
    if (!cv_.wait_for(lock, scaled(std::chrono::seconds(10)), [&] { return connack_ >= 0; }) ||
        connack_ != 0)
      throw std::runtime_error("the test publisher could not connect: " +
                               std::string(mosquitto_connack_string(connack_)));
  }
  ~MqttPublisher() {
    mosquitto_disconnect(client_.get());
    mosquitto_loop_stop(client_.get(), false);
  }
  MqttPublisher(const MqttPublisher&) = delete;
  MqttPublisher& operator=(const MqttPublisher&) = delete;

  void publish(const std::string& topic, std::string_view payload, int qos = 0,
               bool retain = false) {
    int mid = 0;
    check(mosquitto_publish(client_.get(), &mid, topic.c_str(), static_cast<int>(payload.size()),
                            payload.data(), qos, retain));
    std::unique_lock lock(mu_);
    if (!cv_.wait_for(lock, scaled(std::chrono::seconds(10)), [&] { return done_.count(mid) > 0; }))
      throw std::runtime_error("the test publisher's message to " + topic + " did not leave");
  }
  void publish(const std::string& topic, const std::vector<std::byte>& payload, int qos = 0) {
    publish(topic, std::string_view(reinterpret_cast<const char*>(payload.data()), payload.size()),
            qos);
  }

 private:
  static void check(int rc) {
    if (rc != MOSQ_ERR_SUCCESS)
      throw std::runtime_error(std::string("libmosquitto: ") + mosquitto_strerror(rc));
  }

  std::unique_ptr<mosquitto, void (*)(mosquitto*)> client_;
  std::mutex mu_;
  std::condition_variable cv_;
  int connack_ = -1;
  std::set<int> done_;
};

}  // namespace warpwatch::testing
