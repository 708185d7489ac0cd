// InfluxDB line protocol without sockets: the parser (stream/line_protocol.hpp) against
// the reference's syntax, escapes, types and malformed lines, and random input that must
// never crash it; round trips of random points written with the reference's escaping.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "warpwatch/stream/decode/line_protocol.hpp"

namespace {

using namespace warpwatch::stream;

Point parsed(std::string_view line) {
  Point p;
  LineSyntaxError error;
  const LineKind kind = parse_line(line, p, error);
  EXPECT_EQ(kind, LineKind::point)
      << "'" << line << "': column " << error.column << ": " << error.what;
  return p;
}

LineSyntaxError syntax_error(std::string_view line) {
  Point p;
  LineSyntaxError error;
  EXPECT_EQ(parse_line(line, p, error), LineKind::error) << "'" << line << "' parsed";
  return error;
}

double number(std::string_view value) {
  const Point p = parsed("m f=" + std::string(value));
  if (p.fields.size() != 1) return std::nan("");
  return p.fields[0].number;
}

TEST(LineProtocol, ParsesTheReferencesExample) {
  const Point p =
      parsed("myMeasurement,tag1=value1,tag2=value2 fieldKey=\"fieldValue\" 1556813561098000000");
  EXPECT_EQ(p.measurement, "myMeasurement");
  ASSERT_EQ(p.tags.size(), 2u);
  EXPECT_EQ(p.tags[0].key, "tag1");
  EXPECT_EQ(p.tags[0].value, "value1");
  EXPECT_EQ(p.tags[1].key, "tag2");
  EXPECT_EQ(p.tags[1].value, "value2");
  ASSERT_EQ(p.fields.size(), 1u);
  EXPECT_EQ(p.fields[0].key, "fieldKey");
  EXPECT_EQ(p.fields[0].type, FieldType::string);
  EXPECT_EQ(p.fields[0].text, "fieldValue");
  ASSERT_TRUE(p.timestamp.has_value());
  EXPECT_EQ(*p.timestamp, 1556813561098000000);
}

TEST(LineProtocol, ParsesEveryFieldType) {
  const Point p = parsed("cpu usage=0.5,count=42i,big=18446744073709551615u,up=true,name=\"x\"");
  ASSERT_EQ(p.fields.size(), 5u);
  EXPECT_EQ(p.fields[0].type, FieldType::float_);
  EXPECT_EQ(p.fields[0].number, 0.5);
  EXPECT_EQ(p.fields[1].type, FieldType::integer);
  EXPECT_EQ(p.fields[1].number, 42.0);
  EXPECT_EQ(p.fields[2].type, FieldType::unsigned_);
  EXPECT_EQ(p.fields[2].number, 18446744073709551615.0);
  EXPECT_EQ(p.fields[3].type, FieldType::boolean);
  EXPECT_EQ(p.fields[3].number, 1.0);
  EXPECT_EQ(p.fields[4].type, FieldType::string);
  EXPECT_TRUE(p.fields[0].numeric() && p.fields[1].numeric() && p.fields[2].numeric());
  EXPECT_FALSE(p.fields[3].numeric() || p.fields[4].numeric());
  EXPECT_FALSE(p.timestamp.has_value());
}

TEST(LineProtocol, FloatsFollowTheGrammar) {
  EXPECT_EQ(number("1"), 1.0);
  EXPECT_EQ(number("-1.5"), -1.5);
  EXPECT_EQ(number(".5"), 0.5);
  EXPECT_EQ(number("1."), 1.0);
  EXPECT_EQ(number("1e3"), 1000.0);
  EXPECT_EQ(number("-1.25E-2"), -0.0125);
  EXPECT_EQ(number("1.e2"), 100.0);
  EXPECT_EQ(number("1e+2"), 100.0);
  EXPECT_EQ(number("-1.234456e+78"), -1.234456e+78);
  EXPECT_EQ(number("1e-400"), 0.0) << "too close to zero: zero";
  EXPECT_TRUE(std::signbit(number("-1e-400")));
  for (const char* bad : {"nan", "inf", "-inf", "+1", "1e", "1e+", "0x10", "1.2.3", "-", ".", "-.",
                          "1f", "e5", "1,5x", "1e400", "-1e400", "1_000"}) {
    Point p;
    LineSyntaxError error;
    EXPECT_EQ(parse_line("m f=" + std::string(bad), p, error), LineKind::error) << bad;
  }
  EXPECT_NE(syntax_error("m f=1e400").what.find("float64"), std::string_view::npos);
}

TEST(LineProtocol, IntegersAndUnsignedHaveTheirRanges) {
  EXPECT_EQ(number("-9223372036854775808i"), -9223372036854775808.0);
  EXPECT_EQ(number("9223372036854775807i"), 9223372036854775807.0);
  EXPECT_EQ(number("0u"), 0.0);
  EXPECT_NE(syntax_error("m f=9223372036854775808i").what.find("int64"), std::string_view::npos);
  EXPECT_NE(syntax_error("m f=18446744073709551616u").what.find("uint64"), std::string_view::npos);
  for (const char* bad : {"-1u", "1.5i", "i", "-i", "1ii", "+1i", "u", "1e3i", "12 i"}) {
    Point p;
    LineSyntaxError error;
    EXPECT_EQ(parse_line("m f=" + std::string(bad), p, error), LineKind::error) << bad;
  }
}

TEST(LineProtocol, BooleansTakeTheTenSpellings) {
  for (const char* t : {"t", "T", "true", "True", "TRUE"}) EXPECT_EQ(number(t), 1.0) << t;
  for (const char* f : {"f", "F", "false", "False", "FALSE"}) EXPECT_EQ(number(f), 0.0) << f;
  for (const char* bad : {"tru", "tRUE", "yes", "fals", "FALSe"}) {
    Point p;
    LineSyntaxError error;
    EXPECT_EQ(parse_line("m f=" + std::string(bad), p, error), LineKind::error) << bad;
  }
}

TEST(LineProtocol, EscapesInNamesFollowTheReference) {
  // Measurement: comma and space.
  EXPECT_EQ(parsed("my\\ Measurement f=1").measurement, "my Measurement");
  EXPECT_EQ(parsed("a\\,b f=1").measurement, "a,b");
  EXPECT_EQ(parsed("a=b f=1").measurement, "a=b") << "'=' needs no escape in a measurement";
  EXPECT_EQ(parsed("a\\=b f=1").measurement, "a\\=b") << "and '\\=' is kept there as written";
  // Tag keys and values, field keys: comma, equals sign, space.
  const Point p = parsed("m,tag\\ Key1=tag\\ Value1,k\\=x=v\\,w\\=z f\\ k\\,\\==1");
  ASSERT_EQ(p.tags.size(), 2u);
  EXPECT_EQ(p.tags[0].key, "tag Key1");
  EXPECT_EQ(p.tags[0].value, "tag Value1");
  EXPECT_EQ(p.tags[1].key, "k=x");
  EXPECT_EQ(p.tags[1].value, "v,w=z");
  EXPECT_EQ(p.fields[0].key, "f k,=");
  // A backslash before anything else is a backslash (the InfluxDB parsers' reading).
  EXPECT_EQ(parsed("C:\\temp f=1").measurement, "C:\\temp");
  EXPECT_EQ(parsed("a\\\\ b f=1").measurement, "a\\ b");
  EXPECT_EQ(parsed("m,path=x\\y f=1").tags[0].value, "x\\y");
}

TEST(LineProtocol, StringValuesUnescapeQuoteAndBackslash) {
  EXPECT_EQ(parsed(R"(m f="\"string\" within a string")").fields[0].text,
            "\"string\" within a string");
  EXPECT_EQ(parsed(R"(m f="back\\slash")").fields[0].text, "back\\slash");
  EXPECT_EQ(parsed(R"(m f="lone\slash")").fields[0].text, "lone\\slash");
  EXPECT_EQ(parsed(R"(m f="a, b=c d",g=1)").fields[0].text, "a, b=c d");
  EXPECT_EQ(parsed(R"(m f="")").fields[0].text, "");
  EXPECT_EQ(parsed(R"(m f="Launch 🚀" 1)").fields[0].text, "Launch 🚀");
  const Point p = parsed(R"(m f="x\\",g=2)");
  ASSERT_EQ(p.fields.size(), 2u) << "an escaped backslash does not escape the closing quote";
  EXPECT_EQ(p.fields[0].text, "x\\");
}

TEST(LineProtocol, TimestampsAreOptionalDecimalInt64) {
  EXPECT_EQ(*parsed("m f=1 -5").timestamp, -5);
  EXPECT_EQ(*parsed("m f=1 9223372036854775807").timestamp, 9223372036854775807);
  EXPECT_EQ(*parsed("m f=1   17   ").timestamp, 17) << "runs of spaces, trailing spaces";
  EXPECT_FALSE(parsed("m f=1   ").timestamp.has_value());
  EXPECT_NE(syntax_error("m f=1 9223372036854775808").what.find("int64"), std::string_view::npos);
  EXPECT_NE(syntax_error("m f=1 12a").what.find("decimal"), std::string_view::npos);
  EXPECT_NE(syntax_error("m f=1 1 2").what.find("after the timestamp"), std::string_view::npos);
  syntax_error("m f=1 +5");
  syntax_error("m f=1 1.5");
  syntax_error("m f=1 ,5");
}

TEST(LineProtocol, BlankLinesCommentsSpacesAndCarriageReturns) {
  Point p;
  LineSyntaxError error;
  for (const char* skip : {"", "   ", "\r", "# a comment", "   # indented, with = and ,"})
    EXPECT_EQ(parse_line(skip, p, error), LineKind::skip) << "'" << skip << "'";
  EXPECT_EQ(parsed("  m f=1 5\r").timestamp, 5) << "leading spaces and \\r\\n line ends";
  EXPECT_EQ(parsed("m   f=1").fields[0].number, 1.0);
}

TEST(LineProtocol, MalformedLinesSayWhereAndWhy) {
  struct Case {
    const char* line;
    std::size_t column;
    const char* what;
  };
  const Case cases[] = {
      {"cpu", 4, "without fields"},
      {"cpu ", 5, "without fields"},
      {"cpu,host=a", 11, "without fields"},
      {",host=a f=1", 1, "without a measurement"},
      {"cpu,=a f=1", 5, "tag without a key"},
      {"cpu,host= f=1", 10, "tag without a value"},
      {"cpu,host f=1", 9, "without '='"},
      {"cpu,host=a=b f=1", 11, "unescaped '='"},
      {"cpu, f=1", 5, "tag without a key"},
      {"cpu f", 6, "without '='"},
      {"cpu f=", 7, "field without a value"},
      {"cpu =1", 5, "field without a key"},
      {"cpu f=1,", 9, "field without a key"},
      {"cpu f=1,,g=2", 9, "field without a key"},
      {"cpu f=\"open", 12, "closing quote"},
      {"cpu f=\"x\"y", 10, "after a field value"},
      {"cpu f=abc", 7, "not a field value"},
      {"c\x01pu f=1", 2, "control character"},
      {"cpu f\x7f=1", 6, "control character"},
  };
  for (const Case& c : cases) {
    const LineSyntaxError e = syntax_error(c.line);
    EXPECT_EQ(e.column, c.column) << "'" << c.line << "': " << e.what;
    EXPECT_NE(e.what.find(c.what), std::string_view::npos) << "'" << c.line << "': " << e.what;
  }
}

TEST(LineProtocol, RepeatedKeysAreKeptAndTheLastOneFound) {
  const Point p = parsed("m,h=a,h=b f=1,f=2,g=3");
  EXPECT_EQ(p.tags.size(), 2u);
  EXPECT_EQ(p.find_tag("h")->value, "b");
  EXPECT_EQ(p.fields.size(), 3u);
  EXPECT_EQ(p.find_field("f")->number, 2.0);
  EXPECT_EQ(p.find_field("nope"), nullptr);
  EXPECT_EQ(p.find_tag("nope"), nullptr);
}

TEST(LineProtocol, APointIsReusedFromLineToLine) {
  Point p;
  LineSyntaxError error;
  ASSERT_EQ(parse_line("a,x=1,y=2 f=1,g=2,h=3 10", p, error), LineKind::point);
  ASSERT_EQ(parse_line("b g=\"s\"", p, error), LineKind::point);
  EXPECT_EQ(p.measurement, "b");
  EXPECT_TRUE(p.tags.empty());
  ASSERT_EQ(p.fields.size(), 1u);
  EXPECT_EQ(p.fields[0].text, "s");
  EXPECT_FALSE(p.timestamp.has_value()) << "nothing of the line before is left";
}

// The escaping of the reference, for writing random points.
std::string escaped(const std::string& s, std::string_view specials) {
  std::string out;
  for (const char c : s) {
    if (specials.find(c) != std::string_view::npos) out.push_back('\\');
    out.push_back(c);
  }
  return out;
}

TEST(LineProtocol, RandomPointsRoundTripThroughTheReferencesEscaping) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  // Names: letters, the characters to escape, and others that need none (no backslash:
  // the reference cannot write a name that ends in one).
  const std::string alphabet = "abcXYZ019_-.:/ ,=\"#'éü";
  const auto name = [&](bool first_not_hash) {
    std::string s;
    const std::size_t n = 1 + rng() % 8;
    while (s.size() < n) {
      const std::size_t k = rng() % alphabet.size();
      // é and ü are two bytes each: take both or none.
      if (static_cast<unsigned char>(alphabet[k]) >= 0x80) {
        const std::size_t lead = k - ((static_cast<unsigned char>(alphabet[k]) & 0xC0) == 0x80);
        s.append(alphabet, lead, 2);
        continue;
      }
      s.push_back(alphabet[k]);
    }
    if (first_not_hash && (s[0] == '#' || s[0] == ' ')) s[0] = 'm';
    return s;
  };
  for (int round = 0; round < 2000; ++round) {
    Point want;
    want.measurement = name(true);
    std::string line = escaped(want.measurement, ", ");
    for (std::size_t t = rng() % 4; t > 0; --t) {
      want.tags.push_back({name(false), name(false)});
      line +=
          "," + escaped(want.tags.back().key, ",= ") + "=" + escaped(want.tags.back().value, ",= ");
    }
    for (std::size_t f = 1 + rng() % 4; f > 0; --f) {
      LineField field;
      field.key = name(false);
      std::string value;
      switch (rng() % 4) {
        case 0:
          field.type = FieldType::float_;
          field.number = std::uniform_real_distribution<double>(-1e6, 1e6)(rng);
          value = std::to_string(field.number);
          field.number = std::stod(value);
          break;
        case 1:
          field.type = FieldType::integer;
          field.number = static_cast<double>(static_cast<std::int64_t>(rng()) >> 11);
          value = std::to_string(static_cast<std::int64_t>(field.number)) + "i";
          break;
        case 2:
          field.type = FieldType::boolean;
          field.number = static_cast<double>(rng() % 2);
          value = field.number == 1.0 ? "true" : "F";
          break;
        default:
          field.type = FieldType::string;
          field.text = name(false) + "\\" + name(false);
          value = "\"" + escaped(field.text, "\"\\") + "\"";
          break;
      }
      line += (want.fields.empty() ? " " : ",") + escaped(field.key, ",= ") + "=" + value;
      want.fields.push_back(field);
    }
    if (rng() % 2) {
      want.timestamp = static_cast<std::int64_t>(rng());
      line += " " + std::to_string(*want.timestamp);
    }
    const Point got = parsed(line);
    ASSERT_EQ(got.measurement, want.measurement) << line;
    ASSERT_EQ(got.tags.size(), want.tags.size()) << line;
    for (std::size_t i = 0; i < want.tags.size(); ++i) {
      ASSERT_EQ(got.tags[i].key, want.tags[i].key) << line;
      ASSERT_EQ(got.tags[i].value, want.tags[i].value) << line;
    }
    ASSERT_EQ(got.fields.size(), want.fields.size()) << line;
    for (std::size_t i = 0; i < want.fields.size(); ++i) {
      ASSERT_EQ(got.fields[i].key, want.fields[i].key) << line;
      ASSERT_EQ(got.fields[i].type, want.fields[i].type) << line;
      ASSERT_EQ(got.fields[i].number, want.fields[i].number) << line;
      ASSERT_EQ(got.fields[i].text, want.fields[i].text) << line;
    }
    ASSERT_EQ(got.timestamp, want.timestamp) << line;
  }
}

TEST(LineProtocol, RandomBytesNeverCrashAndPointsAreWellFormed) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  const std::string syntax = ",= \"\\#tfTFiu.-+eE0123456789\r\t\x01\x7f\xc3\xa9mxyz";
  const std::vector<std::string> seeds = {
      "cpu,host=a usage=0.5,n=3i 1700000000000000000", "m f=\"a \\\" b\",g=true -5",
      "a\\ b,c\\,d=e\\=f g\\ h=1u", "# comment", "m f=1e-3,g=.5 0"};
  Point p;
  LineSyntaxError error;
  std::size_t points = 0, errors = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string line;
    if (rng() % 2) {  // a mutated good line
      line = seeds[rng() % seeds.size()];
      for (std::size_t m = 1 + rng() % 3; m > 0 && !line.empty(); --m) {
        const std::size_t at = rng() % line.size();
        switch (rng() % 3) {
          case 0:
            line[at] = syntax[rng() % syntax.size()];
            break;
          case 1:
            line.erase(at, 1 + rng() % 3);
            break;
          default:
            line.insert(at, 1, syntax[rng() % syntax.size()]);
        }
      }
    } else {  // noise
      for (std::size_t n = rng() % 40; n > 0; --n) line.push_back(syntax[rng() % syntax.size()]);
    }
    const LineKind kind = parse_line(line, p, error);
    if (kind == LineKind::point) {
      ++points;
      ASSERT_FALSE(p.measurement.empty()) << line;
      ASSERT_FALSE(p.fields.empty()) << line;
      for (const LineField& f : p.fields) {
        ASSERT_FALSE(f.key.empty()) << line;
        ASSERT_TRUE(std::isfinite(f.number)) << line;
      }
      for (const LineTag& t : p.tags) ASSERT_FALSE(t.key.empty() || t.value.empty()) << line;
    } else if (kind == LineKind::error) {
      ++errors;
      ASSERT_GE(error.column, 1u) << line;
      ASSERT_LE(error.column, line.size() + 1) << line;
      ASSERT_FALSE(error.what.empty()) << line;
    }
  }
  EXPECT_GT(points, 100u) << "the mutations left some lines whole";
  EXPECT_GT(errors, 1000u);
}

}  // namespace
