// What a driver of a real warpwatchd needs from the operating system: a child process with
// its stderr in a file, /proc readings, a free loopback port, an HTTP GET and the text of
// /metrics. `warpwatch bench e2e` uses it, and so do the tests that run the daemon as a
// process (tests/support/processes/daemon_process.hpp, http/http_client.hpp).
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace warpwatch::bench {

// A TCP port on 127.0.0.1 for configurations that need fixed endpoints, reserved until this
// process exits: a socket with SO_REUSEADDR stays bound to it without listening. A listener
// that also sets SO_REUSEADDR (libzmq's TCP listener and the metrics server do) binds it;
// nothing else can: the kernel gives a bound port to no other bind(0), no outgoing
// connection and no parallel test process, so two calls never return the same port either.
// (A port that was merely free a moment ago was taken in between under `ctest -j`.)
int free_loopback_port();

class ChildProcess {
 public:
  // Starts `program args...` with this environment minus systemd's notification
  // variables, plus `extra_env` ("NAME=value"); stdin and stdout /dev/null, stderr to
  // `stderr_path`. Throws std::runtime_error.
  ChildProcess(const std::string& program, const std::vector<std::string>& args,
               const std::string& stderr_path, const std::vector<std::string>& extra_env = {});
  ~ChildProcess();  // SIGKILLs and reaps a child still running (a failed run leaves none)
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
// From /proc/PID/stat and /proc/PID/status; ok false once the process is gone.
ProcReading read_proc(pid_t pid);

struct HttpResponse {
  int status = 0;
  std::string content_type;
  std::string body;
};
// GET http://127.0.0.1:port/target with Boost.Beast; nullopt when nothing answers within
// `timeout`.
std::optional<HttpResponse> http_get(int port, const std::string& target,
                                     std::chrono::milliseconds timeout);
// HTTPS: the server's certificate is verified (chain and host name or address) against the
// system's trust store and, when given, `ca_file` (PEM: a private CA, or the daemon's own
// self-signed certificate).
struct HttpTls {
  bool on = false;
  std::string ca_file;
};
// The same of http://host:port/target (a name or an address; https with `tls.on`), with
// `headers` besides Host (`warpwatch explain`'s Authorization); `why` says what failed.
std::optional<HttpResponse> http_get(
    const std::string& host, int port, const std::string& target, std::chrono::milliseconds timeout,
    std::string* why = nullptr,
    const std::vector<std::pair<std::string, std::string>>& headers = {}, const HttpTls& tls = {});
// Any method (GET, PUT, ...) with a body (sent as application/json when not empty): what
// both http_get's are.
std::optional<HttpResponse> http_request(
    const std::string& host, int port, const std::string& method, const std::string& target,
    const std::string& body, std::chrono::milliseconds timeout, std::string* why = nullptr,
    const std::vector<std::pair<std::string, std::string>>& headers = {}, const HttpTls& tls = {});

// Prometheus text format: "name{labels}" -> value, comment lines and unreadable values
// skipped.
std::map<std::string, double> parse_prometheus_text(const std::string& text);

// The last `bytes` of a file ("..." before them when cut).
std::string file_tail(const std::string& path, std::size_t bytes);

}  // namespace warpwatch::bench
