// Runs the built warpwatchd as a child process for tests: bench::ChildProcess (the one
// that `warpwatch bench e2e` uses: environment without systemd's variables, stderr to a
// file, signals, a wait for the exit with a deadline) plus the stderr text, the
// child's memory readings, and a failure of the test when the sanitized daemon reported.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "warpwatch/bench/loopback.hpp"

namespace warpwatch::testing {

using bench::free_loopback_port;

// The report a sanitized process `pid` wrote: the sanitized builds (`make test-asan`,
// `make test-tsan`) set log_path in ASAN_OPTIONS, UBSAN_OPTIONS and TSAN_OPTIONS, and a
// sanitizer writes to "<log_path>.<pid>". Empty when there is none.
inline std::string sanitizer_report(int pid) {
  std::string report;
  for (const char* name : {"ASAN_OPTIONS", "UBSAN_OPTIONS", "TSAN_OPTIONS"}) {
    const char* options = std::getenv(name);
    if (!options) continue;
    const std::string_view text(options);
    const auto at = text.find("log_path=");
    if (at == std::string_view::npos) continue;
    const auto start = at + std::string_view("log_path=").size();
    const auto path =
        std::string(text.substr(start, text.find(':', start) - start)) + "." + std::to_string(pid);
    if (std::filesystem::exists(path) && report.find(path) == std::string::npos)
      report += path + ":\n" + bench::file_tail(path, 20000);
  }
  return report;
}

// Whether this build (and so the warpwatchd it tests) runs under AddressSanitizer or
// ThreadSanitizer (`make test-asan`, `make test-tsan`; gcc defines the macros): their
// shadow memory, redzones and quarantine of freed blocks make a process' resident memory
// no measure of what it holds, so tests do not hold RSS to a budget there.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitizedMemory = true;
#else
inline constexpr bool kSanitizedMemory = false;
#endif

class DaemonProcess : public bench::ChildProcess {
 public:
  // Starts `program args...` with this process' environment minus systemd's variables,
  // plus `extra_env` ("NAME=value"); stdout is discarded, stderr goes to `stderr_path`.
  DaemonProcess(const std::string& program, const std::vector<std::string>& args,
                const std::vector<std::string>& extra_env, const std::string& stderr_path)
      : ChildProcess(program, args, stderr_path, extra_env), stderr_path_(stderr_path) {}
  // A sanitizer's report from the daemon fails the test, whatever the test read of it.
  ~DaemonProcess() {
    const std::string report = sanitizer_report(pid());
    if (!report.empty()) ADD_FAILURE() << "warpwatchd (pid " << pid() << ") " << report;
  }
  DaemonProcess(const DaemonProcess&) = delete;
  DaemonProcess& operator=(const DaemonProcess&) = delete;

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
