// daemon/service_notifier: what reaches systemd's NOTIFY_SOCKET, and silence without it.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <string>

#include "log_capture.hpp"
#include "processes/notify_socket.hpp"
#include "test_support.hpp"
#include "warpwatch/service/service_notifier.hpp"

namespace {

using namespace std::chrono_literals;
using warpwatch::service::ServiceNotifier;
using namespace warpwatch::testing;

// Sets the variables for one test and removes them after, so that other tests (and
// their sd_notify calls) see the environment as it was.
class Environment {
 public:
  Environment& set(const char* name, const std::string& value) {
    ::setenv(name, value.c_str(), 1);
    return *this;
  }
  ~Environment() {
    for (const char* name : {"NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"}) ::unsetenv(name);
  }
};

TEST(ServiceNotifier, SendsReadyReloadStoppingAndStatus) {
  TempDir dir;
  NotifySocket systemd(dir.path() + "/notify");
  Environment env;
  env.set("NOTIFY_SOCKET", systemd.path());
  CapturedLog log;
  ServiceNotifier notifier(log.logger());
  EXPECT_FALSE(notifier.watchdog_interval());

  notifier.ready("running: backend cpu");
  EXPECT_EQ(systemd.receive(2000ms), "READY=1\nSTATUS=running: backend cpu");
  notifier.reloading();
  const auto reloading = systemd.receive(2000ms);
  ASSERT_TRUE(reloading);
  EXPECT_EQ(reloading->rfind("RELOADING=1\nMONOTONIC_USEC=", 0), 0u) << *reloading;
  notifier.ready("reloaded");
  EXPECT_EQ(systemd.receive(2000ms), "READY=1\nSTATUS=reloaded");
  notifier.status("42 events");
  EXPECT_EQ(systemd.receive(2000ms), "STATUS=42 events");
  notifier.stopping("draining");
  EXPECT_EQ(systemd.receive(2000ms), "STOPPING=1\nSTATUS=draining");
  notifier.watchdog_tick();  // no WATCHDOG_USEC: no pings
  EXPECT_EQ(systemd.receive(50ms), std::nullopt);
  EXPECT_TRUE(log.lines().empty()) << log.joined();
}

TEST(ServiceNotifier, PingsTheWatchdogAtHalfItsInterval) {
  TempDir dir;
  NotifySocket systemd(dir.path() + "/notify");
  Environment env;
  env.set("NOTIFY_SOCKET", systemd.path())
      .set("WATCHDOG_USEC", "100000")
      .set("WATCHDOG_PID", std::to_string(::getpid()));
  ServiceNotifier notifier(nullptr);
  ASSERT_EQ(notifier.watchdog_interval(), std::chrono::microseconds(100000));
  const auto t0 = ServiceNotifier::Clock::now();
  notifier.watchdog_tick(t0);
  EXPECT_EQ(systemd.receive(2000ms), "WATCHDOG=1");
  notifier.watchdog_tick(t0 + 49ms);
  EXPECT_EQ(systemd.receive(50ms), std::nullopt) << "within half the interval: no ping";
  notifier.watchdog_tick(t0 + 50ms);
  EXPECT_EQ(systemd.receive(2000ms), "WATCHDOG=1");
}

TEST(ServiceNotifier, WatchdogMeantForAnotherProcessIsIgnored) {
  Environment env;
  env.set("WATCHDOG_USEC", "100000").set("WATCHDOG_PID", std::to_string(::getpid() + 1));
  EXPECT_FALSE(ServiceNotifier(nullptr).watchdog_interval());
}

TEST(ServiceNotifier, WithoutNotifySocketEveryCallIsSilent) {
  ::unsetenv("NOTIFY_SOCKET");
  CapturedLog log;
  ServiceNotifier notifier(log.logger());
  notifier.ready("running");
  notifier.reloading();
  notifier.stopping("draining");
  notifier.watchdog_tick();
  EXPECT_TRUE(log.lines().empty()) << log.joined();
}

TEST(ServiceNotifier, UnreachableSocketIsLoggedOnceNotThrown) {
  TempDir dir;
  Environment env;
  env.set("NOTIFY_SOCKET", dir.path() + "/nobody-listens");
  CapturedLog log;
  ServiceNotifier notifier(log.logger());
  EXPECT_NO_THROW(notifier.ready("running"));
  EXPECT_NO_THROW(notifier.status("still running"));
  EXPECT_EQ(log.count("cannot notify systemd (READY=1)"), 1u) << log.joined();
  EXPECT_EQ(log.lines().size(), 1u) << log.joined();
}

}  // namespace
