// Ingest payloads (stream/frame.hpp): binary frames and text lines, both directions,
// and every way a payload can be malformed.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "warpwatch/stream/decode/frame.hpp"

namespace {

using warpwatch::stream::decode_payload;
using warpwatch::stream::Decoded;
using warpwatch::stream::DecodeError;
using warpwatch::stream::encode_frame;
using warpwatch::stream::encode_text;
using warpwatch::stream::RejectReason;
using warpwatch::stream::Samples;

std::span<const std::byte> bytes_of(const std::string& s) {
  return std::as_bytes(std::span(s));
}

Decoded decoded(std::span<const std::byte> payload, std::size_t text_dims = 0) {
  auto r = decode_payload(payload, text_dims);
  if (const auto* e = std::get_if<DecodeError>(&r)) {
    ADD_FAILURE() << "unexpected whole-message error: " << e->detail;
    return {};
  }
  return std::get<Decoded>(std::move(r));
}

DecodeError whole_error(std::span<const std::byte> payload) {
  auto r = decode_payload(payload);
  if (!std::holds_alternative<DecodeError>(r)) {
    ADD_FAILURE() << "payload decoded, expected a whole-message error";
    return {};
  }
  return std::get<DecodeError>(std::move(r));
}

// Bitwise equality, so that NaN payloads and -0 count too.
void expect_same_bits(const Samples& a, const Samples& b) {
  ASSERT_EQ(a.dims, b.dims);
  ASSERT_EQ(a.times_ns, b.times_ns);
  ASSERT_EQ(a.values.size(), b.values.size());
  for (std::size_t i = 0; i < a.values.size(); ++i) {
    ASSERT_EQ(std::bit_cast<std::uint32_t>(a.values[i]), std::bit_cast<std::uint32_t>(b.values[i]))
        << "value " << i;
  }
}

// dims 2, count 2, t0 1000, period 10, values 1 2 / 3 4: the worked example of docs/ingest.md §3.
const std::vector<unsigned> readme_example = {
    0x57, 0x57, 0x46, 0x01, 0x00, 0x00, 0x02, 0x00, 0x02, 0x00, 0x00, 0x00,  // header
    0xe8, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,                          // t0 = 1000
    0x0a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,                          // period = 10
    0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0x40,                          // 1.0f 2.0f
    0x00, 0x00, 0x40, 0x40, 0x00, 0x00, 0x80, 0x40};                         // 3.0f 4.0f

std::vector<std::byte> example_frame() {
  std::vector<std::byte> out;
  for (unsigned b : readme_example) out.push_back(static_cast<std::byte>(b));
  return out;
}

void put_le(std::vector<std::byte>& f, std::size_t at, std::uint64_t v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) f[at + i] = static_cast<std::byte>((v >> (8 * i)) & 0xFF);
}

TEST(Frame, ReadmeExampleEncodesAndDecodes) {
  const Samples s{2, {1000, 1010}, {1.f, 2.f, 3.f, 4.f}};
  EXPECT_EQ(encode_frame(s, false), example_frame());
  EXPECT_EQ(decoded(example_frame()).samples, s);
  EXPECT_TRUE(decoded(example_frame()).line_errors.empty());
  // The explicit form of the same samples: flags 1, two int64 timestamps instead of t0/period.
  const auto explicit_frame = encode_frame(s, true);
  ASSERT_EQ(explicit_frame.size(), 12u + 16u + 16u);
  EXPECT_EQ(explicit_frame[4], std::byte{1});
  EXPECT_EQ(decoded(explicit_frame).samples, s);
}

TEST(Frame, BinaryRoundTripRandomShapesBothTimestampForms) {
  const auto seed = warpwatch::testing::test_seed();
  std::mt19937_64 rng(seed);
  for (int iter = 0; iter < 300; ++iter) {
    Samples s;
    s.dims =
        iter < 2 ? (iter == 0 ? 1 : 64) : std::uniform_int_distribution<std::size_t>(1, 64)(rng);
    const std::size_t count = std::uniform_int_distribution<std::size_t>(1, 40)(rng);
    const bool explicit_times = (rng() & 1) != 0;
    std::int64_t t = std::uniform_int_distribution<std::int64_t>(-(1LL << 60), 1LL << 60)(rng);
    const std::int64_t period = std::uniform_int_distribution<std::int64_t>(1, 1'000'000'000)(rng);
    for (std::size_t i = 0; i < count; ++i) {
      s.times_ns.push_back(t);
      // Explicit timestamps may be anything (order is the validator's business).
      t += explicit_times ? std::uniform_int_distribution<std::int64_t>(-1000, 1'000'000)(rng)
                          : period;
    }
    // Any 32-bit pattern, NaN and infinities included: a frame carries them bit for bit.
    for (std::size_t i = 0; i < count * s.dims; ++i) {
      s.values.push_back(std::bit_cast<float>(static_cast<std::uint32_t>(rng())));
    }
    const auto frame = encode_frame(s, explicit_times);
    ASSERT_EQ(frame.size(), 12 + (explicit_times ? 8 * count : 16) + 4 * count * s.dims);
    SCOPED_TRACE(::testing::Message() << "iteration " << iter);
    expect_same_bits(decoded(frame).samples, s);
  }
}

TEST(Frame, TextRoundTripRandomShapes) {
  const auto seed = warpwatch::testing::test_seed();
  std::mt19937_64 rng(seed);
  for (int iter = 0; iter < 200; ++iter) {
    Samples s;
    s.dims = std::uniform_int_distribution<std::size_t>(1, 64)(rng);
    const std::size_t count = std::uniform_int_distribution<std::size_t>(1, 20)(rng);
    for (std::size_t i = 0; i < count; ++i) {
      s.times_ns.push_back(static_cast<std::int64_t>(rng()));
      for (std::size_t k = 0; k < s.dims; ++k) {
        float v = std::bit_cast<float>(static_cast<std::uint32_t>(rng()));
        // NaN payload bits do not survive text: use an infinity there instead.
        if (std::isnan(v)) v = std::numeric_limits<float>::infinity();
        s.values.push_back(v);
      }
    }
    SCOPED_TRACE(::testing::Message() << "iteration " << iter);
    const Decoded d = decoded(bytes_of(encode_text(s)));
    EXPECT_TRUE(d.line_errors.empty());
    expect_same_bits(d.samples, s);
  }
}

TEST(Frame, EncodeRefusesWhatAFrameCannotCarry) {
  EXPECT_THROW(encode_frame(Samples{1, {0, 10, 25}, {1, 2, 3}}, false), std::invalid_argument);
  EXPECT_THROW(encode_frame(Samples{1, {10, 5}, {1, 2}}, false), std::invalid_argument);
  EXPECT_THROW(encode_frame(Samples{1, {}, {}}, true), std::invalid_argument);
  EXPECT_THROW(encode_frame(Samples{65, {0}, std::vector<float>(65)}, true), std::invalid_argument);
  EXPECT_THROW(encode_frame(Samples{2, {0}, {1}}, true), std::invalid_argument);
  EXPECT_THROW((void)encode_text(Samples{2, {0}, {1}}), std::invalid_argument);
  // Uneven timestamps are fine with the explicit form; a single sample gets period 1.
  EXPECT_NO_THROW(encode_frame(Samples{1, {0, 10, 25}, {1, 2, 3}}, true));
  EXPECT_EQ(decoded(encode_frame(Samples{1, {-7}, {5}}, false)).samples, (Samples{1, {-7}, {5}}));
}

void expect_malformed(const std::vector<std::byte>& frame, const std::string& detail_part) {
  const DecodeError e = whole_error(frame);
  EXPECT_EQ(e.reason, RejectReason::malformed_frame);
  EXPECT_NE(e.detail.find(detail_part), std::string::npos) << "detail: " << e.detail;
}

TEST(Frame, MalformedHeaders) {
  const auto good = example_frame();
  expect_malformed(std::vector<std::byte>(good.begin(), good.begin() + 3), "short header: 3 bytes");
  expect_malformed(std::vector<std::byte>(good.begin(), good.begin() + 4), "short header: 4 bytes");
  expect_malformed(std::vector<std::byte>(good.begin(), good.begin() + 11),
                   "short header: 11 bytes");

  auto f = good;
  f[3] = std::byte{2};
  expect_malformed(f, "unsupported frame version 2");
  f = good;
  f[0] = std::byte{'X'};  // no magic, and NUL bytes: not text either
  const DecodeError unknown = whole_error(f);
  EXPECT_EQ(unknown.reason, RejectReason::unknown_payload);
  EXPECT_NE(unknown.detail.find("not a binary frame"), std::string::npos) << unknown.detail;
  f = good;
  f[4] = std::byte{0x02};
  expect_malformed(f, "unknown flag bits in flags byte 2");
  f = good;
  f[5] = std::byte{7};
  expect_malformed(f, "reserved byte is 7");
  f = good;
  put_le(f, 6, 0, 2);
  expect_malformed(f, "dims 0 outside 1..64");
  f = good;
  put_le(f, 6, 65, 2);
  expect_malformed(f, "dims 65 outside 1..64");
  f = good;
  put_le(f, 8, 0, 4);
  expect_malformed(f, "count 0");
}

TEST(Frame, MalformedTimingAndBodySizes) {
  const auto good = example_frame();  // 44 bytes
  auto f = good;
  put_le(f, 20, 0, 8);
  expect_malformed(f, "period_ns 0 must be > 0");
  f = good;
  put_le(f, 20, static_cast<std::uint64_t>(-5), 8);
  expect_malformed(f, "period_ns -5 must be > 0");
  f = good;
  put_le(f, 12, static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max() - 5), 8);
  expect_malformed(f, "overflows int64");

  expect_malformed(std::vector<std::byte>(good.begin(), good.end() - 1),
                   "frame is 43 bytes, its header announces 44 (truncated)");
  expect_malformed(std::vector<std::byte>(good.begin(), good.begin() + 12),
                   "frame is 12 bytes, its header announces 44 (truncated)");
  f = good;
  f.push_back(std::byte{0});
  expect_malformed(f, "frame is 45 bytes, its header announces 44 (trailing bytes)");
  // A huge count is refused by the size check, before anything is allocated.
  f = good;
  put_le(f, 8, 0xFFFFFFFF, 4);
  expect_malformed(f, "(truncated)");
  // With explicit timestamps the body is count * 8 + count * dims * 4 bytes.
  auto e = encode_frame(Samples{2, {1, 5, 9}, {1, 2, 3, 4, 5, 6}}, true);
  ASSERT_EQ(e.size(), 12u + 24u + 24u);
  e.pop_back();
  expect_malformed(e, "frame is 59 bytes, its header announces 60 (truncated)");
}

TEST(Frame, NonFiniteValuesAreDecodedNotRejected) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const Samples s{3, {1, 2}, {nan, inf, -inf, 0, 1, 2}};
  const Samples b = decoded(encode_frame(s, true)).samples;
  EXPECT_TRUE(std::isnan(b.values[0]));
  EXPECT_EQ(b.values[1], inf);
  EXPECT_EQ(b.values[2], -inf);
  const Decoded t = decoded(bytes_of("1,nan,inf,-inf\n"));
  EXPECT_TRUE(t.line_errors.empty());
  ASSERT_EQ(t.samples.values.size(), 3u);
  EXPECT_TRUE(std::isnan(t.samples.values[0]));
  EXPECT_EQ(t.samples.values[1], inf);
  EXPECT_EQ(t.samples.values[2], -inf);
}

TEST(Frame, TextKeepsGoodLinesAndCountsTheBadOnesPerReason) {
  const std::string text =
      "1000,1.5,2\r\n"            // 1 good (CRLF)
      "\n"                        // 2 blank
      "1001,abc,2\n"              // 3 bad value
      "1002,3\n"                  // 4 one value, dims are 2
      "x,1,2\n"                   // 5 bad timestamp
      " 1003 ,\t4, 5 \n"          // 6 good (spaces and tabs around fields)
      "  \r\n"                    // 7 blank
      "1004\n"                    // 8 no values
      "1005,,1\n"                 // 9 empty value
      "1006,nan,inf\n"            // 10 good: non-finite is the validator's business
      "1007,1e39,0\n"             // 11 beyond float32
      "1008,1e-50,-2.5e-3\r\n"    // 12 good: underflow rounds to 0
      "9223372036854775808,1,1";  // 13 timestamp beyond int64, no final newline
  const Decoded d = decoded(bytes_of(text));
  EXPECT_EQ(d.samples.dims, 2u);
  EXPECT_EQ(d.samples.times_ns, (std::vector<std::int64_t>{1000, 1003, 1006, 1008}));
  ASSERT_EQ(d.samples.values.size(), 8u);
  EXPECT_EQ(d.samples.values[0], 1.5f);
  EXPECT_EQ(d.samples.values[1], 2.f);
  EXPECT_EQ(d.samples.values[2], 4.f);
  EXPECT_EQ(d.samples.values[3], 5.f);
  EXPECT_EQ(d.samples.values[6], 0.f);
  EXPECT_EQ(d.samples.values[7], -2.5e-3f);

  // One entry per reason, in the order they first occur: the count, and the first line.
  ASSERT_EQ(d.line_errors.size(), 2u);
  EXPECT_EQ(d.line_errors[0].reason, RejectReason::malformed_frame);
  EXPECT_EQ(d.line_errors[0].count, 6u);
  EXPECT_EQ(d.line_errors[0].first, "line 3: value 'abc' is not a float32");
  EXPECT_EQ(d.line_errors[1].reason, RejectReason::wrong_dims);
  EXPECT_EQ(d.line_errors[1].count, 1u);
  EXPECT_EQ(d.line_errors[1].first, "line 4: 1 values, expected 2");

  // Each bad line's description, as the first of its payload (line numbers from 1).
  const std::vector<std::pair<std::string, std::string>> lines = {
      {"1001,abc,2", "line 1: value 'abc' is not a float32"},
      {"x,1,2", "line 1: timestamp 'x' is not a decimal int64"},
      {"1004", "line 1: no values in '1004' (expected t_ns,v1[,v2...])"},
      {"1005,,1", "line 1: value '' is not a float32"},
      {"1007,1e39,0", "line 1: value '1e39' is not a float32"},
      {"9223372036854775808,1,1", "line 1: timestamp '9223372036854775808' is not a decimal int64"},
  };
  for (const auto& [line, detail] : lines) {
    const Decoded one = decoded(bytes_of(line), 2);
    ASSERT_EQ(one.line_errors.size(), 1u) << line;
    EXPECT_EQ(one.line_errors[0].reason, RejectReason::malformed_frame) << line;
    EXPECT_EQ(one.line_errors[0].count, 1u);
    EXPECT_EQ(one.line_errors[0].first, detail);
  }
}

TEST(Frame, TextDimsComeFromTheHintOrTheFirstGoodLine) {
  const std::string text = "1,5,6\n2,7\n3,8,9\n";
  const Decoded first = decoded(bytes_of(text));  // the first line sets dims 2
  EXPECT_EQ(first.samples, (Samples{2, {1, 3}, {5, 6, 8, 9}}));
  ASSERT_EQ(first.line_errors.size(), 1u);
  EXPECT_EQ(first.line_errors[0].first, "line 2: 1 values, expected 2");

  const Decoded hinted = decoded(bytes_of(text), 1);  // the stream has dims 1
  EXPECT_EQ(hinted.samples, (Samples{1, {2}, {7}}));
  ASSERT_EQ(hinted.line_errors.size(), 1u);
  EXPECT_EQ(hinted.line_errors[0].reason, RejectReason::wrong_dims);
  EXPECT_EQ(hinted.line_errors[0].count, 2u);
  EXPECT_EQ(hinted.line_errors[0].first, "line 1: 2 values, expected 1");

  std::string wide = "7";
  for (int k = 0; k < 65; ++k) wide.append(",1");
  const Decoded too_wide = decoded(bytes_of(wide));
  EXPECT_EQ(too_wide.samples.size(), 0u);
  ASSERT_EQ(too_wide.line_errors.size(), 1u);
  EXPECT_EQ(too_wide.line_errors[0].first, "line 1: more than 64 values");
}

TEST(Frame, TextWithoutSamples) {
  const Decoded empty = decoded(bytes_of(std::string()), 3);
  EXPECT_EQ(empty.samples, (Samples{3, {}, {}}));
  EXPECT_TRUE(empty.line_errors.empty());
  const Decoded blank = decoded(bytes_of("\n\r\n  \n"));
  EXPECT_EQ(blank.samples.size(), 0u);
  EXPECT_TRUE(blank.line_errors.empty());
  // "WW" is not the magic: it is a (bad) text line.
  const Decoded ww = decoded(bytes_of("WW"));
  ASSERT_EQ(ww.line_errors.size(), 1u);
  EXPECT_EQ(ww.line_errors[0].first, "line 1: no values in 'WW' (expected t_ns,v1[,v2...])");
  // Control bytes in a bad field are escaped in the detail.
  const Decoded ctl = decoded(bytes_of("1,\x01x\n"));
  ASSERT_EQ(ctl.line_errors.size(), 1u);
  EXPECT_EQ(ctl.line_errors[0].first, "line 1: value '\\x01x' is not a float32");
}

// Damaged frames and random bytes: decoding never crashes, and whatever it returns keeps
// the Samples invariant (run under ASan/UBSan to make this meaningful).
TEST(Frame, DamagedPayloadsNeverBreakTheInvariant) {
  const auto seed = warpwatch::testing::test_seed();
  std::mt19937_64 rng(seed);
  const auto good = encode_frame(Samples{3, {1, 4, 9}, {1, 2, 3, 4, 5, 6, 7, 8, 9}}, true);
  int whole = 0, lines = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::vector<std::byte> p;
    if (iter % 2 == 0) {
      p = good;
      for (int k = 0; k < 1 + iter % 4; ++k) p[rng() % p.size()] = static_cast<std::byte>(rng());
      p.resize(rng() % 8 == 0 ? rng() % (p.size() + 8) : p.size());
    } else {
      static constexpr char alphabet[] = "0123456789,,,\n\n-.eEnaif \r\tx";
      p.resize(rng() % 64);
      for (auto& b : p) b = static_cast<std::byte>(alphabet[rng() % (sizeof alphabet - 1)]);
    }
    const auto r = decode_payload(p, rng() % 3);
    if (const auto* d = std::get_if<Decoded>(&r)) {
      ASSERT_EQ(d->samples.values.size(), d->samples.size() * d->samples.dims);
      for (const auto& e : d->line_errors) lines += static_cast<int>(e.count);
    } else {
      ++whole;
    }
  }
  EXPECT_GT(whole, 0);
  EXPECT_GT(lines, 0);
}

TEST(Frame, RejectReasonNames) {
  using R = RejectReason;
  EXPECT_EQ(to_string(R::malformed_frame), "malformed_frame");
  EXPECT_EQ(to_string(R::unknown_stream), "unknown_stream");
  EXPECT_EQ(to_string(R::wrong_dims), "wrong_dims");
  EXPECT_EQ(to_string(R::non_increasing_timestamp), "non_increasing_timestamp");
  EXPECT_EQ(to_string(R::non_finite_value), "non_finite_value");
  EXPECT_EQ(to_string(R::oversized_message), "oversized_message");
  EXPECT_EQ(to_string(R::invalid_stream_id), "invalid_stream_id");
  EXPECT_EQ(to_string(R::too_many_streams), "too_many_streams");
  EXPECT_EQ(to_string(R::wrong_part_count), "wrong_part_count");
  EXPECT_EQ(to_string(R::unknown_payload), "unknown_payload");
  EXPECT_EQ(to_string(R::empty_payload), "empty_payload");
  EXPECT_EQ(to_string(R::queue_full), "queue_full");
  EXPECT_EQ(to_string(R::unmapped_topic), "unmapped_topic");
  EXPECT_EQ(to_string(R::rate_limited), "rate_limited");
  for (std::size_t i = 0; i < warpwatch::stream::all_reject_reasons.size(); ++i) {
    EXPECT_EQ(static_cast<std::size_t>(warpwatch::stream::all_reject_reasons[i]), i);
  }
}

}  // namespace

TEST(Frame, TextValuesTooSmallForFloat32AreTheNearestFloat32) {
  // docs/ingest.md §4: one too small for float32 becomes the nearest float32, also beyond
  // float64's range (1e-400 was refused as a bad line); one too large is a bad line.
  const Decoded d =
      decoded(bytes_of("1,1e-400\n2,-1e-400\n3,1e-45\n4,7e-46\n5,8e-46\n"
                       "6,0.0000000000000000000000000000000000000000000000000001\n"
                       "7,1e400\n8,3.5e38\n"));
  ASSERT_EQ(d.samples.values.size(), 6u);
  EXPECT_EQ(d.samples.values[0], 0.0f);
  EXPECT_FALSE(std::signbit(d.samples.values[0]));
  EXPECT_TRUE(std::signbit(d.samples.values[1]));
  EXPECT_EQ(d.samples.values[2], std::numeric_limits<float>::denorm_min());
  EXPECT_EQ(d.samples.values[3], 0.0f);  // below half the smallest subnormal: 0
  EXPECT_EQ(d.samples.values[4], std::numeric_limits<float>::denorm_min());
  EXPECT_EQ(d.samples.values[5], 0.0f);
  ASSERT_EQ(d.line_errors.size(), 1u);
  EXPECT_EQ(d.line_errors[0].count, 2u);
  EXPECT_EQ(d.line_errors[0].first, "line 7: value '1e400' is not a float32");
}

TEST(Frame, QuotedEscapesControlsAndKeepsLetters) {
  EXPECT_EQ(warpwatch::stream::quoted("a b"), "'a b'");
  EXPECT_EQ(warpwatch::stream::quoted("\x1b[31mred\xc2\x85"), "'\\x1b[31mred\\xc2\\x85'");
  EXPECT_EQ(warpwatch::stream::quoted("caf\xc3\xa9 'x'"), "'caf\xc3\xa9 \\x27x\\x27'");
  EXPECT_EQ(warpwatch::stream::quoted(std::string(40, 'x')), "'" + std::string(32, 'x') + "...'");
}
