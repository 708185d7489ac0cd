// What `warpwatch bench e2e` needs from the operating system: a child process with its
// stderr in a file, /proc readings, a free loopback port, a plain HTTP GET and the
// Prometheus text of /metrics. Private to daemon/bench/ (and its tests).
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "warpwatch/bench/e2e.hpp"

namespace warpwatch::bench::e2e_detail {

// A TCP port on 127.0.0.1 that was free a moment ago.
int free_loopback_port();

class ChildProcess {
 public:
  // Starts `program args...` with this environment minus systemd's notification
  // variables; stdout to /dev/null, stderr to `stderr_path`. Throws std::runtime_error.
  ChildProcess(const std::string& program, const std::vector<std::string>& args,
               const std::string& stderr_path);
  ~ChildProcess();  // SIGKILLs and reaps a child still running
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  bool running();  // reaps it when it has exited
  void signal(int number) const;
  // The wait status once it exited, or nullopt when it still runs after `limit`.
  std::optional<int> wait_exit(std::chrono::milliseconds limit);
  const rusage& usage() const { return usage_; }  // valid once exited

 private:
  pid_t pid_ = -1;
  std::optional<int> status_;
  rusage usage_{};
};

struct ProcReading {
  bool ok = false;
  double cpu_s = 0;           // utime + stime
  double peak_rss_bytes = 0;  // VmHWM
  double rss_bytes = 0;       // VmRSS
};
ProcReading read_proc(pid_t pid);

struct HttpResponse {
  int status = 0;
  std::string body;
};
// GET http://127.0.0.1:port/target; nullopt when nothing answers within `timeout`.
std::optional<HttpResponse> http_get(int port, const std::string& target,
                                     std::chrono::milliseconds timeout);

std::string file_tail(const std::string& path, std::size_t bytes);

}  // namespace warpwatch::bench::e2e_detail
