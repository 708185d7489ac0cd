// systemd's service notifications (sd_notify(3), through libsystemd): READY=1 once the
// daemon listens, STATUS= lines, RELOADING=1 / READY=1 around a reload, STOPPING=1 on
// the drain, and WATCHDOG=1 pings from the scheduler loop when the unit has WatchdogSec=
// (systemd then passes WATCHDOG_USEC). Without NOTIFY_SOCKET (not started by systemd
// with Type=notify) every call does nothing, and that is not an error.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "warpwatch/service/logging.hpp"

namespace warpwatch::service {

class ServiceNotifier {
 public:
  using Clock = std::chrono::steady_clock;

  // Reads NOTIFY_SOCKET, WATCHDOG_USEC and WATCHDOG_PID from the environment now.
  explicit ServiceNotifier(Logger log);

  // Also the end of a reload (systemd expects READY=1 after RELOADING=1).
  void ready(std::string_view status);
  void reloading();
  void stopping(std::string_view status);
  void status(std::string_view status);

  // Pings the watchdog when half its interval has passed since the last ping (the
  // scheduler loop calls this every round; a stuck round stops the pings and systemd
  // restarts the service). The first call pings.
  void watchdog_tick(Clock::time_point now = Clock::now());
  // The interval systemd expects pings within; nullopt when the watchdog is off.
  std::optional<std::chrono::microseconds> watchdog_interval() const { return watchdog_; }

 private:
  void send(const std::string& state);

  Logger log_;
  std::optional<std::chrono::microseconds> watchdog_;
  std::optional<Clock::time_point> last_ping_;
  bool failing_ = false;  // logs a failing socket once, not on every ping
};

}  // namespace warpwatch::service
