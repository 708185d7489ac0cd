// daemon/service/logging: the level names of the configuration, the terminal and the
// journal line formats.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <regex>
#include <sstream>
#include <string>

#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/service/logging.hpp"

namespace {

using namespace warpwatch::service;

TEST(Logging, LevelNamesParseAndOthersDoNot) {
  using warpwatch::config::LogLevel;
  using warpwatch::config::parse_log_level;
  EXPECT_EQ(parse_log_level("trace"), LogLevel::trace);
  EXPECT_EQ(parse_log_level("info"), LogLevel::info);
  EXPECT_EQ(parse_log_level("warning"), LogLevel::warning);
  EXPECT_EQ(parse_log_level("error"), LogLevel::error);
  EXPECT_EQ(parse_log_level("critical"), LogLevel::critical);
  EXPECT_EQ(parse_log_level("off"), LogLevel::off);
  EXPECT_EQ(parse_log_level("loud"), std::nullopt);
  EXPECT_EQ(parse_log_level(""), std::nullopt);
  for (const auto name : warpwatch::config::log_level_names)
    EXPECT_EQ(to_string(*parse_log_level(name)), name);
}

TEST(Logging, TerminalLinesCarryTimeNameAndLevel) {
  std::ostringstream out;
  const Logger log = make_stream_logger("warpwatchd", out, /*journal=*/false);
  log->warn("rejected input on stream '{}': {}", "pump-1", "wrong_dims");
  log->debug("not shown at the default level");
  EXPECT_TRUE(std::regex_match(
      out.str(), std::regex(R"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} warpwatchd warning: )"
                            R"(rejected input on stream 'pump-1': wrong_dims\n)")))
      << out.str();
}

TEST(Logging, JournalLinesCarryThePriorityAndNoTimestamp) {
  std::ostringstream out;
  const Logger log = make_stream_logger("warpwatchd", out, /*journal=*/true, spdlog::level::debug);
  log->error("a");
  log->warn("b");
  log->info("c");
  log->debug("d");
  log->critical("e");
  EXPECT_EQ(out.str(), "<3>a\n<4>b\n<6>c\n<7>d\n<2>e\n");
}

TEST(Logging, JournalStreamMustNameStderr) {
  // JOURNAL_STREAM inherited by a child whose stderr goes elsewhere must not count.
  struct stat st {};
  ASSERT_EQ(::fstat(STDERR_FILENO, &st), 0);
  const std::string mine = std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
  ::setenv("JOURNAL_STREAM", mine.c_str(), 1);
  EXPECT_TRUE(stderr_is_journal());
  ::setenv("JOURNAL_STREAM",
           (std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino + 1)).c_str(), 1);
  EXPECT_FALSE(stderr_is_journal());
  ::unsetenv("JOURNAL_STREAM");
  EXPECT_FALSE(stderr_is_journal());
}

}  // namespace
