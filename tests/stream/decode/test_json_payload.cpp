// JSON payloads (stream/json_payload.cpp, through decode_payload): one sample or an array,
// nanosecond times, one value or several, every bad element counted under its reason with
// the others kept, and how `any` tells JSON, text and frames apart.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "warpwatch/stream/decode/frame.hpp"

namespace {

using namespace warpwatch::stream;

std::span<const std::byte> bytes_of(const std::string& s) {
  return std::as_bytes(std::span(s));
}

Decoded json(const std::string& text, std::size_t dims = 0) {
  auto r = decode_payload(bytes_of(text), dims, PayloadFormat::json);
  if (const auto* e = std::get_if<DecodeError>(&r)) {
    ADD_FAILURE() << "unexpected whole-message error: " << e->detail;
    return {};
  }
  return std::get<Decoded>(std::move(r));
}

std::string whole_error(const std::string& text) {
  auto r = decode_payload(bytes_of(text), 0, PayloadFormat::json);
  if (const auto* e = std::get_if<DecodeError>(&r)) {
    EXPECT_EQ(e->reason, RejectReason::malformed_frame);
    return e->detail;
  }
  ADD_FAILURE() << "decoded, expected a whole-message error";
  return {};
}

TEST(JsonPayload, OneSampleOrAnArray) {
  const Decoded one = json(R"({"t": 1700000000000000000, "v": 1.5})");
  EXPECT_EQ(one.samples, (Samples{1, {1700000000000000000}, {1.5f}}));
  const Decoded many = json(R"([{"t": -5, "v": [1, 2]}, {"v": [3, 4e2], "t": 7, "unit": "m"}])");
  EXPECT_EQ(many.samples, (Samples{2, {-5, 7}, {1, 2, 3, 400}}));
  EXPECT_TRUE(many.line_errors.empty());
  const Decoded none = json(" [ ] ");
  EXPECT_EQ(none.samples.size(), 0u);
  EXPECT_TRUE(none.line_errors.empty()) << "no samples: the hub counts it as empty_payload";
  const Decoded tiny = json(R"({"t": 1, "v": 1e-50})");
  EXPECT_EQ(tiny.samples.values, std::vector<float>{0.0f}) << "too small: the nearest float32";
  const Decoded big_time = json(R"({"t": 9223372036854775807, "v": 0})");
  EXPECT_EQ(big_time.samples.times_ns, std::vector<std::int64_t>{9223372036854775807});
}

TEST(JsonPayload, EachBadElementIsCountedAndTheOthersKept) {
  const Decoded d = json(R"([
    {"t": 1, "v": 1},
    {"t": 1.5, "v": 2},
    {"v": 3},
    {"t": 4},
    {"t": "5", "v": 5},
    {"t": 6, "v": "6"},
    {"t": 7, "v": [7, "x"]},
    {"t": 8, "v": []},
    {"t": 9, "v": 1e39},
    {"t": 9223372036854775808, "v": 10},
    [11, 11],
    {"t": 12, "v": [12, 12]},
    {"t": 13, "v": 13}
  ])");
  EXPECT_EQ(d.samples, (Samples{1, {1, 13}, {1, 13}}));
  ASSERT_EQ(d.line_errors.size(), 2u);
  EXPECT_EQ(d.line_errors[0].reason, RejectReason::malformed_frame);
  EXPECT_EQ(d.line_errors[0].count, 10u);
  EXPECT_EQ(d.line_errors[0].first,
            "element 2: \"t\" is not an integer (the time in ns since the Unix epoch)");
  EXPECT_EQ(d.line_errors[1].reason, RejectReason::wrong_dims);
  EXPECT_EQ(d.line_errors[1].count, 1u);
  EXPECT_EQ(d.line_errors[1].first, "element 12: 2 values, expected 1");
}

TEST(JsonPayload, EveryKindOfBadElementIsDescribed) {
  const auto first_error = [](const std::string& element) {
    const Decoded d = json("[" + element + "]");
    return d.line_errors.empty() ? std::string("accepted") : d.line_errors[0].first;
  };
  EXPECT_EQ(first_error(R"({"v": 3})"),
            "element 1: no \"t\" (the time in ns since the Unix epoch)");
  EXPECT_EQ(first_error(R"({"t": 4})"), "element 1: no \"v\" (a number, or an array of numbers)");
  EXPECT_EQ(first_error(R"({"t": 1, "v": null})"),
            "element 1: \"v\" is not a number or an array of numbers");
  EXPECT_EQ(first_error(R"({"t": 1, "v": [[1]]})"),
            "element 1: \"v\" is not a number or an array of numbers");
  EXPECT_EQ(first_error(R"({"t": 1, "v": []})"),
            "element 1: \"v\" has 0 values, a sample has 1 to 64");
  EXPECT_EQ(first_error(R"({"t": 1, "v": -1e39})"),
            "element 1: a value of \"v\" is beyond the float32 range");
  EXPECT_EQ(first_error(R"({"t": 18446744073709551615, "v": 1})"),
            "element 1: \"t\" is beyond int64");
  EXPECT_EQ(first_error("7"), "element 1: not an object {\"t\": ..., \"v\": ...}");
  std::string wide = R"({"t": 1, "v": [)";
  for (int i = 0; i < 65; ++i) wide += i ? ",1" : "1";
  EXPECT_EQ(first_error(wide + "]}"), "element 1: \"v\" has 65 values, a sample has 1 to 64");
}

TEST(JsonPayload, TheStreamsDimsAreRequiredOfEveryElement) {
  const Decoded d = json(R"([{"t": 1, "v": 1}, {"t": 2, "v": [2, 2]}])", 2);
  EXPECT_EQ(d.samples, (Samples{2, {2}, {2, 2}}));
  ASSERT_EQ(d.line_errors.size(), 1u);
  EXPECT_EQ(d.line_errors[0].first, "element 1: 1 values, expected 2");
  const Decoded single = json(R"({"t": 1, "v": 1})", 3);
  ASSERT_EQ(single.line_errors.size(), 1u);
  EXPECT_EQ(single.line_errors[0].reason, RejectReason::wrong_dims);
  EXPECT_EQ(single.line_errors[0].first, "1 values, expected 3") << "no element number";
}

TEST(JsonPayload, WhatIsNotJsonOrNotSamplesIsRejectedWhole) {
  EXPECT_EQ(whole_error(R"({"t": 1, "v": )"), "not valid JSON (error at byte 15)");
  EXPECT_EQ(whole_error("1700000000,1.5"), "not valid JSON (error at byte 11)");
  EXPECT_EQ(whole_error(""), "not valid JSON (error at byte 1)");
  EXPECT_EQ(whole_error(std::string("{\"t\": 1,\0", 9)), "not valid JSON (error at byte 9)");
  EXPECT_EQ(whole_error(R"("text")"),
            "a JSON payload is an object {\"t\": ..., \"v\": ...} or an array of them, not string");
  EXPECT_EQ(whole_error("3.5"),
            "a JSON payload is an object {\"t\": ..., \"v\": ...} or an array of them, not number");
}

TEST(JsonPayload, AnyTellsFramesJsonAndTextApart) {
  const auto kind = [](const std::string& text) {
    return payload_kind(bytes_of(text), PayloadFormat::any);
  };
  const auto frame = encode_frame(Samples{1, {1}, {1}}, true);
  EXPECT_EQ(payload_kind(frame, PayloadFormat::any), PayloadKind::frame);
  EXPECT_EQ(kind(R"({"t": 1, "v": 1})"), PayloadKind::json);
  EXPECT_EQ(kind(" \r\n\t[]"), PayloadKind::json);
  EXPECT_EQ(kind("1,1\n"), PayloadKind::text);
  EXPECT_EQ(kind("  -1,1\n"), PayloadKind::text);
  EXPECT_EQ(kind(""), PayloadKind::text);
  EXPECT_EQ(payload_kind(bytes_of("{}"), PayloadFormat::frame_or_text), PayloadKind::text)
      << "ZeroMQ ingest takes no JSON";
  EXPECT_EQ(payload_kind(frame, PayloadFormat::text), PayloadKind::text);
  EXPECT_EQ(payload_kind(bytes_of("1,1"), PayloadFormat::frame), PayloadKind::frame);

  const auto any = decode_payload(bytes_of(R"([{"t": 3, "v": 4}])"), 0, PayloadFormat::any);
  ASSERT_TRUE(std::holds_alternative<Decoded>(any));
  EXPECT_EQ(std::get<Decoded>(any).samples, (Samples{1, {3}, {4}}));
  const auto not_a_frame = decode_payload(bytes_of("1,1\n"), 0, PayloadFormat::frame);
  ASSERT_TRUE(std::holds_alternative<DecodeError>(not_a_frame));
  EXPECT_EQ(std::get<DecodeError>(not_a_frame).reason, RejectReason::unknown_payload);
  const auto frame_as_text = decode_payload(frame, 0, PayloadFormat::text);
  ASSERT_TRUE(std::holds_alternative<DecodeError>(frame_as_text));
  EXPECT_EQ(std::get<DecodeError>(frame_as_text).detail, "not text (it holds NUL bytes)");
}

}  // namespace

TEST(JsonPayload, ANumberBeyondFloat64IsRejectedNotThrown) {
  // nlohmann-json throws out_of_range (not parse_error) for 1e400 while it parses: it ended
  // the ingest thread (tests/fuzz/findings/frame/json_number_beyond_float64_out_of_range).
  EXPECT_EQ(whole_error("4e3049"),
            "a JSON number beyond the float64 range: the payload does not parse");
  EXPECT_EQ(whole_error(R"([{"t": 1, "v": 1}, {"t": 2, "v": -1e400}])"),
            "a JSON number beyond the float64 range: the payload does not parse");
  // Beyond float32 but not float64: that element alone; too small: the nearest float32.
  const Decoded d = json(R"([{"t": 1, "v": 1e39}, {"t": 2, "v": 1e-400}, {"t": 3, "v": -1e-400}])");
  EXPECT_EQ(d.samples.times_ns, (std::vector<std::int64_t>{2, 3}));
  ASSERT_EQ(d.samples.values.size(), 2u);
  EXPECT_EQ(d.samples.values[0], 0.0f);
  EXPECT_TRUE(std::signbit(d.samples.values[1]));
  ASSERT_EQ(d.line_errors.size(), 1u);
  EXPECT_EQ(d.line_errors[0].first, "element 1: a value of \"v\" is beyond the float32 range");
}
