// warpwatchd's entry point, callable in-process.
#pragma once

#include <exception>
#include <iosfwd>

namespace warpwatch::service {

// Exit statuses: 0 stopped (signal or replays done) after draining; 1 a bad command line
// or configuration, or a fatal error; 3 the CUDA device was lost (kernels::DeviceLost): the
// process cannot use it again and its matching state is gone, so warpwatchd exits at once,
// without draining, for its service manager to restart it (Restart=on-failure).
inline constexpr int exit_failure = 1;
inline constexpr int exit_device_lost = 3;

int run_daemon(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

// The exit status for an error that ends the daemon.
int exit_status_for(const std::exception& error);

}  // namespace warpwatch::service
