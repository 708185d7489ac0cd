// A real Prometheus Alertmanager (Debian's prometheus-alertmanager, which `make deps`
// installs) for the Alertmanager sink's tests: on 127.0.0.1 at a given port, clustering
// off, its storage in a temporary folder, one route to a receiver that notifies nobody.
// Missing, it is a failure, not a skip: CI installs it.
#pragma once

#include <unistd.h>

#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "test_support.hpp"
#include "warpwatch/bench/loopback.hpp"

namespace warpwatch::testing {

inline constexpr const char* alertmanager_binary = "/usr/bin/prometheus-alertmanager";

class AlertmanagerProcess {
 public:
  // Starts it on `port` (bench::free_loopback_port(): reserved, and Go's listener, with
  // SO_REUSEADDR, binds it) and waits, at most 30 s, until GET /-/ready answers 200.
  // Throws std::runtime_error saying why it did not come up, its stderr included.
  explicit AlertmanagerProcess(int port) : port_(port) {
    if (::access(alertmanager_binary, X_OK) != 0)
      throw std::runtime_error(std::string(alertmanager_binary) +
                               " is missing: install the Debian package prometheus-alertmanager "
                               "(`make deps` does)");
    const std::string config = dir_.write(
        "alertmanager.yml", "route:\n  receiver: nobody\nreceivers:\n  - name: nobody\n");
    process_.emplace(alertmanager_binary,
                     std::vector<std::string>{
                         "--config.file=" + config,
                         "--storage.path=" + dir_.file("data"),
                         "--web.listen-address=127.0.0.1:" + std::to_string(port),
                         "--cluster.listen-address=",  // no peers, no gossip port
                         "--log.level=warn",
                     },
                     stderr_path());
    const auto deadline = std::chrono::steady_clock::now() + scaled(std::chrono::seconds(30));
    for (;;) {
      const auto ready = bench::http_get(port, "/-/ready", std::chrono::milliseconds(500));
      if (ready && ready->status == 200) return;
      if (!process_->running())
        throw std::runtime_error("prometheus-alertmanager exited at start: " + stderr_tail());
      if (std::chrono::steady_clock::now() >= deadline)
        throw std::runtime_error("prometheus-alertmanager not ready within 30 s: " + stderr_tail());
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::string stderr_tail() const { return bench::file_tail(stderr_path(), 4000); }

 private:
  std::string stderr_path() const { return dir_.file("stderr.log"); }

  int port_;
  TempDir dir_;
  std::optional<bench::ChildProcess> process_;  // SIGKILLed and reaped when destroyed
};

}  // namespace warpwatch::testing
