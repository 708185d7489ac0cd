// The operating-system side of driving a real warpwatchd (loopback.hpp).
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "warpwatch/bench/loopback.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include "warpwatch/bench/e2e.hpp"

extern char** environ;

namespace warpwatch::bench {

int free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int reuse = 1;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof(address);
  if (fd < 0 || ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &reuse, sizeof(reuse)) != 0 ||
      ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) != 0) {
    const int error = errno;
    if (fd >= 0) ::close(fd);
    throw std::runtime_error(std::string("no free loopback port: ") + std::strerror(error));
  }
  // Deliberately never closed: the reservation lasts as long as the process (a few
  // descriptors per test or bench run).
  return ntohs(address.sin_port);
}

ChildProcess::ChildProcess(const std::string& program, const std::vector<std::string>& args,
                           const std::string& stderr_path,
                           const std::vector<std::string>& extra_env) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string var = *e;
    bool systemd = false;
    for (const char* name :
         {"NOTIFY_SOCKET=", "JOURNAL_STREAM=", "WATCHDOG_USEC=", "WATCHDOG_PID="})
      systemd = systemd || var.rfind(name, 0) == 0;
    if (!systemd) env.push_back(var);
  }
  env.insert(env.end(), extra_env.begin(), extra_env.end());
  std::vector<std::string> argv_strings{program};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv, envp;
  for (auto& a : argv_strings) argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_path.c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const int error =
      ::posix_spawn(&pid_, program.c_str(), &actions, nullptr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) throw std::runtime_error("cannot start " + program + ": " + std::strerror(error));
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !status_) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
  }
}

bool ChildProcess::running() {
  if (status_) return false;
  int status = 0;
  if (::wait4(pid_, &status, WNOHANG, &usage_) == pid_) status_ = status;
  return !status_;
}

void ChildProcess::signal(int number) const {
  if (pid_ > 0) ::kill(pid_, number);
}

std::optional<int> ChildProcess::wait_exit(std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (running()) {
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return status_;
}

ProcReading read_proc(pid_t pid) {
  ProcReading r;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return r;
  // Fields after the command name (which may hold spaces) in parentheses: state is field 3,
  // utime and stime are fields 14 and 15.
  const auto close = line.rfind(')');
  if (close == std::string::npos) return r;
  std::istringstream fields(line.substr(close + 2));
  std::string field;
  double utime = 0, stime = 0;
  for (int index = 3; fields >> field; ++index) {
    if (index == 14) utime = std::stod(field);
    if (index == 15) {
      stime = std::stod(field);
      break;
    }
  }
  r.cpu_s = (utime + stime) / static_cast<double>(::sysconf(_SC_CLK_TCK));
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  while (std::getline(status, line)) {
    const auto kb = [&](const char* key) {
      return std::stod(line.substr(std::strlen(key))) * 1024.0;
    };
    if (line.rfind("VmHWM:", 0) == 0) r.peak_rss_bytes = kb("VmHWM:");
    if (line.rfind("VmRSS:", 0) == 0) r.rss_bytes = kb("VmRSS:");
  }
  r.ok = true;
  return r;
}

std::optional<HttpResponse> http_get(int port, const std::string& target,
                                     std::chrono::milliseconds timeout) {
  return http_get("127.0.0.1", port, target, timeout);
}

std::optional<HttpResponse> http_get(
    const std::string& host, int port, const std::string& target, std::chrono::milliseconds timeout,
    std::string* why, const std::vector<std::pair<std::string, std::string>>& headers,
    const HttpTls& tls) {
  return http_request(host, port, "GET", target, "", timeout, why, headers, tls);
}

namespace {

namespace beast = boost::beast;
namespace http = beast::http;

// One request and its answer over a connected stream (plain or TLS), asynchronous under the
// hood so that the stream's deadline applies to every step; false with `error` set on failure.
template <class Stream>
bool exchange(boost::asio::io_context& io, Stream& stream,
              const http::request<http::string_body>& request,
              http::response<http::string_body>& response, beast::error_code& error) {
  http::async_write(stream, request, [&](beast::error_code ec, std::size_t) { error = ec; });
  io.run();
  if (error) return false;
  io.restart();
  beast::flat_buffer buffer;
  http::async_read(stream, buffer, response,
                   [&](beast::error_code ec, std::size_t) { error = ec; });
  io.run();
  return !error;
}

}  // namespace

std::optional<HttpResponse> http_request(
    const std::string& host, int port, const std::string& method, const std::string& target,
    const std::string& body, std::chrono::milliseconds timeout, std::string* why,
    const std::vector<std::pair<std::string, std::string>>& headers, const HttpTls& tls) {
  using boost::asio::ip::tcp;
  namespace ssl = boost::asio::ssl;
  try {
    boost::asio::io_context io;
    http::request<http::string_body> request{http::string_to_verb(method), target, 11};
    request.set(http::field::host, host);
    request.set(http::field::connection, "close");
    if (!body.empty()) request.set(http::field::content_type, "application/json");
    for (const auto& [name, value] : headers) request.set(name, value);
    request.body() = body;
    request.prepare_payload();
    http::response<http::string_body> response;
    beast::error_code error;
    tcp::resolver resolver(io);
    const auto endpoints = resolver.resolve(host, std::to_string(port));
    bool ok = false;
    if (tls.on) {
      ssl::context context(ssl::context::tls_client);
      context.set_default_verify_paths();
      if (!tls.ca_file.empty()) context.load_verify_file(tls.ca_file);
      context.set_verify_mode(ssl::verify_peer);
      context.set_verify_callback(ssl::host_name_verification(host));
      beast::ssl_stream<beast::tcp_stream> stream(io, context);
      if (!SSL_set_tlsext_host_name(stream.native_handle(), host.c_str()))
        throw std::runtime_error("TLS: the server name " + host + " cannot be sent");
      beast::get_lowest_layer(stream).expires_after(timeout);
      beast::get_lowest_layer(stream).connect(endpoints);
      stream.async_handshake(ssl::stream_base::client, [&](beast::error_code ec) { error = ec; });
      io.run();
      if (error) {
        if (why) *why = "TLS handshake: " + error.message();
        return std::nullopt;
      }
      io.restart();
      ok = exchange(io, stream, request, response, error);
    } else {
      beast::tcp_stream stream(io);
      stream.expires_after(timeout);
      stream.connect(endpoints);
      ok = exchange(io, stream, request, response, error);
    }
    if (!ok) {
      if (why) *why = error.message();
      return std::nullopt;
    }
    return HttpResponse{static_cast<int>(response.result_int()),
                        std::string(response[http::field::content_type]), response.body()};
  } catch (const std::exception& e) {  // refused, reset, an unreadable CA file: no answer
    if (why) *why = e.what();
    return std::nullopt;
  }
}

std::map<std::string, double> parse_prometheus_text(const std::string& text) {
  std::map<std::string, double> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const auto space = line.rfind(' ');
    if (space == std::string::npos) continue;
    try {
      out[line.substr(0, space)] = std::stod(line.substr(space + 1));
    } catch (const std::exception&) {
    }
  }
  return out;
}

DaemonMetrics parse_metrics(const std::string& text) {
  DaemonMetrics m;
  for (const auto& [series, value] : parse_prometheus_text(text)) {
    const auto brace = series.find('{');
    const std::string name = series.substr(0, brace);
    const auto label = [&](const std::string& key) -> std::string {
      if (brace == std::string::npos) return "";
      const auto at = series.find(key + "=\"", brace);
      if (at == std::string::npos) return "";
      const auto begin = at + key.size() + 2;
      return series.substr(begin, series.find('"', begin) - begin);
    };
    if (name == "warpwatch_ingest_accepted_samples_total") m.accepted = value;
    if (name == "warpwatch_batch_samples_total") m.matched = value;
    if (name == "warpwatch_rounds_total") m.rounds = value;
    if (name == "warpwatch_pattern_samples_total") m.pattern_samples[label("pattern")] = value;
    if (name == "warpwatch_ingest_messages_total") m.messages = value;
    if (name == "warpwatch_events_total") m.events_total = value;
    if (name == "warpwatch_events_published_total") m.events_published += value;
    if (name == "warpwatch_events_dropped_total") m.events_dropped += value;
    if (name == "warpwatch_ingest_backlog_samples") m.backlog_samples = value;
    if (name == "warpwatch_ingest_backlog_oldest_age_seconds") m.backlog_oldest_age_s = value;
    if (name == "warpwatch_batches_total") m.batches = value;
    if (name == "warpwatch_batch_duration_seconds_total") m.batch_seconds = value;
    if (name == "warpwatch_matcher_device_seconds_total") m.device_seconds = value;
    if (name == "warpwatch_matcher_host_seconds_total") m.host_seconds[label("phase")] += value;
    if (name == "warpwatch_matcher_windows_evaluated_total") m.windows_evaluated = value;
    if (name == "warpwatch_matcher_flat_windows_skipped_total") m.flat_windows = value;
    if (name == "warpwatch_matcher_windows_pruned_total") m.windows_pruned[label("stage")] += value;
    if (name == "warpwatch_ingest_rejected_total") {
      m.rejected[label("reason")] += value;
      m.rejected_total += value;
    }
  }
  return m;
}

std::string file_tail(const std::string& path, std::size_t bytes) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream all;
  all << in.rdbuf();
  const std::string text = all.str();
  return text.size() > bytes ? "..." + text.substr(text.size() - bytes) : text;
}

}  // namespace warpwatch::bench
