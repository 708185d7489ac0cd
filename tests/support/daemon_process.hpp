// Runs the built warpwatchd as a child process for tests: bench::ChildProcess (the one
// that `warpwatch bench e2e` uses: environment without systemd's variables, stderr to a
// file, signals, a wait for the exit with a deadline) plus the stderr text and the
// child's memory readings.
#pragma once

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "warpwatch/bench/loopback.hpp"

namespace warpwatch::testing {

using bench::free_loopback_port;

class DaemonProcess : public bench::ChildProcess {
 public:
  // Starts `program args...` with this process' environment minus systemd's variables,
  // plus `extra_env` ("NAME=value"); stdout is discarded, stderr goes to `stderr_path`.
  DaemonProcess(const std::string& program, const std::vector<std::string>& args,
                const std::vector<std::string>& extra_env, const std::string& stderr_path)
      : ChildProcess(program, args, stderr_path, extra_env), stderr_path_(stderr_path) {}

  std::string stderr_text() const {
    std::ifstream in(stderr_path_);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
  }
  // VmRSS and VmHWM in bytes (/proc/PID/status); 0 once the process is gone.
  std::uint64_t resident_bytes() const {
    return static_cast<std::uint64_t>(bench::read_proc(pid()).rss_bytes);
  }
  std::uint64_t peak_resident_bytes() const {
    return static_cast<std::uint64_t>(bench::read_proc(pid()).peak_rss_bytes);
  }

 private:
  std::string stderr_path_;
};

}  // namespace warpwatch::testing
