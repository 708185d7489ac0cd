// A spdlog logger whose lines a test can read: the daemon's components take a Logger
// (daemon/service/include/warpwatch/service/logging.hpp), tests hand them this one.
#pragma once

#include <spdlog/logger.h>
#include <spdlog/sinks/base_sink.h>

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace warpwatch::testing {

class CapturedLog {
 public:
  CapturedLog() : sink_(std::make_shared<Sink>()) {
    logger_ = std::make_shared<spdlog::logger>("test", sink_);
    logger_->set_level(spdlog::level::trace);
  }

  const std::shared_ptr<spdlog::logger>& logger() const { return logger_; }

  // The messages logged so far, as "<level>: <message>", e.g. "warning: rejected ...".
  std::vector<std::string> lines() const {
    const std::lock_guard lock(sink_->mu);
    return sink_->lines;
  }
  // How many lines contain `text`.
  std::size_t count(const std::string& text) const {
    const auto all = lines();
    return static_cast<std::size_t>(
        std::count_if(all.begin(), all.end(),
                      [&](const std::string& l) { return l.find(text) != std::string::npos; }));
  }
  std::string joined() const {
    std::string out;
    for (const auto& l : lines()) out += l + "\n";
    return out;
  }

 private:
  // base_sink<null_mutex>: spdlog's own locking is not needed; `mu` guards the lines.
  struct Sink final : spdlog::sinks::base_sink<spdlog::details::null_mutex> {
    mutable std::mutex mu;
    std::vector<std::string> lines;

    void sink_it_(const spdlog::details::log_msg& msg) override {
      const auto level = spdlog::level::to_string_view(msg.level);
      std::string line(level.data(), level.size());
      line += ": ";
      line.append(msg.payload.data(), msg.payload.size());
      const std::lock_guard lock(mu);
      lines.push_back(std::move(line));
    }
    void flush_() override {}
  };

  std::shared_ptr<Sink> sink_;
  std::shared_ptr<spdlog::logger> logger_;
};

}  // namespace warpwatch::testing
