// The stream registry (stream/registry.hpp): admission of declared and auto-created
// streams, exact rejection counters, and the rate-limited log hook with a fake clock.
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "warpwatch/stream/registry.hpp"

namespace {

using warpwatch::stream::Admit;
using warpwatch::stream::RegistryOptions;
using warpwatch::stream::RegistrySnapshot;
using warpwatch::stream::RejectReason;
using warpwatch::stream::StreamDef;
using warpwatch::stream::StreamRegistry;
using namespace std::chrono_literals;

struct LogLine {
  std::string stream;
  RejectReason reason;
  std::string detail;
  bool operator==(const LogLine&) const = default;
};

// A clock that moves only when the test says so, and a hook that records its lines.
struct Harness {
  std::chrono::steady_clock::time_point now{};
  std::vector<LogLine> lines;

  StreamRegistry make(const std::vector<StreamDef>& declared, RegistryOptions options = {}) {
    return StreamRegistry(
        declared, options,
        [this](std::string_view s, RejectReason r, std::string_view d) {
          lines.push_back({std::string(s), r, std::string(d)});
        },
        [this] { return now; });
  }
};

const std::vector<StreamDef> pumps = {{"pump-1", 2, 1'000'000'000}, {"pump-2", 1, 500'000'000}};

TEST(Registry, DeclaredStreams) {
  Harness h;
  StreamRegistry reg = h.make(pumps);
  const Admit ok = reg.admit("pump-1", 2);
  EXPECT_TRUE(ok.ok());
  ASSERT_NE(ok.stream, nullptr);
  EXPECT_EQ(ok.stream->dims, 2u);
  EXPECT_EQ(ok.stream->nominal_period_ns, 1'000'000'000);
  EXPECT_FALSE(ok.created);

  const Admit dims = reg.admit("pump-1", 3);
  EXPECT_EQ(dims.rejected, RejectReason::wrong_dims);
  EXPECT_EQ(dims.detail, "message has 3 values per sample, the stream has 2");
  ASSERT_NE(dims.stream, nullptr);
  EXPECT_EQ(dims.stream->dims, 2u);
  const Admit unknown = reg.admit("pump-3", 1);
  EXPECT_EQ(unknown.rejected, RejectReason::unknown_stream);
  EXPECT_EQ(unknown.stream, nullptr) << "an unknown id has no stream";
  const Admit invalid = reg.admit("pump 1", 2);
  EXPECT_EQ(invalid.rejected, RejectReason::invalid_stream_id);
  EXPECT_EQ(invalid.detail, "whitespace in stream id");
  EXPECT_EQ(reg.admit(std::string(300, 'x'), 1).rejected, RejectReason::invalid_stream_id);
  EXPECT_EQ(reg.admit("\xFF", 1).rejected, RejectReason::invalid_stream_id);

  reg.count_accepted("pump-1", 7);
  reg.reject("pump-2", RejectReason::non_finite_value, "sample 0: NaN", 3);
  reg.reject("nowhere", RejectReason::oversized_message, "2 MiB");

  const RegistrySnapshot s = reg.snapshot();
  EXPECT_EQ(s.messages, 1u);
  EXPECT_EQ(s.accepted_samples, 7u);
  EXPECT_EQ(s.rejected[RejectReason::wrong_dims], 1u);
  EXPECT_EQ(s.rejected[RejectReason::unknown_stream], 1u);
  EXPECT_EQ(s.rejected[RejectReason::invalid_stream_id], 3u);
  EXPECT_EQ(s.rejected[RejectReason::non_finite_value], 3u);
  EXPECT_EQ(s.rejected[RejectReason::oversized_message], 1u);
  EXPECT_EQ(s.rejected.total(), 9u);
  ASSERT_EQ(s.streams.size(), 2u);  // unknown and invalid ids get no entry
  EXPECT_EQ(s.streams[0].stream->id, "pump-1");
  EXPECT_TRUE(s.streams[0].declared);
  EXPECT_EQ(s.streams[0].messages, 1u);
  EXPECT_EQ(s.streams[0].accepted_samples, 7u);
  EXPECT_EQ(s.streams[0].rejected.total(), 1u);
  EXPECT_EQ(s.streams[0].rejected[RejectReason::wrong_dims], 1u);
  EXPECT_EQ(s.streams[1].stream->id, "pump-2");
  EXPECT_EQ(s.streams[1].stream->nominal_period_ns, 500'000'000);
  EXPECT_EQ(s.streams[1].rejected[RejectReason::non_finite_value], 3u);

  EXPECT_EQ(reg.expected_dims("pump-2"), 1u);
  EXPECT_EQ(reg.expected_dims("pump-3"), std::nullopt);
}

TEST(Registry, AutoCreatedStreamsUpToTheLimit) {
  Harness h;
  RegistryOptions o;
  o.auto_create = true;
  o.max_auto_streams = 2;
  o.auto_dims = 3;
  o.auto_period_ns = 250'000'000;
  StreamRegistry reg = h.make(pumps, o);

  EXPECT_EQ(reg.expected_dims("a"), 3u);
  const Admit a = reg.admit("a", 3);
  ASSERT_NE(a.stream, nullptr);
  EXPECT_TRUE(a.ok());
  EXPECT_TRUE(a.created);
  EXPECT_EQ(a.stream->dims, 3u);
  EXPECT_EQ(a.stream->nominal_period_ns, 250'000'000);
  EXPECT_FALSE(reg.admit("a", 3).created);
  // A first message of the wrong shape does not claim the id.
  const Admit b_wrong = reg.admit("b", 1);
  EXPECT_EQ(b_wrong.rejected, RejectReason::wrong_dims);
  EXPECT_EQ(b_wrong.detail, "message has 1 values per sample, auto-created streams have 3");
  EXPECT_TRUE(reg.admit("b", 3).created);
  const Admit c = reg.admit("c", 3);
  EXPECT_EQ(c.rejected, RejectReason::too_many_streams);
  EXPECT_EQ(c.detail, "the limit of 2 auto-created streams is reached");
  EXPECT_EQ(reg.expected_dims("c"), std::nullopt);
  // Declared streams are not part of the limit, and existing ones keep working.
  EXPECT_TRUE(reg.admit("pump-2", 1).ok());
  EXPECT_TRUE(reg.admit("b", 3).ok());

  const RegistrySnapshot s = reg.snapshot();
  EXPECT_EQ(s.messages, 5u);
  EXPECT_EQ(s.rejected[RejectReason::wrong_dims], 1u);
  EXPECT_EQ(s.rejected[RejectReason::too_many_streams], 1u);
  ASSERT_EQ(s.streams.size(), 4u);
  EXPECT_EQ(s.streams[0].stream->id, "a");
  EXPECT_FALSE(s.streams[0].declared);
  EXPECT_EQ(s.streams[0].messages, 2u);
  EXPECT_EQ(s.streams[1].stream->id, "b");
  EXPECT_EQ(s.streams[1].messages, 2u);
  EXPECT_EQ(s.streams[1].rejected.total(), 0u);  // "b" had no stream when it was refused
}

TEST(Registry, LogHookIsRateLimitedPerStreamAndReason) {
  Harness h;
  StreamRegistry reg = h.make(pumps);
  for (int i = 0; i < 5; ++i) reg.reject("pump-1", RejectReason::non_finite_value, "nan");
  ASSERT_EQ(h.lines.size(), 1u);
  EXPECT_EQ(h.lines[0], (LogLine{"pump-1", RejectReason::non_finite_value, "nan"}));

  // Another reason, or another stream, has its own budget.
  reg.reject("pump-1", RejectReason::malformed_frame, "short header");
  reg.reject("pump-2", RejectReason::non_finite_value, "inf", 3);
  ASSERT_EQ(h.lines.size(), 3u);
  EXPECT_EQ(h.lines[1], (LogLine{"pump-1", RejectReason::malformed_frame, "short header"}));
  EXPECT_EQ(h.lines[2],
            (LogLine{"pump-2", RejectReason::non_finite_value, "inf (3 in this message)"}));

  h.now += 9999ms;
  reg.reject("pump-1", RejectReason::non_finite_value, "nan", 2);
  EXPECT_EQ(h.lines.size(), 3u);
  h.now += 1ms;  // 10 s after the first line
  reg.reject("pump-1", RejectReason::non_finite_value, "nan again");
  ASSERT_EQ(h.lines.size(), 4u);
  EXPECT_EQ(h.lines[3].detail, "nan again (6 more since the last line)");
  reg.reject("pump-1", RejectReason::non_finite_value, "nan");
  EXPECT_EQ(h.lines.size(), 4u);

  const RegistrySnapshot s = reg.snapshot();
  EXPECT_EQ(s.log_lines, 4u);
  EXPECT_EQ(s.log_suppressed, 7u);  // 4 + 2 before the fourth line, 1 after
  EXPECT_EQ(s.rejected[RejectReason::non_finite_value], 12u);  // counters never skip
}

TEST(Registry, EachIdWithoutAStreamHasItsOwnLogBudgetUpToACap) {
  Harness h;
  StreamRegistry reg = h.make(pumps);
  (void)reg.admit("ghost-0", 1);
  (void)reg.admit("ghost-0", 1);   // the same mistake again: held back
  (void)reg.admit("ghost-1", 1);   // a second, different one: logged (issue 36)
  (void)reg.admit("bad id\n", 1);  // another reason
  (void)reg.admit("also bad", 1);  // another invalid id
  ASSERT_EQ(h.lines.size(), 4u);
  EXPECT_EQ(h.lines[0], (LogLine{"ghost-0", RejectReason::unknown_stream,
                                 "not a declared stream, and auto-creation is off"}));
  EXPECT_EQ(h.lines[1], (LogLine{"ghost-1", RejectReason::unknown_stream,
                                 "not a declared stream, and auto-creation is off"}));
  // An invalid id is escaped for the log line: it may hold control bytes.
  EXPECT_EQ(h.lines[2], (LogLine{"bad\\x20id\\x0a", RejectReason::invalid_stream_id,
                                 "whitespace in stream id"}));
  EXPECT_EQ(h.lines[3].stream, "also\\x20bad");
  EXPECT_EQ(reg.snapshot().log_suppressed, 1u);

  // Up to max_log_keys ids without a stream have a budget each (4 so far) ...
  for (std::size_t k = 2; k < warpwatch::stream::max_log_keys - 2; ++k)
    (void)reg.admit(std::string("ghost-").append(std::to_string(k)), 1);
  ASSERT_EQ(h.lines.size(), warpwatch::stream::max_log_keys);
  // ... the ones after them share one per reason while none of theirs is idle ...
  (void)reg.admit("late-1", 1);
  (void)reg.admit("late-2", 1);
  ASSERT_EQ(h.lines.size(), warpwatch::stream::max_log_keys + 1);
  EXPECT_EQ(h.lines.back().stream, "late-1");
  EXPECT_EQ(reg.snapshot().log_suppressed, 2u);
  // ... and once their interval is over, the idle ones are forgotten and a new id has its own.
  h.now += 10s;
  (void)reg.admit("late-3", 1);
  (void)reg.admit("late-4", 1);
  ASSERT_EQ(h.lines.size(), warpwatch::stream::max_log_keys + 3);
  EXPECT_EQ(h.lines.back(), (LogLine{"late-4", RejectReason::unknown_stream,
                                     "not a declared stream, and auto-creation is off"}));
  EXPECT_EQ(reg.snapshot().streams.size(), 2u);

  // An invalid id of 1000 control bytes is printed as its first 64, escaped, then "...".
  (void)reg.admit(std::string(1000, '\x01'), 1);
  ASSERT_EQ(h.lines.size(), warpwatch::stream::max_log_keys + 4);
  EXPECT_EQ(h.lines.back().stream.size(), 64u * 4 + 3);
  EXPECT_EQ(h.lines.back().stream.substr(0, 8), "\\x01\\x01");
  EXPECT_EQ(h.lines.back().detail, "stream id longer than 255 bytes");
}

TEST(Registry, InputWithoutAnIdHasALogBudgetPerPeer) {
  Harness h;
  StreamRegistry reg = h.make(pumps);
  reg.reject("", RejectReason::malformed_frame, "from 10.0.0.1:5: not ZeroMQ", 1, "peer 10.0.0.1");
  reg.reject("", RejectReason::malformed_frame, "from 10.0.0.1:6: not ZeroMQ", 1, "peer 10.0.0.1");
  reg.reject("", RejectReason::malformed_frame, "from 10.0.0.2:5: not ZeroMQ", 1, "peer 10.0.0.2");
  ASSERT_EQ(h.lines.size(), 2u);
  EXPECT_EQ(h.lines[0],
            (LogLine{"", RejectReason::malformed_frame, "from 10.0.0.1:5: not ZeroMQ"}));
  EXPECT_EQ(h.lines[1],
            (LogLine{"", RejectReason::malformed_frame, "from 10.0.0.2:5: not ZeroMQ"}));
  EXPECT_EQ(reg.snapshot().rejected[RejectReason::malformed_frame], 3u);
}

TEST(Registry, NoHookStillCounts) {
  StreamRegistry reg(pumps);
  reg.reject("pump-1", RejectReason::malformed_frame, "x");
  const RegistrySnapshot s = reg.snapshot();
  EXPECT_EQ(s.rejected[RejectReason::malformed_frame], 1u);
  EXPECT_EQ(s.log_lines, 0u);
}

TEST(Registry, CountersAreExactUnderConcurrency) {
  Harness h;
  RegistryOptions o;
  o.auto_create = true;
  StreamRegistry reg = h.make(pumps, o);
  constexpr int threads = 4, per_thread = 5000;
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&reg, t] {
      const std::string own = std::string("auto-").append(std::to_string(t));
      for (int i = 0; i < per_thread; ++i) {
        if (reg.admit(own, 1).ok()) reg.count_accepted(own, 2);
        (void)reg.admit("pump-1", 2);
        reg.count_accepted("pump-1", 1);
        reg.reject("pump-2", RejectReason::non_increasing_timestamp, "late");
      }
    });
  }
  for (auto& th : pool) th.join();
  const RegistrySnapshot s = reg.snapshot();
  constexpr std::uint64_t n = std::uint64_t{threads} * per_thread;
  EXPECT_EQ(s.messages, 2 * n);
  EXPECT_EQ(s.accepted_samples, 3 * n);
  EXPECT_EQ(s.rejected.total(), n);
  EXPECT_EQ(s.log_lines, 1u);  // the fake clock never moves
  EXPECT_EQ(s.log_suppressed, n - 1);
  ASSERT_EQ(s.streams.size(), 2u + threads);
  for (const auto& st : s.streams) {
    if (st.declared) continue;
    EXPECT_EQ(st.messages, std::uint64_t{per_thread}) << st.stream->id;
    EXPECT_EQ(st.accepted_samples, 2u * per_thread) << st.stream->id;
  }
}

TEST(Registry, RefusesABadDeclaration) {
  EXPECT_THROW(StreamRegistry({{"a", 1, 1}, {"a", 2, 1}}), std::invalid_argument);
  EXPECT_THROW(StreamRegistry({{"a b", 1, 1}}), std::invalid_argument);
  EXPECT_THROW(StreamRegistry({{"a", 0, 1}}), std::invalid_argument);
  EXPECT_THROW(StreamRegistry({{"a", 65, 1}}), std::invalid_argument);
  EXPECT_THROW(StreamRegistry({{"a", 1, 0}}), std::invalid_argument);
  RegistryOptions o;
  o.auto_dims = 0;
  EXPECT_THROW(StreamRegistry({}, o), std::invalid_argument);
}

}  // namespace
