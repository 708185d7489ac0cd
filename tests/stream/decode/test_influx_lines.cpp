// Line protocol to samples without sockets (stream/influx_mapping.hpp, influx_lines.hpp):
// the stream id template and the mapping's checks, precisions, every rejection of the
// mapper, the framer's lines across reads and its length limit, and the decoder that hands
// samples and counted rejections to a real registry and hub.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "warpwatch/stream/decode/influx_lines.hpp"
#include "warpwatch/stream/ingest_hub.hpp"
#include "warpwatch/stream/registry.hpp"
#include "warpwatch/stream/sources/influx_mapping.hpp"

namespace {

using namespace warpwatch::stream;

InfluxMapping mapping(std::string stream_template, std::vector<std::string> fields = {},
                      Precision precision = Precision::ns) {
  return InfluxMapping(
      InfluxMappingOptions{std::move(stream_template), std::move(fields), precision});
}

// What PointMapper made of the lines given to it.
struct Collected final : PointSink {
  struct Sample {
    std::string stream;
    std::int64_t time_ns;
    std::vector<float> values;
  };
  struct Rejected {
    LineReject reason;
    std::string stream, subject;
  };
  std::vector<Sample> samples;
  std::vector<Rejected> rejected;
  int ignored = 0;

  void sample(std::string_view stream, std::int64_t time_ns,
              std::span<const float> values) override {
    samples.push_back({std::string(stream), time_ns, {values.begin(), values.end()}});
  }
  void reject(LineReject reason, std::string_view stream, std::string_view subject) override {
    rejected.push_back({reason, std::string(stream), std::string(subject)});
  }
  void ignored_field() override { ++ignored; }
};

Collected mapped(InfluxMapping m, const std::vector<std::string>& lines,
                 std::int64_t receive_ns = 7) {
  PointMapper mapper(std::move(m));
  Collected out;
  Point p;
  LineSyntaxError error;
  for (const std::string& line : lines) {
    EXPECT_EQ(parse_line(line, p, error), LineKind::point) << line << ": " << error.what;
    mapper.map(p, receive_ns, out);
  }
  return out;
}

TEST(InfluxMapping, TemplatesAreCheckedWhenMade) {
  EXPECT_TRUE(StreamIdTemplate("{measurement}.{field}").per_field());
  EXPECT_FALSE(StreamIdTemplate("plant/{tag:host}/{measurement}").per_field());
  EXPECT_FALSE(StreamIdTemplate("fixed-id").per_field());
  for (const char* bad :
       {"", "{foo}", "{tag:}", "{measurement", "a}b", "a b", "{Field}", "x\ty", "{tag:{x}"}) {
    EXPECT_THROW(StreamIdTemplate{bad}, std::invalid_argument) << "'" << bad << "'";
  }
  try {
    StreamIdTemplate("{host}");
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown placeholder '{host}'"), std::string::npos)
        << e.what();
  }
}

TEST(InfluxMapping, FieldsAreCheckedAgainstTheTemplate) {
  EXPECT_THROW(mapping("{measurement}"), std::invalid_argument) << "no {field} needs fields";
  EXPECT_THROW(mapping("{measurement}", {"a", "b", "a"}), std::invalid_argument);
  EXPECT_THROW(mapping("{measurement}.{field}", {""}), std::invalid_argument);
  EXPECT_THROW(mapping("{measurement}", std::vector<std::string>(65, "x")), std::invalid_argument);
  std::vector<std::string> sixty_four;
  for (int i = 0; i < 64; ++i) sixty_four.push_back(std::to_string(i) + "f");
  EXPECT_EQ(mapping("{measurement}", sixty_four).dims(), 64u);
  EXPECT_EQ(mapping("{measurement}.{field}", {"a", "b"}).dims(), 1u);
}

TEST(InfluxMapping, PrecisionsScaleToNanoseconds) {
  EXPECT_EQ(to_nanoseconds(5, Precision::ns), 5);
  EXPECT_EQ(to_nanoseconds(5, Precision::us), 5'000);
  EXPECT_EQ(to_nanoseconds(5, Precision::ms), 5'000'000);
  EXPECT_EQ(to_nanoseconds(-5, Precision::s), -5'000'000'000);
  EXPECT_EQ(to_nanoseconds(9'223'372'036, Precision::s), 9'223'372'036'000'000'000);
  EXPECT_FALSE(to_nanoseconds(9'223'372'037, Precision::s).has_value());
  EXPECT_FALSE(to_nanoseconds(std::numeric_limits<std::int64_t>::min(), Precision::us));
  for (const Precision p : {Precision::ns, Precision::us, Precision::ms, Precision::s})
    EXPECT_EQ(parse_precision(to_string(p)), p);
  EXPECT_FALSE(parse_precision("h").has_value());
}

TEST(InfluxMapping, PerFieldStreamsFromMeasurementTagsAndField) {
  const Collected c = mapped(mapping("{measurement}.{tag:host}.{field}"),
                             {"cpu,host=a,cpu=0 user=1.5,system=2i,idle=3u 1000",
                              "cpu,host=b user=4,name=\"x\",up=true 2000"});
  ASSERT_EQ(c.samples.size(), 4u);
  EXPECT_EQ(c.samples[0].stream, "cpu.a.user");
  EXPECT_EQ(c.samples[0].time_ns, 1000);
  EXPECT_EQ(c.samples[0].values, std::vector<float>{1.5f});
  EXPECT_EQ(c.samples[1].stream, "cpu.a.system");
  EXPECT_EQ(c.samples[1].values, std::vector<float>{2.0f});
  EXPECT_EQ(c.samples[2].stream, "cpu.a.idle");
  EXPECT_EQ(c.samples[3].stream, "cpu.b.user");
  EXPECT_EQ(c.samples[3].time_ns, 2000);
  EXPECT_EQ(c.ignored, 2) << "the string and the boolean are skipped, and counted";
  EXPECT_TRUE(c.rejected.empty());
}

TEST(InfluxMapping, PerFieldTakesOnlyTheConfiguredFields) {
  const Collected c = mapped(
      mapping("{measurement}.{field}", {"temp"}),
      {"env temp=20.5,hum=40 1", "env hum=41 2", "env temp=\"hot\" 3", "env temp=1,temp=2 4"});
  ASSERT_EQ(c.samples.size(), 2u);
  EXPECT_EQ(c.samples[0].stream, "env.temp");
  EXPECT_EQ(c.samples[0].values, std::vector<float>{20.5f});
  EXPECT_EQ(c.samples[1].values, std::vector<float>{2.0f}) << "a repeated field: its last value";
  ASSERT_EQ(c.rejected.size(), 2u);
  EXPECT_EQ(c.rejected[0].reason, LineReject::missing_field) << "none of the configured fields";
  EXPECT_EQ(c.rejected[1].reason, LineReject::non_numeric_field);
}

TEST(InfluxMapping, FixedFieldsMakeOneSampleOfEveryLine) {
  const Collected c = mapped(mapping("{tag:site}/{measurement}", {"x", "y", "z"}),
                             {"accel,site=s1 z=3,x=1,y=2i,extra=\"e\" 10",
                              "accel,site=s1 x=1,y=2 20", "accel,site=s1 x=1,y=\"two\",z=3 30",
                              "accel,site=s1 x=1,y=true,z=3 40", "accel,site=s1 x=1e39,y=2,z=3 50",
                              "accel x=1,y=2,z=3 60", "accel,site=s1 x=-1,y=-2,z=-3 70"});
  ASSERT_EQ(c.samples.size(), 2u);
  EXPECT_EQ(c.samples[0].stream, "s1/accel");
  EXPECT_EQ(c.samples[0].values, (std::vector<float>{1, 2, 3})) << "in the configured order";
  EXPECT_EQ(c.samples[1].values, (std::vector<float>{-1, -2, -3}));
  EXPECT_EQ(c.samples[1].time_ns, 70);
  ASSERT_EQ(c.rejected.size(), 5u);
  EXPECT_EQ(c.rejected[0].reason, LineReject::missing_field);
  EXPECT_EQ(c.rejected[0].subject, "z");
  EXPECT_EQ(c.rejected[0].stream, "s1/accel") << "counted for the stream it was for";
  EXPECT_EQ(c.rejected[1].reason, LineReject::non_numeric_field);
  EXPECT_EQ(c.rejected[1].subject, "y");
  EXPECT_EQ(c.rejected[2].reason, LineReject::non_numeric_field);
  EXPECT_EQ(c.rejected[3].reason, LineReject::value_out_of_range);
  EXPECT_EQ(c.rejected[3].subject, "x");
  EXPECT_EQ(c.rejected[4].reason, LineReject::missing_tag);
  EXPECT_EQ(c.rejected[4].subject, "site");
}

TEST(InfluxMapping, PerFieldRejectsOnlyTheFieldBeyondFloat32) {
  const Collected c = mapped(mapping("{measurement}.{field}"), {"m a=1e39,b=2 5", "m a=-3.4e38 6"});
  ASSERT_EQ(c.samples.size(), 2u);
  EXPECT_EQ(c.samples[0].stream, "m.b");
  EXPECT_EQ(c.samples[1].values, std::vector<float>{-3.4e38f});
  ASSERT_EQ(c.rejected.size(), 1u);
  EXPECT_EQ(c.rejected[0].reason, LineReject::value_out_of_range);
  EXPECT_EQ(c.rejected[0].stream, "m.a");
}

TEST(InfluxMapping, AMissingTagRejectsTheLineOnceAndABadIdPerField) {
  const std::string long_key(260, 'k');
  const Collected c = mapped(mapping("{measurement}.{tag:host}.{field}"),
                             {"m a=1,b=2,c=3 1", "m,host=h a=1," + long_key + "=2 2"});
  ASSERT_EQ(c.samples.size(), 1u);
  EXPECT_EQ(c.samples[0].stream, "m.h.a");
  ASSERT_EQ(c.rejected.size(), 2u);
  EXPECT_EQ(c.rejected[0].reason, LineReject::missing_tag);
  EXPECT_EQ(c.rejected[1].reason, LineReject::invalid_stream_id) << "over 255 bytes";
}

TEST(InfluxMapping, TimestampsTakeThePrecisionOrTheReceiveTime) {
  Collected c = mapped(mapping("{measurement}.{field}", {}, Precision::s), {"m v=1 1700000000"});
  ASSERT_EQ(c.samples.size(), 1u);
  EXPECT_EQ(c.samples[0].time_ns, 1'700'000'000'000'000'000);
  c = mapped(mapping("{measurement}.{field}", {}, Precision::ms), {"m v=1 1700000000123", "m v=1"},
             99);
  ASSERT_EQ(c.samples.size(), 2u);
  EXPECT_EQ(c.samples[0].time_ns, 1'700'000'000'123'000'000);
  EXPECT_EQ(c.samples[1].time_ns, 99) << "no timestamp: the receive time";
  c = mapped(mapping("{measurement}.{field}", {}, Precision::s), {"m v=1 9300000000"});
  EXPECT_TRUE(c.samples.empty());
  ASSERT_EQ(c.rejected.size(), 1u);
  EXPECT_EQ(c.rejected[0].reason, LineReject::timestamp_range);
}

TEST(InfluxMapping, StringsAndBooleansOnlyAreRejectedWhole) {
  const Collected c = mapped(mapping("{measurement}.{field}"), {"m a=\"x\",b=t"});
  EXPECT_TRUE(c.samples.empty());
  EXPECT_EQ(c.ignored, 2);
  ASSERT_EQ(c.rejected.size(), 1u);
  EXPECT_EQ(c.rejected[0].reason, LineReject::non_numeric_field) << "not lost silently";
}

// The framer's lines, as strings, and how many were too long.
struct Framed {
  std::vector<std::string> lines;
  int too_long = 0;
};

Framed frame_in_pieces(const std::string& text, const std::vector<std::size_t>& cuts,
                       std::size_t max_line_bytes, bool finish) {
  LineFramer framer(max_line_bytes);
  Framed out;
  std::size_t from = 0;
  const auto on_line = [&](std::string_view l) { out.lines.emplace_back(l); };
  const auto on_too_long = [&] { ++out.too_long; };
  for (std::size_t cut : cuts) {
    framer.feed(std::string_view(text).substr(from, cut - from), on_line, on_too_long);
    from = cut;
  }
  framer.feed(std::string_view(text).substr(from), on_line, on_too_long);
  if (finish) framer.finish(on_line);
  return out;
}

TEST(LineFramer, LinesCutAnywhereComeOutWhole) {
  const std::string text = "cpu a=1 1\nmem b=2 2\n\nnet c=3 3\n";
  const std::vector<std::string> want = {"cpu a=1 1", "mem b=2 2", "", "net c=3 3"};
  for (std::size_t a = 0; a <= text.size(); ++a)
    for (std::size_t b = a; b <= text.size(); ++b) {
      const Framed f = frame_in_pieces(text, {a, b}, 64, false);
      ASSERT_EQ(f.lines, want) << "cut at " << a << " and " << b;
      ASSERT_EQ(f.too_long, 0);
    }
  std::vector<std::size_t> every_byte;
  for (std::size_t i = 1; i < text.size(); ++i) every_byte.push_back(i);
  EXPECT_EQ(frame_in_pieces(text, every_byte, 64, false).lines, want);
}

TEST(LineFramer, TheLastLineNeedsNoNewlineOnlyAtTheEnd) {
  EXPECT_EQ(frame_in_pieces("a f=1\nb f=2", {}, 64, false).lines, std::vector<std::string>{"a f=1"})
      << "without the end of the input the rest waits";
  EXPECT_EQ(frame_in_pieces("a f=1\nb f=2", {7}, 64, true).lines,
            (std::vector<std::string>{"a f=1", "b f=2"}));
  LineFramer framer(64);
  framer.feed(
      "part", [](std::string_view) {}, [] {});
  EXPECT_TRUE(framer.holds_partial_line());
  framer.discard();
  EXPECT_FALSE(framer.holds_partial_line());
}

TEST(LineFramer, LinesOverTheLimitAreCountedOnceAndSkipped) {
  const std::string ok(10, 'x'), over(11, 'y');
  const std::string text = ok + "\n" + over + "\n" + ok + "\n" + std::string(100, 'z') + "\nend\n";
  for (std::size_t a = 0; a <= text.size(); a += 3) {
    const Framed f = frame_in_pieces(text, {a}, 10, true);
    ASSERT_EQ(f.lines, (std::vector<std::string>{ok, ok, "end"})) << "cut at " << a;
    ASSERT_EQ(f.too_long, 2) << "cut at " << a;
  }
  const Framed unfinished = frame_in_pieces(std::string(50, 'q'), {20, 40}, 10, true);
  EXPECT_TRUE(unfinished.lines.empty());
  EXPECT_EQ(unfinished.too_long, 1) << "an unterminated long line is counted once too";
}

// A registry and hub for the decoder, with the log lines the registry would write.
struct DecoderFixture {
  explicit DecoderFixture(InfluxMapping m, std::vector<StreamDef> declared = {},
                          RegistryOptions options = {true, 10000, 1, 1'000'000'000,
                                                     std::chrono::seconds(10), 0.0, 0.0})
      : registry(declared, options,
                 [this](std::string_view stream, RejectReason reason, std::string_view detail) {
                   log.push_back(std::string(stream) + "|" + std::string(to_string(reason)) + "|" +
                                 std::string(detail));
                 }),
        hub(registry, QueueLimits{}),
        decoder(std::move(m), hub, hub.add_source("influx test", Overflow::wait), counters,
                "influx tcp://test") {}

  std::map<std::string, Samples> take() {
    std::map<std::string, Samples> out;
    for (QueuedSamples& q : hub.take_all().streams) {
      Samples& s = out[q.stream->id];
      s.dims = q.stream->dims;
      s.times_ns = q.times_ns;
      s.values = q.values;
    }
    return out;
  }

  std::vector<std::string> log;
  StreamRegistry registry;
  IngestHub hub;
  InfluxCounters counters;
  InfluxLineDecoder decoder;
};

TEST(InfluxLineDecoder, SamplesReachTheHubGroupedPerStreamInOrder) {
  DecoderFixture f(mapping("{measurement}.{field}"));
  f.decoder.received_at(5);
  std::uint64_t n = 0;
  for (const char* line :
       {"cpu user=1 10", "mem used=7i 10", "cpu user=2 20", "# comment", "", "cpu user=3 30"})
    f.decoder.line(line, "127.0.0.1:5000", ++n);
  EXPECT_TRUE(f.take().empty()) << "nothing before the flush";
  f.decoder.flush();
  const auto got = f.take();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got.at("cpu.user").times_ns, (std::vector<std::int64_t>{10, 20, 30}));
  EXPECT_EQ(got.at("cpu.user").values, (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(got.at("mem.used").values, std::vector<float>{7});
  EXPECT_EQ(f.counters.lines.load(), 4u) << "blank lines and comments are not lines";
  EXPECT_EQ(f.counters.samples.load(), 4u);
  EXPECT_EQ(f.registry.snapshot().accepted_samples, 4u);
}

TEST(InfluxLineDecoder, BadLinesAreCountedPerReasonAndTheRestKept) {
  DecoderFixture f(
      mapping("{measurement}", {"x", "y"}), {},
      RegistryOptions{true, 10000, 2, 1'000'000'000, std::chrono::seconds(10), 0.0, 0.0});
  f.decoder.received_at(5);
  const std::vector<std::string> lines = {"acc x=1,y=2 1",     "acc x=1 2",     "garbage",
                                          "acc x=1,y=\"s\" 3", "acc x=3,y=4 4", "also garbage",
                                          "acc x=1e39,y=1 5",  "acc x=5,y=6 6"};
  std::uint64_t n = 0;
  for (const std::string& line : lines) f.decoder.line(line, "10.0.0.1:99", ++n);
  f.decoder.reject_line(LineReject::line_too_long, "10.0.0.1:99", ++n, "a line longer than max");
  f.decoder.flush();
  const auto got = f.take();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got.at("acc").times_ns, (std::vector<std::int64_t>{1, 4, 6}));
  EXPECT_EQ(got.at("acc").values, (std::vector<float>{1, 2, 3, 4, 5, 6}));

  const auto rejected = [&](LineReject r) {
    return f.counters.rejected[static_cast<std::size_t>(r)].load();
  };
  EXPECT_EQ(rejected(LineReject::syntax), 2u);
  EXPECT_EQ(rejected(LineReject::missing_field), 1u);
  EXPECT_EQ(rejected(LineReject::non_numeric_field), 1u);
  EXPECT_EQ(rejected(LineReject::value_out_of_range), 1u);
  EXPECT_EQ(rejected(LineReject::line_too_long), 1u);
  EXPECT_EQ(f.counters.lines.load(), 9u);

  // The same rejections in the ingest-wide counters, under their registry reasons.
  const RegistrySnapshot snap = f.registry.snapshot();
  EXPECT_EQ(snap.rejected[RejectReason::malformed_frame], 2u);  // syntax x2
  EXPECT_EQ(snap.rejected[RejectReason::non_numeric_field], 1u);
  EXPECT_EQ(snap.rejected[RejectReason::value_out_of_range], 1u);
  EXPECT_EQ(snap.rejected[RejectReason::line_too_long], 1u);
  EXPECT_EQ(snap.rejected[RejectReason::missing_field], 1u);
  EXPECT_EQ(snap.rejected[RejectReason::wrong_dims], 0u);
  ASSERT_EQ(snap.streams.size(), 1u);
  EXPECT_EQ(snap.streams[0].rejected[RejectReason::missing_field], 1u) << "counted for 'acc'";

  // One log line per (stream, reason), naming the source, the sender, the line, the reason.
  bool syntax_logged = false;
  for (const std::string& l : f.log)
    if (l.find("malformed_frame|influx tcp://test: from 10.0.0.1:99, line 3, measurement "
               "'garbage': ") == 1 &&
        l.find("'garbage'") != std::string::npos &&
        l.find("2 in this message") != std::string::npos)
      syntax_logged = true;
  EXPECT_TRUE(syntax_logged) << "log: " << ::testing::PrintToString(f.log);
  bool missing_logged = false;
  for (const std::string& l : f.log)
    if (l.starts_with("acc|missing_field|") && l.find("line 2: no field 'y'") != std::string::npos)
      missing_logged = true;
  EXPECT_TRUE(missing_logged) << "log: " << ::testing::PrintToString(f.log);
}

TEST(InfluxLineDecoder, LinesWithoutAStreamIdAreNamedByMeasurementOrSenderEachLogged) {
  DecoderFixture f(mapping("{measurement}.{tag:host}", {"x"}));
  f.decoder.received_at(5);
  f.decoder.line("cpu,host=a x=oops 1", "10.0.0.1:99", 1);  // syntax: the measurement is read
  f.decoder.line(",host=a x=1 2", "10.0.0.2:99", 7);        // no measurement: the sender only
  f.decoder.line("cpu x=1 3", "10.0.0.3:99", 2);            // no tag host
  f.decoder.flush();
  ASSERT_EQ(f.log.size(), 3u) << ::testing::PrintToString(f.log);
  EXPECT_EQ(f.log[0].rfind("|malformed_frame|influx tcp://test: from 10.0.0.1:99, line 1, "
                           "measurement 'cpu': ",
                           0),
            0u)
      << f.log[0];
  EXPECT_EQ(f.log[1].rfind("|malformed_frame|influx tcp://test: from 10.0.0.2:99, line 7: ", 0), 0u)
      << "another sender: logged too; " << f.log[1];
  EXPECT_EQ(f.log[2],
            "|missing_tag|influx tcp://test: from 10.0.0.3:99, line 2, measurement "
            "'cpu': no tag 'host' for the stream id template in 'cpu x=1 3'");
  const RegistrySnapshot snap = f.registry.snapshot();
  EXPECT_EQ(snap.rejected[RejectReason::malformed_frame], 2u);
  EXPECT_EQ(snap.rejected[RejectReason::missing_tag], 1u);
  EXPECT_EQ(snap.rejected[RejectReason::missing_tag],
            f.counters.rejected[static_cast<std::size_t>(LineReject::missing_tag)].load())
      << "the ingest-wide counter and the source's say the same";
}

TEST(InfluxLineDecoder, LinesWithoutTimestampsGetStrictlyIncreasingReceiveTimes) {
  DecoderFixture f(mapping("{measurement}.{field}"));
  f.decoder.received_at(1000);
  f.decoder.line("m v=1", "p", 1);
  f.decoder.line("m v=2", "p", 2);
  f.decoder.received_at(1000);  // a clock that did not move
  f.decoder.line("m v=3", "p", 3);
  f.decoder.received_at(5000);
  f.decoder.line("m v=4", "p", 4);
  f.decoder.flush();
  const auto got = f.take();
  EXPECT_EQ(got.at("m.v").times_ns, (std::vector<std::int64_t>{1000, 1001, 1002, 5000}));
  EXPECT_EQ(f.registry.snapshot().rejected.total(), 0u) << "none dropped as non-increasing";
}

TEST(InfluxLineDecoder, StreamsOfTheWrongDimsAreRefusedByTheRegistry) {
  // Declared with 2 values, mapped with 3: admission refuses them, counted there.
  DecoderFixture f(
      mapping("{measurement}", {"a", "b", "c"}), {{"m", 2, 10}},
      RegistryOptions{false, 10000, 1, 1'000'000'000, std::chrono::seconds(10), 0.0, 0.0});
  f.decoder.line("m a=1,b=2,c=3 1", "p", 1);
  f.decoder.line("unknown a=1,b=2,c=3 1", "p", 2);
  f.decoder.flush();
  EXPECT_TRUE(f.take().empty());
  const RegistrySnapshot snap = f.registry.snapshot();
  EXPECT_EQ(snap.rejected[RejectReason::wrong_dims], 1u);
  EXPECT_EQ(snap.rejected[RejectReason::unknown_stream], 1u);
}

TEST(InfluxLineDecoder, RandomTrafficNeverCrashesAndEveryLineIsAccountedFor) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  DecoderFixture f(mapping("{measurement}.{tag:h}.{field}", {}, Precision::ms));
  const std::vector<std::string> good = {"cpu,h=a u=1", "cpu,h=b u=2i,s=\"x\"", "mem,h=a f=1e3 5",
                                         "cpu u=1", "m,h=c a=t"};
  const std::string noise = ",= \"\\#tfiu.-e019\x01";
  std::uint64_t n = 0;
  for (int round = 0; round < 5000; ++round) {
    std::string line = good[rng() % good.size()];
    if (rng() % 2) line[rng() % line.size()] = noise[rng() % noise.size()];
    f.decoder.received_at(static_cast<std::int64_t>(round) * 1000);
    f.decoder.line(line, "p", ++n);
    if (rng() % 16 == 0) f.decoder.flush();
  }
  f.decoder.flush();
  std::uint64_t rejected = 0;
  for (const auto& r : f.counters.rejected) rejected += r.load();
  // Per-field mode: a line is samples, rejections, or only ignored fields (then rejected).
  EXPECT_GT(f.counters.samples.load(), 0u);
  EXPECT_GT(rejected, 0u);
  EXPECT_LE(f.counters.lines.load(), n);
  EXPECT_EQ(f.registry.snapshot().accepted_samples +
                f.registry.snapshot().rejected[RejectReason::non_increasing_timestamp],
            f.counters.samples.load())
      << "every sample offered is accepted or dropped for its order";
}

}  // namespace
