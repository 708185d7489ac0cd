// Runs the built warpwatchd as a child process for tests: stderr to a file, a chosen
// environment, signals, and a wait for its exit with a deadline.
#pragma once

#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>
#include <chrono>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace warpwatch::testing {

// A TCP port on 127.0.0.1 that was free a moment ago (the kernel picked it for a socket
// that is closed again), for configurations that need fixed endpoints.
inline int free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof(address);
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size) != 0)
    throw std::runtime_error(std::string("no free port: ") + std::strerror(errno));
  ::close(fd);
  return ntohs(address.sin_port);
}

class DaemonProcess {
 public:
  // Starts `program args...` with this process' environment minus systemd's variables,
  // plus `extra_env` ("NAME=value"); stdout is discarded, stderr goes to `stderr_path`.
  DaemonProcess(const std::string& program, const std::vector<std::string>& args,
                const std::vector<std::string>& extra_env, const std::string& stderr_path)
      : stderr_path_(stderr_path) {
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
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int error =
        ::posix_spawn(&pid_, program.c_str(), &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (error != 0)
      throw std::runtime_error("cannot start " + program + ": " + std::strerror(error));
  }
  ~DaemonProcess() {
    if (pid_ > 0 && !status_) {  // a failed test must not leave a daemon behind
      ::kill(pid_, SIGKILL);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
  }
  DaemonProcess(const DaemonProcess&) = delete;
  DaemonProcess& operator=(const DaemonProcess&) = delete;

  void signal(int number) const { ::kill(pid_, number); }
  pid_t pid() const { return pid_; }

  // A "Name: value kB" field of /proc/PID/status (VmRSS, VmHWM) in bytes; 0 once the
  // process is gone or the field is missing.
  std::uint64_t status_bytes(const std::string& field) const {
    std::ifstream in("/proc/" + std::to_string(pid_) + "/status");
    std::string line;
    while (std::getline(in, line))
      if (line.rfind(field + ":", 0) == 0) return std::stoull(line.substr(field.size() + 1)) * 1024;
    return 0;
  }

  // The wait status once the process exited, or nullopt when it still runs at `limit`.
  std::optional<int> wait_exit(std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!status_) {
      int status = 0;
      const pid_t done = ::waitpid(pid_, &status, WNOHANG);
      if (done == pid_) {
        status_ = status;
      } else if (std::chrono::steady_clock::now() >= deadline) {
        return std::nullopt;
      } else {
        // waitpid cannot wait with a timeout; poll it at a short interval.
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      }
    }
    return status_;
  }

  std::string stderr_text() const {
    std::ifstream in(stderr_path_);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
  }

 private:
  std::string stderr_path_;
  pid_t pid_ = -1;
  std::optional<int> status_;
};

}  // namespace warpwatch::testing
