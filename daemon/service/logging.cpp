#include "warpwatch/service/logging.hpp"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/ostream_sink.h>

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

namespace warpwatch::service {
namespace {

// "%*": the sd-daemon(3) priority prefix digit, which journald strips from the line and
// stores as the entry's PRIORITY.
class SyslogPriorityFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    dest.push_back(priority_digit(msg.level));
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<SyslogPriorityFlag>();
  }

 private:
  static char priority_digit(spdlog::level::level_enum level) {
    switch (level) {
      case spdlog::level::critical:
        return '2';
      case spdlog::level::err:
        return '3';
      case spdlog::level::warn:
        return '4';
      case spdlog::level::info:
        return '6';
      default:
        return '7';  // debug, trace
    }
  }
};

}  // namespace

bool stderr_is_journal() {
  const char* value = std::getenv("JOURNAL_STREAM");
  if (!value) return false;
  unsigned long long device = 0, inode = 0;
  if (std::sscanf(value, "%llu:%llu", &device, &inode) != 2) return false;
  struct stat st {};
  if (::fstat(STDERR_FILENO, &st) != 0) return false;
  return st.st_dev == device && st.st_ino == inode;
}

Logger make_stream_logger(std::string_view name, std::ostream& out, bool journal,
                          spdlog::level::level_enum level) {
  // force_flush: a line reaches the stream (and the journal) when it is logged.
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out, /*force_flush=*/true);
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  formatter->add_flag<SyslogPriorityFlag>('*');
  formatter->set_pattern(journal ? "<%*>%v" : "%Y-%m-%d %H:%M:%S.%e %n %l: %v");
  sink->set_formatter(std::move(formatter));
  auto logger = std::make_shared<spdlog::logger>(std::string(name), std::move(sink));
  logger->set_level(level);
  return logger;
}

Logger stderr_logger() {
  static const Logger logger =
      make_stream_logger("warpwatch", std::cerr, stderr_is_journal(), spdlog::level::warn);
  return logger;
}

}  // namespace warpwatch::service
