#include <gtest/gtest.h>

#include <string>

#include "warpwatch/stream/stream_id.hpp"

using warpwatch::stream::invalid_stream_id_reason;

TEST(StreamId, AcceptsUtf8WithoutWhitespace) {
  EXPECT_EQ(invalid_stream_id_reason("pump-7/bearing.temp"), std::nullopt);
  EXPECT_EQ(invalid_stream_id_reason("\xC3\xA9tage-\xE2\x82\xAC"), std::nullopt);  // étage-€
  EXPECT_EQ(invalid_stream_id_reason(std::string(255, 'x')), std::nullopt);
}

TEST(StreamId, RejectsWithAReason) {
  EXPECT_EQ(invalid_stream_id_reason(""), "empty stream id");
  EXPECT_EQ(invalid_stream_id_reason(std::string(256, 'x')), "stream id longer than 255 bytes");
  EXPECT_EQ(invalid_stream_id_reason("a b"), "whitespace in stream id");
  EXPECT_EQ(invalid_stream_id_reason(std::string("a\0b", 3)), "NUL byte in stream id");
  EXPECT_EQ(invalid_stream_id_reason("\xC3"), "stream id is not valid UTF-8");          // truncated
  EXPECT_EQ(invalid_stream_id_reason("\xC0\xAF"), "stream id is not valid UTF-8");      // overlong
  EXPECT_EQ(invalid_stream_id_reason("\xED\xA0\x80"), "stream id is not valid UTF-8");  // surrogate
}
