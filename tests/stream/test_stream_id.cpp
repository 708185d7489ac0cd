#include <gtest/gtest.h>

#include <string>

#include "warpwatch/base/stream_id.hpp"

using warpwatch::stream::invalid_stream_id_reason;
using warpwatch::stream::printable;

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

TEST(StreamId, RejectsControlCharacters) {
  // C0 (ESC starts a terminal's escape sequences), DEL and C1 (U+0080..U+009F, in UTF-8 C2 80
  // to C2 9F; U+009B is a one-character CSI on some terminals).
  for (const std::string id : {"a\x1b[31mb", "a\x01", "a\x7f", "a\xc2\x80", "a\xc2\x9b[2J"}) {
    SCOPED_TRACE(printable(id));
    EXPECT_EQ(invalid_stream_id_reason(id), "control character in stream id");
  }
}

TEST(StreamId, RejectsUnicodeWhitespace) {
  // Unicode's White_Space beyond ASCII: NEL, NBSP, Ogham space mark, U+2000..U+200A, line
  // and paragraph separators, narrow NBSP, medium mathematical space, ideographic space.
  for (const std::string id : {"a\xc2\x85", "a\xc2\xa0z", "a\xe1\x9a\x80", "a\xe2\x80\x80",
                               "a\xe2\x80\x8a", "a\xe2\x80\xa8", "a\xe2\x80\xa9", "a\xe2\x80\xaf",
                               "a\xe2\x81\x9f", "a\xe3\x80\x80", "a\tb", "a\vb", "a\fb", "a\rb"}) {
    SCOPED_TRACE(printable(id));
    EXPECT_EQ(invalid_stream_id_reason(id), "whitespace in stream id");
  }
}

TEST(StreamId, RejectsInvisibleAndBidirectionalFormatCharacters) {
  // Zero-width space, word joiner, U+FEFF, the Arabic letter mark, LRM, RLM, embeddings and
  // overrides (U+202E makes "abc" display as "cba"), isolates.
  for (const std::string id : {"a\xe2\x80\x8b", "a\xe2\x81\xa0",
                               "\xef\xbb\xbf"
                               "a",
                               "a\xd8\x9c", "a\xe2\x80\x8e", "a\xe2\x80\x8f", "a\xe2\x80\xaa",
                               "a\xe2\x80\xae", "a\xe2\x81\xa6", "a\xe2\x81\xa9"}) {
    SCOPED_TRACE(printable(id));
    const auto why = invalid_stream_id_reason(id);
    ASSERT_TRUE(why.has_value());
    EXPECT_TRUE(why->starts_with("invisible or bidirectional format character")) << *why;
  }
  // The zero-width joiner and non-joiner spell some scripts and emoji: allowed.
  EXPECT_EQ(invalid_stream_id_reason("\xd9\x85\xe2\x80\x8c\xd9\x8a"), std::nullopt);
  EXPECT_EQ(invalid_stream_id_reason("\xf0\x9f\x91\xa9\xe2\x80\x8d\xf0\x9f\x94\xa7"), std::nullopt);
}

TEST(StreamId, PrintableEscapesWhatATerminalWouldActOn) {
  // A valid id reads as itself, UTF-8 letters included; \ and ' are escaped (the result
  // goes between quotes).
  EXPECT_EQ(printable("pump-7/\xc3\xa9tage"), "pump-7/\xc3\xa9tage");
  EXPECT_EQ(printable("a\\b'c"), "a\\x5cb\\x27c");
  // Controls, C1, whitespace, bidirectional overrides and broken UTF-8, byte by byte.
  EXPECT_EQ(printable("a\x1b[2Jb"), "a\\x1b[2Jb");
  EXPECT_EQ(printable("\xc2\x9b"
                      "1m"),
            "\\xc2\\x9b1m");
  EXPECT_EQ(printable("a b\n"), "a\\x20b\\x0a");
  EXPECT_EQ(printable("a b", 255, /*keep_space=*/true), "a b");
  EXPECT_EQ(printable("\xe2\x80\xae"
                      "cba"),
            "\\xe2\\x80\\xaecba");
  EXPECT_EQ(printable("\xff\xc3"), "\\xff\\xc3");
  // Cut after max_bytes bytes of the input; a character cut in two is escaped.
  EXPECT_EQ(printable("abcdef", 3), "abc...");
  EXPECT_EQ(printable("a\xc3\xa9", 2), "a\\xc3...");
}
