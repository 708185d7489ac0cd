// The load generator (daemon/bench/load_generator.hpp) into an in-memory sink: its frames
// decode to the planned samples (binary with a period, binary with explicit timestamps,
// text), byte for byte what the stream layer's encoders make of them; the planted
// occurrences are where the plan says; the counts add up; a seed makes the data; the
// bounds and the pace hold; backpressure is waited for and counted, never dropped; faults
// are mixed in without changing the good messages.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "test_support.hpp"
#include "warpwatch/bench/load_generator.hpp"
#include "warpwatch/stream/decode/frame.hpp"
#include "warpwatch/stream/ingest_hub.hpp"
#include "warpwatch/stream/registry.hpp"

namespace {

using namespace warpwatch;
using bench::LoadEncoding;
using bench::LoadFault;
using bench::LoadGenerator;
using bench::LoadOptions;
using bench::PlantedOccurrence;

struct Message {
  std::string id;
  std::vector<std::byte> payload;
};

// Takes every message; `refuse` first refusals count down, each one a "would block".
class MemorySink : public bench::MessageSink {
 public:
  bool try_send(std::string_view id, std::span<const std::byte> payload) override {
    ++tries;
    if (refuse > 0) {
      --refuse;
      return false;
    }
    messages.push_back({std::string(id), {payload.begin(), payload.end()}});
    return true;
  }
  void wait_writable(std::chrono::milliseconds) override { ++waits; }
  std::vector<Message> messages;
  std::uint64_t refuse = 0, tries = 0, waits = 0;
};

// Never takes anything: a PUSH socket whose peer never reads.
class StuckSink : public bench::MessageSink {
 public:
  bool try_send(std::string_view, std::span<const std::byte>) override { return false; }
  void wait_writable(std::chrono::milliseconds limit) override {
    std::this_thread::sleep_for(std::min(limit, std::chrono::milliseconds(5)));
  }
};

LoadOptions small_options(LoadEncoding encoding) {
  LoadOptions o;
  o.streams = 3;
  o.frame = 7;  // 500 = 71 x 7 + 3: the last frame is short
  o.encoding = encoding;
  o.t0_ns = 1'700'000'000'000'000'000;
  o.period_ns = 10'000'000;
  o.patterns = bench::builtin_patterns(2, 20);
  o.every = 100;
  o.jitter = 10;
  o.noise = 0.05;
  o.seed = 7;
  o.samples_per_stream = 500;
  o.noise_length = 64;  // the noise ring (70 samples: whole frames) wraps within a stream
  return o;
}

// Decodes every message, per stream, checking that the payload is exactly what the stream
// layer's encoder makes of the decoded samples.
std::map<std::string, stream::Samples> decode_all(const std::vector<Message>& messages,
                                                  LoadEncoding encoding) {
  std::map<std::string, stream::Samples> out;
  for (const auto& m : messages) {
    const auto decoded = stream::decode_payload(m.payload);
    EXPECT_TRUE(std::holds_alternative<stream::Decoded>(decoded)) << m.id;
    if (!std::holds_alternative<stream::Decoded>(decoded)) continue;
    const auto& d = std::get<stream::Decoded>(decoded);
    EXPECT_TRUE(d.line_errors.empty()) << m.id;
    const stream::Samples& s = d.samples;
    if (encoding == LoadEncoding::text) {
      const std::string text = stream::encode_text(s);
      EXPECT_EQ(std::string(reinterpret_cast<const char*>(m.payload.data()), m.payload.size()),
                text);
    } else {
      EXPECT_EQ(m.payload, stream::encode_frame(s, encoding == LoadEncoding::binary_explicit));
    }
    auto& all = out[m.id];
    all.dims = s.dims;
    all.times_ns.insert(all.times_ns.end(), s.times_ns.begin(), s.times_ns.end());
    all.values.insert(all.values.end(), s.values.begin(), s.values.end());
  }
  return out;
}

using Key = std::tuple<std::size_t, std::size_t, std::uint64_t, std::uint64_t>;
std::vector<Key> keys(const std::vector<PlantedOccurrence>& v) {
  std::vector<Key> out;
  for (const auto& p : v) out.emplace_back(p.stream, p.pattern, p.start_index, p.end_index);
  std::sort(out.begin(), out.end());
  return out;
}

class LoadGeneratorEncodings : public ::testing::TestWithParam<LoadEncoding> {};

TEST_P(LoadGeneratorEncodings, FramesDecodeToThePlantedSamples) {
  const LoadOptions o = small_options(GetParam());
  const LoadGenerator g(o);
  MemorySink sink;
  const auto r = g.run(sink);
  EXPECT_EQ(r.stopped_by, "samples");
  const auto streams = decode_all(sink.messages, o.encoding);
  ASSERT_EQ(streams.size(), 3u);
  std::vector<PlantedOccurrence> planned;
  for (std::size_t k = 0; k < 3; ++k) {
    SCOPED_TRACE(g.stream_id(k));
    ASSERT_TRUE(streams.count("load-" + std::to_string(k)));
    const stream::Samples& s = streams.at(g.stream_id(k));
    ASSERT_EQ(s.size(), 500u);
    for (std::size_t i = 0; i < s.size(); ++i)
      ASSERT_EQ(s.times_ns[i], o.t0_ns + static_cast<std::int64_t>(i) * o.period_ns) << i;
    EXPECT_EQ(s.values, g.values(k, 0, 500));
    // Noise within its amplitude outside the occurrences; inside, the pattern plus noise.
    const auto occurrences = g.planned_within(k, 500);
    EXPECT_GE(occurrences.size(), 4u);
    std::vector<PlantedOccurrence> begun;  // also the one the end of the stream cuts
    for (std::uint64_t j = 0; g.planned(k, j).start_index < 500; ++j)
      begun.push_back(g.planned(k, j));
    std::vector<int> in(500, -1);
    for (const auto& p : begun) {
      EXPECT_EQ(p.end_index - p.start_index + 1, o.patterns[p.pattern].length());
      for (auto i = p.start_index; i <= std::min<std::uint64_t>(p.end_index, 499); ++i) {
        EXPECT_EQ(in[i], -1) << "occurrences overlap at " << i;
        in[i] = static_cast<int>(p.pattern);
      }
    }
    for (std::size_t i = 0; i < 500; ++i) {
      float expected = 0.0f;
      if (in[i] >= 0) {
        const auto& p = *std::find_if(begun.begin(), begun.end(), [&](const auto& q) {
          return q.start_index <= i && i <= q.end_index;
        });
        expected = o.patterns[p.pattern].values[i - p.start_index];
      }
      EXPECT_LE(std::abs(s.values[i] - expected), o.noise + 1e-6) << i;
    }
    // Consecutive occurrences keep at least one noise sample between them.
    for (std::size_t j = 1; j < begun.size(); ++j)
      EXPECT_GT(begun[j].start_index, begun[j - 1].end_index + 1);
    planned.insert(planned.end(), occurrences.begin(), occurrences.end());
  }
  EXPECT_EQ(keys(r.occurrences), keys(planned));
  for (const auto& p : r.occurrences) {
    EXPECT_GE(p.sent_ns, r.started_ns);
    EXPECT_LE(p.sent_ns, r.finished_ns);
  }
  // Occurrences started but not finished by sample 500 are counted as cut.
  std::uint64_t cut = 0;
  for (std::size_t k = 0; k < 3; ++k)
    for (std::uint64_t j = 0;; ++j) {
      const auto p = g.planned(k, j);
      if (p.start_index >= 500) break;
      if (p.end_index >= 500) ++cut;
    }
  EXPECT_EQ(r.occurrences_cut, cut);
}

INSTANTIATE_TEST_SUITE_P(Encodings, LoadGeneratorEncodings,
                         ::testing::Values(LoadEncoding::binary, LoadEncoding::binary_explicit,
                                           LoadEncoding::text),
                         [](const auto& info) {
                           return std::string(bench::to_string(info.param));
                         });

TEST(LoadGenerator, CountsAddUp) {
  const LoadGenerator g(small_options(LoadEncoding::binary));
  MemorySink sink;
  const auto r = g.run(sink);
  EXPECT_EQ(r.messages, sink.messages.size());
  EXPECT_EQ(r.messages, 3u * 72u);  // 71 whole frames and a short one per stream
  std::uint64_t samples = 0, payload = 0, ids = 0;
  for (const auto& m : sink.messages) {
    const auto decoded = stream::decode_payload(m.payload);
    const auto& d = std::get<stream::Decoded>(decoded);
    samples += d.samples.size();
    payload += m.payload.size();
    ids += m.id.size();
  }
  EXPECT_EQ(r.samples, samples);
  EXPECT_EQ(r.samples, 1500u);
  EXPECT_EQ(r.payload_bytes, payload);
  EXPECT_EQ(r.payload_bytes, 3u * (71u * (28u + 4u * 7u) + (28u + 4u * 3u)));
  EXPECT_EQ(r.id_bytes, ids);
  EXPECT_EQ(r.samples_per_stream_min, 500u);
  EXPECT_EQ(r.samples_per_stream_max, 500u);
  EXPECT_EQ(r.blocked_sends, 0u);
  EXPECT_EQ(r.unsent_messages, 0u);
  EXPECT_GT(r.seconds, 0.0);
  EXPECT_GE(r.cpu_seconds, 0.0);
}

TEST(LoadGenerator, TotalBoundIsExact) {
  LoadOptions o = small_options(LoadEncoding::binary);
  o.samples_per_stream = 0;
  o.total_samples = 1000;
  const LoadGenerator g(o);
  MemorySink sink;
  const auto r = g.run(sink);
  EXPECT_EQ(r.stopped_by, "total");
  EXPECT_EQ(r.samples, 1000u);
  // Round robin: the streams differ by at most one frame.
  EXPECT_LE(r.samples_per_stream_max - r.samples_per_stream_min, 7u);
  std::uint64_t decoded = 0;
  for (const auto& [id, s] : decode_all(sink.messages, o.encoding)) decoded += s.size();
  EXPECT_EQ(decoded, 1000u);
}

TEST(LoadGenerator, ASeedMakesTheData) {
  LoadOptions o = small_options(LoadEncoding::binary);
  MemorySink a, b, c;
  LoadGenerator(o).run(a);
  const LoadGenerator same(o);
  same.run(b);
  ASSERT_EQ(a.messages.size(), b.messages.size());
  for (std::size_t i = 0; i < a.messages.size(); ++i) {
    EXPECT_EQ(a.messages[i].id, b.messages[i].id);
    EXPECT_EQ(a.messages[i].payload, b.messages[i].payload);
  }
  // Running again sends the same data.
  MemorySink again;
  same.run(again);
  ASSERT_EQ(again.messages.size(), b.messages.size());
  for (std::size_t i = 0; i < b.messages.size(); ++i)
    EXPECT_EQ(again.messages[i].payload, b.messages[i].payload);

  o.seed = 8;
  const LoadGenerator other(o);
  other.run(c);
  const LoadGenerator first(small_options(LoadEncoding::binary));
  EXPECT_NE(other.values(0, 0, 500), first.values(0, 0, 500));
  std::vector<std::uint64_t> starts_a, starts_c;
  for (std::size_t k = 0; k < 3; ++k)
    for (std::uint64_t j = 0; j < 4; ++j) {
      starts_a.push_back(first.planned(k, j).start_index);
      starts_c.push_back(other.planned(k, j).start_index);
    }
  EXPECT_NE(starts_a, starts_c);
}

TEST(LoadGenerator, BuiltinShapesAreDistinctAndExactInDecimal) {
  const auto shapes = bench::builtin_patterns(8, 64, 1);
  ASSERT_EQ(shapes.size(), 8u);
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    const auto& s = shapes[k];
    EXPECT_EQ(s.name, "shape" + std::to_string(k));
    ASSERT_EQ(s.length(), 64u);
    EXPECT_EQ(s.values[0], 5.0f);
    EXPECT_EQ(s.values[1], -5.0f);
    EXPECT_EQ(s.values[62], -5.0f);
    EXPECT_EQ(s.values[63], 5.0f);
    for (std::size_t i = 2; i < 62; ++i) {
      EXPECT_LE(std::abs(s.values[i]), 2.0f);
      EXPECT_EQ(s.values[i] * 1024.0f, std::round(s.values[i] * 1024.0f));  // k / 1024
    }
  }
  EXPECT_EQ(bench::builtin_patterns(8, 64, 1)[5].values, shapes[5].values);
  EXPECT_THROW(bench::builtin_patterns(1, 5), std::invalid_argument);
}

TEST(LoadGenerator, RefusesPlansWhoseOccurrencesWouldTouch) {
  LoadOptions o = small_options(LoadEncoding::binary);
  o.every = 25;  // patterns of 20 + jitter 10
  EXPECT_THROW(LoadGenerator{o}, std::invalid_argument);
  o.every = 31;
  EXPECT_NO_THROW(LoadGenerator{o});
  o.every = 100;
  o.patterns.clear();
  EXPECT_THROW(LoadGenerator{o}, std::invalid_argument);
  o.every = 0;  // nothing planted: noise only
  EXPECT_NO_THROW(LoadGenerator{o});
  o.stream_prefix = "bad id ";
  EXPECT_THROW(LoadGenerator{o}, std::invalid_argument);
}

// The pace: the generator never runs ahead of rate x time by more than its small slack
// (a lower bound on the time taken, which sleeping guarantees; no upper bound is checked).
TEST(LoadGenerator, RatePacingBoundsTheSamplesSent) {
  LoadOptions o = small_options(LoadEncoding::binary);
  o.frame = 10;
  o.streams = 2;
  o.rate_per_stream = 2000.0;  // 4000 samples/s in all
  o.samples_per_stream = 200;
  const LoadGenerator g(o);
  MemorySink sink;
  const auto r = g.run(sink);
  EXPECT_EQ(r.samples, 400u);
  // The last frame starts at most 200 us early: 390 samples at 4000/s = 97.5 ms.
  EXPECT_GE(r.seconds, (390.0 - 4000.0 * 200e-6) / 4000.0);
}

TEST(LoadGenerator, DurationBoundsTheRun) {
  LoadOptions o = small_options(LoadEncoding::binary);
  o.samples_per_stream = 0;
  o.duration_s = 0.2;
  o.rate_per_stream = 1000.0;
  const LoadGenerator g(o);
  MemorySink sink;
  const auto r = g.run(sink);
  EXPECT_EQ(r.stopped_by, "duration");
  EXPECT_GE(r.seconds, 0.2);
  EXPECT_GT(r.samples, 0u);
}

TEST(LoadGenerator, BackpressureIsWaitedForAndCountedNeverDropped) {
  const LoadOptions o = small_options(LoadEncoding::binary);
  const LoadGenerator g(o);
  MemorySink sink;
  sink.refuse = 5;
  const auto r = g.run(sink);
  EXPECT_EQ(r.blocked_sends, 1u);  // the first message waited through all five refusals
  EXPECT_EQ(sink.waits, 5u);
  EXPECT_EQ(r.samples, 1500u);
  EXPECT_EQ(r.messages, sink.messages.size());
  for (const auto& [id, s] : decode_all(sink.messages, o.encoding)) EXPECT_EQ(s.size(), 500u);
}

TEST(LoadGenerator, ABoundEndsAWaitWithoutCountingTheMessage) {
  LoadOptions o = small_options(LoadEncoding::binary);
  o.duration_s = 0.2;
  const LoadGenerator g(o);
  StuckSink sink;
  const auto r = g.run(sink);
  EXPECT_EQ(r.stopped_by, "duration");
  EXPECT_EQ(r.samples, 0u);
  EXPECT_EQ(r.messages, 0u);
  EXPECT_EQ(r.unsent_messages, 1u);
  EXPECT_EQ(r.blocked_sends, 1u);
  EXPECT_GT(r.blocked_seconds, 0.0);
  EXPECT_TRUE(r.occurrences.empty());

  std::atomic<bool> stop{true};
  MemorySink memory;
  const auto stopped = LoadGenerator(small_options(LoadEncoding::text)).run(memory, &stop);
  EXPECT_EQ(stopped.stopped_by, "stop");
  EXPECT_EQ(stopped.samples, 0u);
}

// Faults (LoadOptions::faults, `warpwatch load --faults`): each kind in turn after every N-th
// message, each refused whole by the ingest path under its reason and counted in the
// result; the good messages exactly those of a run without faults.
bench::LoadOptions fault_options(bench::LoadEncoding encoding) {
  bench::LoadOptions o;
  o.streams = 3;
  o.frame = 20;
  o.encoding = encoding;
  o.t0_ns = 1'000'000'000;
  o.patterns = bench::builtin_patterns(2, 8);
  o.every = 40;
  o.samples_per_stream = 200;  // 10 messages per stream, 30 in all
  return o;
}

class LoadFaults : public ::testing::TestWithParam<bench::LoadEncoding> {};

TEST_P(LoadFaults, EachIsRefusedWholeUnderItsReasonAndTheGoodMessagesStayTheSame) {
  MemorySink clean;
  const bench::LoadGenerator plain(fault_options(GetParam()));
  const bench::LoadResult plain_result = plain.run(clean);

  bench::LoadOptions o = fault_options(GetParam());
  o.faults.every = 4;
  o.faults.kinds = {LoadFault::malformed, LoadFault::invalid_id, LoadFault::unknown_id,
                    LoadFault::oversized};
  o.faults.oversized_bytes = 1000;
  const bench::LoadGenerator faulty(o);
  MemorySink sink;
  const bench::LoadResult r = faulty.run(sink);
  // 30 good messages, a fault after the 4th, 8th, ... 28th: 7, the kinds in turn.
  ASSERT_EQ(r.messages, 30u);
  ASSERT_EQ(sink.messages.size(), 37u);
  EXPECT_EQ(r.faults[static_cast<std::size_t>(LoadFault::malformed)], 2u);
  EXPECT_EQ(r.faults[static_cast<std::size_t>(LoadFault::invalid_id)], 2u);
  EXPECT_EQ(r.faults[static_cast<std::size_t>(LoadFault::unknown_id)], 2u);
  EXPECT_EQ(r.faults[static_cast<std::size_t>(LoadFault::oversized)], 1u);
  EXPECT_EQ(r.samples, plain_result.samples);
  EXPECT_EQ(r.occurrences.size(), plain_result.occurrences.size());

  std::vector<Message> good;
  for (std::size_t i = 0; i < sink.messages.size(); ++i)
    if (i % 5 != 4) good.push_back(sink.messages[i]);  // every 5th sent is the fault
  ASSERT_EQ(good.size(), clean.messages.size());
  for (std::size_t i = 0; i < good.size(); ++i) {
    EXPECT_EQ(good[i].id, clean.messages[i].id) << "message " << i;
    EXPECT_TRUE(good[i].payload == clean.messages[i].payload) << "message " << i;
  }

  // Through the ingest path, as the daemon takes them: the load's streams declared, the
  // message limit between the largest good message and the oversized one.
  std::vector<stream::StreamDef> declared;
  for (std::size_t k = 0; k < o.streams; ++k) declared.push_back({faulty.stream_id(k), 1, 1});
  stream::StreamRegistry registry(declared);
  stream::IngestHub hub(
      registry, {.max_message_bytes = 1000, .total_bytes = 1 << 20, .stream_bytes = 1 << 20});
  const stream::SourceId source = hub.add_source("test", stream::Overflow::wait);
  for (const Message& m : sink.messages) hub.offer_message(source, m.id, m.payload);
  const stream::RegistrySnapshot s = registry.snapshot();
  using R = stream::RejectReason;
  EXPECT_EQ(s.accepted_samples, r.samples);
  EXPECT_EQ(s.rejected[R::malformed_frame], 2u);
  EXPECT_EQ(s.rejected[R::invalid_stream_id], 2u);
  EXPECT_EQ(s.rejected[R::unknown_stream], 2u);
  EXPECT_EQ(s.rejected[R::oversized_message], 1u);
  EXPECT_EQ(s.rejected.total(), 7u);
}

INSTANTIATE_TEST_SUITE_P(LoadGenerator, LoadFaults,
                         ::testing::Values(bench::LoadEncoding::binary,
                                           bench::LoadEncoding::binary_explicit,
                                           bench::LoadEncoding::text),
                         [](const auto& info) { return std::string(to_string(info.param)); });

TEST(LoadFaultOptions, AreCheckedAndNamed) {
  bench::LoadOptions o = fault_options(bench::LoadEncoding::binary);
  o.faults.every = 3;
  EXPECT_THROW(bench::LoadGenerator{o}, std::invalid_argument);  // no kinds
  o.faults.kinds = {LoadFault::oversized};
  EXPECT_THROW(bench::LoadGenerator{o}, std::invalid_argument);  // no size
  for (std::size_t k = 0; k < bench::load_fault_kinds; ++k) {
    const auto kind = static_cast<LoadFault>(k);
    EXPECT_EQ(bench::parse_load_fault(bench::to_string(kind)), kind);
  }
  EXPECT_EQ(bench::parse_load_fault("bogus"), std::nullopt);
}

}  // namespace
