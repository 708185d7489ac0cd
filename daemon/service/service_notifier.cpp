#include "warpwatch/service/service_notifier.hpp"

#include <systemd/sd-daemon.h>

#include <ctime>
#include <system_error>

namespace warpwatch::service {
namespace {

// RELOADING=1 carries the CLOCK_MONOTONIC time in µs (systemd 253's Type=notify-reload
// needs it to match the reply; older systemd ignores it).
std::string monotonic_usec() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::to_string(static_cast<long long>(ts.tv_sec) * 1'000'000 + ts.tv_nsec / 1000);
}

}  // namespace

ServiceNotifier::ServiceNotifier(Logger log) : log_(log ? std::move(log) : stderr_logger()) {
  std::uint64_t usec = 0;
  // > 0: WATCHDOG_USEC is set (and WATCHDOG_PID, if set, is this process).
  if (::sd_watchdog_enabled(0, &usec) > 0 && usec > 0) watchdog_ = std::chrono::microseconds(usec);
}

void ServiceNotifier::send(const std::string& state) {
  const int result = ::sd_notify(0, state.c_str());  // 0: NOTIFY_SOCKET unset, nothing sent
  if (result < 0 && !failing_)
    log_->warn("cannot notify systemd ({}): {}", state.substr(0, state.find('\n')),
               std::system_category().message(-result));
  failing_ = result < 0;
}

void ServiceNotifier::ready(std::string_view status) {
  send("READY=1\nSTATUS=" + std::string(status));
}

void ServiceNotifier::reloading() {
  send("RELOADING=1\nMONOTONIC_USEC=" + monotonic_usec());
}

void ServiceNotifier::stopping(std::string_view status) {
  send("STOPPING=1\nSTATUS=" + std::string(status));
}

void ServiceNotifier::status(std::string_view status) {
  send("STATUS=" + std::string(status));
}

void ServiceNotifier::watchdog_tick(Clock::time_point now) {
  if (!watchdog_) return;
  if (last_ping_ && now - *last_ping_ < *watchdog_ / 2) return;
  last_ping_ = now;
  send("WATCHDOG=1");
}

}  // namespace warpwatch::service
