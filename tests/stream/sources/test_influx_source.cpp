// The line protocol source (stream/influx_source.hpp) over real loopback sockets, written to
// as Telegraf's socket_writer writes: '\n'-terminated lines, many to a write or one cut over
// several. Samples and their order, counters, several connections, the limits, pause and
// a full queue on TCP (reading stops, the sender is pushed back, nothing is lost), and UDP
// (datagrams of lines; drops counted when the queue is full).
#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/udp.hpp>
#include <boost/asio/write.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <iostream>
#include <map>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "ingest_support.hpp"
#include "warpwatch/stream/ingest_hub.hpp"
#include "warpwatch/stream/registry.hpp"
#include "warpwatch/stream/sources/influx_source.hpp"

namespace {

using namespace warpwatch::stream;
using namespace std::chrono_literals;
namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using udp = asio::ip::udp;

const auto loopback = asio::ip::make_address("127.0.0.1");

RegistryOptions auto_create(std::size_t dims = 1) {
  return {true, 10000, dims, 1'000'000'000, std::chrono::seconds(10)};
}

InfluxSourceOptions options(std::string address,
                            std::string stream_template = "{measurement}.{tag:host}.{field}",
                            std::vector<std::string> fields = {}) {
  InfluxSourceOptions o;
  o.address = std::move(address);
  o.mapping = {std::move(stream_template), std::move(fields), Precision::ns};
  return o;
}

// A Telegraf-like sender: one TCP connection, TCP_NODELAY so that each write leaves at once.
struct Sender {
  explicit Sender(unsigned short port) : socket(io) {
    socket.connect({loopback, port});
    socket.set_option(tcp::no_delay(true));
  }
  void write(std::string_view data) { asio::write(socket, asio::buffer(data)); }
  asio::io_context io;
  tcp::socket socket;
};

// Everything the hub delivers until `want` samples came (or 5 s passed), per stream.
std::map<std::string, Samples> collect(IngestHub& hub, std::size_t want,
                                       std::chrono::milliseconds limit = 5s) {
  std::map<std::string, Samples> out;
  warpwatch::testing::take_until(
      hub, want,
      [&](IngestBatch b) {
        for (const QueuedSamples& q : b.streams) {
          Samples& s = out[q.stream->id];
          s.dims = q.stream->dims;
          s.times_ns.insert(s.times_ns.end(), q.times_ns.begin(), q.times_ns.end());
          s.values.insert(s.values.end(), q.values.begin(), q.values.end());
        }
      },
      limit);
  return out;
}

std::size_t total(const std::map<std::string, Samples>& m) {
  std::size_t n = 0;
  for (const auto& [id, s] : m) n += s.size();
  return n;
}

// Waits (bounded: 5 s) until `done` holds.
template <typename Done>
bool eventually(Done&& done) {
  for (const auto deadline = std::chrono::steady_clock::now() + 5s;
       std::chrono::steady_clock::now() < deadline; std::this_thread::sleep_for(5ms))
    if (done()) return true;
  return done();
}

std::uint64_t rejected(const InfluxSource& s, LineReject reason) {
  return s.stats().rejected[static_cast<std::size_t>(reason)];
}

struct InfluxTcp : ::testing::Test {
  StreamRegistry registry{{}, auto_create()};
  IngestHub hub{registry, QueueLimits{}};
};

TEST_F(InfluxTcp, LinesAsTelegrafWritesThemBecomeSamplesInOrder) {
  InfluxSource source(options("tcp://127.0.0.1:0"), hub);
  ASSERT_GT(source.port(), 0);
  EXPECT_EQ(source.endpoint(), "tcp://127.0.0.1:" + std::to_string(source.port()));
  EXPECT_EQ(source.describe(), "influx " + source.endpoint());
  source.start();
  Sender telegraf(source.port());
  // A batch: many lines in one write.
  std::string batch;
  for (int i = 0; i < 50; ++i)
    batch += "cpu,host=a usage_user=" + std::to_string(i) +
             ",usage_idle=" + std::to_string(100 - i) + "i " + std::to_string(1'000 + i) + "\n";
  telegraf.write(batch);
  // One line cut over three writes, and a write that ends one line and starts the next.
  const std::vector<std::string> pieces = {"cpu,host=b usage_us", "er=7.5 2000",
                                           "\ncpu,host=b usage_user=8.5 20", "01\n"};
  std::size_t bytes = batch.size();
  for (const std::string& piece : pieces) {
    telegraf.write(piece);
    bytes += piece.size();
    std::this_thread::sleep_for(20ms);  // each its own read
  }
  const auto got = collect(hub, 102);
  ASSERT_EQ(total(got), 102u);
  const Samples& user = got.at("cpu.a.usage_user");
  ASSERT_EQ(user.size(), 50u);
  for (std::size_t i = 0; i < 50; ++i) {
    EXPECT_EQ(user.times_ns[i], 1000 + static_cast<std::int64_t>(i));
    EXPECT_EQ(user.values[i], static_cast<float>(i));
  }
  EXPECT_EQ(got.at("cpu.a.usage_idle").values.back(), 51.0f);
  EXPECT_EQ(got.at("cpu.b.usage_user").times_ns, (std::vector<std::int64_t>{2000, 2001}));
  EXPECT_EQ(got.at("cpu.b.usage_user").values, (std::vector<float>{7.5f, 8.5f}));
  const InfluxStats stats = source.stats();
  EXPECT_EQ(stats.lines, 52u);
  EXPECT_EQ(stats.samples, 102u);
  EXPECT_EQ(stats.bytes, bytes);
  EXPECT_EQ(stats.connections, 1u);
  EXPECT_EQ(stats.connections_open, 1u);
  EXPECT_TRUE(eventually([&] { return registry.snapshot().accepted_samples == 102; }));
}

TEST_F(InfluxTcp, MalformedLinesAreCountedAndTheRestOfTheBatchKept) {
  InfluxSource source(options("tcp://127.0.0.1:0", "{measurement}", {"x"}), hub);
  source.start();
  Sender s(source.port());
  s.write(
      "m x=1 1\nnot line protocol\nm y=2 2\nm x=\"s\" 3\nm x=4 4\nm x=5 9999999999999999999\n"
      "m x=6 6\n");
  const auto got = collect(hub, 3);
  ASSERT_EQ(total(got), 3u);
  EXPECT_EQ(got.at("m").values, (std::vector<float>{1, 4, 6}));
  ASSERT_TRUE(eventually([&] { return source.stats().lines == 7; }));
  EXPECT_EQ(rejected(source, LineReject::syntax), 2u) << "the text, and the int64 overflow";
  EXPECT_EQ(rejected(source, LineReject::missing_field), 1u);
  EXPECT_EQ(rejected(source, LineReject::non_numeric_field), 1u);
  // The registry's counts follow the read's samples (the rejections are handed over last).
  ASSERT_TRUE(eventually([&] { return registry.snapshot().rejected.total() == 4; }));
  const RegistrySnapshot snap = registry.snapshot();
  EXPECT_EQ(snap.rejected[RejectReason::malformed_frame], 2u);
  EXPECT_EQ(snap.rejected[RejectReason::non_numeric_field], 1u);
  EXPECT_EQ(snap.rejected[RejectReason::missing_field], 1u);
}

TEST_F(InfluxTcp, SeveralConnectionsAtOnce) {
  InfluxSource source(options("tcp://127.0.0.1:0"), hub);
  source.start();
  constexpr int connections = 8, lines = 300;
  std::vector<std::thread> senders;
  for (int c = 0; c < connections; ++c)
    senders.emplace_back([&, c] {
      Sender s(source.port());
      std::string chunk;
      for (int i = 0; i < lines; ++i) {
        chunk += "disk,host=h" + std::to_string(c) + " used=" + std::to_string(i) + " " +
                 std::to_string(1 + i) + "\n";
        if (chunk.size() > 700) {  // writes that end anywhere in a line
          s.write(std::string_view(chunk).substr(0, 333));
          chunk.erase(0, 333);
        }
      }
      s.write(chunk);
    });
  for (auto& t : senders) t.join();
  const auto got = collect(hub, connections * lines);
  ASSERT_EQ(got.size(), static_cast<std::size_t>(connections));
  for (int c = 0; c < connections; ++c) {
    const Samples& s = got.at("disk.h" + std::to_string(c) + ".used");
    ASSERT_EQ(s.size(), static_cast<std::size_t>(lines));
    for (int i = 0; i < lines; ++i)
      ASSERT_EQ(s.values[static_cast<std::size_t>(i)], static_cast<float>(i));
  }
  EXPECT_TRUE(eventually([&] { return source.stats().connections == connections; }));
  EXPECT_TRUE(eventually([&] { return source.stats().connections_open == 0; }))
      << "the senders closed";
}

TEST_F(InfluxTcp, TheLastLineAtEndOfInputCountsAndACutOneAtStopIsIncomplete) {
  InfluxSource source(options("tcp://127.0.0.1:0"), hub);
  source.start();
  const std::string closed = "m,host=a v=1 1\nm,host=a v=2 2", cut = "m,host=b v=3 3";
  {
    Sender closes(source.port());
    closes.write(closed);  // no '\n': the close ends the line
  }
  EXPECT_EQ(total(collect(hub, 2)), 2u);
  Sender stays(source.port());
  stays.write(cut);
  ASSERT_TRUE(eventually([&] { return source.stats().bytes == closed.size() + cut.size(); }));
  source.stop();
  EXPECT_EQ(rejected(source, LineReject::incomplete_line), 1u);
  EXPECT_EQ(hub.take_all().samples, 0u);
  EXPECT_EQ(source.stats().connections_open, 0u);
}

TEST_F(InfluxTcp, LinesOverTheLimitAreSkipped) {
  InfluxSourceOptions o = options("tcp://127.0.0.1:0");
  o.max_line_bytes = 100;
  InfluxSource source(o, hub);
  source.start();
  Sender s(source.port());
  s.write("m,host=a v=1 1\nm,host=a v=2,pad=\"" + std::string(5000, 'p') +
          "\" 2\nm,host=a v=3 3\n");
  const auto got = collect(hub, 2);
  EXPECT_EQ(got.at("m.a.v").values, (std::vector<float>{1, 3}));
  EXPECT_TRUE(eventually([&] { return rejected(source, LineReject::line_too_long) == 1; }));
}

TEST_F(InfluxTcp, ConnectionsOverTheLimitAreClosed) {
  InfluxSourceOptions o = options("tcp://127.0.0.1:0");
  o.max_connections = 2;
  InfluxSource source(o, hub);
  source.start();
  Sender a(source.port()), b(source.port());
  ASSERT_TRUE(eventually([&] { return source.stats().connections_open == 2; }));
  Sender refused(source.port());
  refused.socket.non_blocking(true);
  boost::system::error_code ec;
  EXPECT_TRUE(eventually([&] {
    std::array<char, 16> buffer{};
    refused.socket.read_some(asio::buffer(buffer), ec);
    return ec != asio::error::would_block;
  })) << "the source closes it";
  EXPECT_TRUE(ec == asio::error::eof || ec == asio::error::connection_reset) << ec.message();
  EXPECT_EQ(source.stats().connections_refused, 1u);
  a.write("m,host=a v=1 1\n");
  EXPECT_EQ(total(collect(hub, 1)), 1u) << "the connections within the limit still deliver";
}

// "m,host=a v=I I\n" for I = first..last: stream m.a.v, value and timestamp I.
std::string numbered_lines(int first, int last) {
  std::string out;
  for (int i = first; i <= last; ++i)
    out += "m,host=a v=" + std::to_string(i) + " " + std::to_string(i) + "\n";
  return out;
}

// The connection delivers a line, then the source is paused.
void flowing_then_paused(InfluxSource& source, Sender& s, IngestHub& hub) {
  s.write(numbered_lines(1, 1));
  ASSERT_EQ(total(collect(hub, 1)), 1u);
  source.pause();
  std::this_thread::sleep_for(150ms);  // a handler under way at the pause ends first
}

TEST_F(InfluxTcp, PausedItReadsNothingAndResumedItReadsOn) {
  InfluxSource source(options("tcp://127.0.0.1:0"), hub);
  source.start();
  Sender s(source.port());
  flowing_then_paused(source, s, hub);
  const std::uint64_t bytes = source.stats().bytes;
  s.write(numbered_lines(2, 101));
  std::this_thread::sleep_for(300ms);  // three loop periods: a running source would have read
  EXPECT_EQ(source.stats().bytes, bytes) << "a paused source reads no byte";
  EXPECT_EQ(hub.take_all().samples, 0u);
  source.resume();
  const auto got = collect(hub, 100);
  ASSERT_EQ(total(got), 100u);
  EXPECT_EQ(got.at("m.a.v").values.back(), 101.0f);
}

TEST_F(InfluxTcp, StopDeliversWhatTheConnectionsHold) {
  InfluxSource source(options("tcp://127.0.0.1:0"), hub);
  source.start();
  Sender s(source.port());
  flowing_then_paused(source, s, hub);
  s.write(numbered_lines(2, 41));
  std::this_thread::sleep_for(100ms);  // in the kernel's buffers, not read
  source.stop();
  EXPECT_EQ(hub.take_all().samples, 40u) << "sent before the stop: accepted input";
}

// A queue of 4 KiB: the source stops reading, the kernel's buffers fill, and the sender's
// writes block (TCP flow control); once the queue is taken everything arrives, in order.
TEST(InfluxSourceBackpressure, AFullQueueStopsReadingAndPushesBackOnTheSender) {
  StreamRegistry registry({}, auto_create());
  QueueLimits limits;
  limits.total_bytes = 4096;
  limits.stream_bytes = 4096;
  IngestHub hub(registry, limits);
  InfluxSource source(options("tcp://127.0.0.1:0", "{measurement}", {"v"}), hub);
  source.start();

  Sender s(source.port());
  s.socket.set_option(asio::socket_base::send_buffer_size(32 << 10));  // pushed back sooner
  s.socket.non_blocking(true);
  std::uint64_t sent_lines = 0, sent_bytes = 0;
  std::string pending;
  bool pushed_back = false;
  const auto give_up = std::chrono::steady_clock::now() + 20s;
  auto blocked_since = std::chrono::steady_clock::time_point::max();
  while (!pushed_back && std::chrono::steady_clock::now() < give_up && sent_bytes < (512u << 20)) {
    while (pending.size() < 65536) {
      ++sent_lines;
      pending += "m v=" + std::to_string(sent_lines) + " " + std::to_string(sent_lines) + "\n";
    }
    boost::system::error_code ec;
    const std::size_t n = s.socket.write_some(asio::buffer(pending), ec);
    if (ec == asio::error::would_block) {
      const auto now = std::chrono::steady_clock::now();
      blocked_since = std::min(blocked_since, now);
      pushed_back = now - blocked_since > 500ms;  // blocked for half a second: pushed back
      std::this_thread::sleep_for(1ms);
      continue;
    }
    ASSERT_FALSE(ec) << ec.message();
    blocked_since = std::chrono::steady_clock::time_point::max();
    pending.erase(0, n);
    sent_bytes += n;
  }
  ASSERT_TRUE(pushed_back) << "the sender never blocked after " << sent_bytes << " bytes";
  const std::uint64_t read = source.stats().bytes;
  std::cout << "[ info     ] pushed back: " << sent_bytes << " bytes sent, " << read
            << " read by the source, " << hub.backlog().bytes << " bytes queued\n";
  EXPECT_LT(read, sent_bytes) << "the rest waits in the kernel's buffers";
  const Backlog backlog = hub.backlog();
  EXPECT_LE(backlog.bytes, limits.total_bytes + (64u << 10)) << "the limit, and one read over";
  ASSERT_EQ(backlog.sources.size(), 1u);
  EXPECT_GT(backlog.sources[0].waits, 0u);

  // The sender writes the rest of its lines (`pending` ends with one); everything arrives.
  s.socket.non_blocking(false);
  std::thread finish([&] { s.write(pending); });
  const std::uint64_t want = sent_lines;
  std::int64_t expected_time = 1;
  std::uint64_t got = 0;
  warpwatch::testing::take_until(
      hub, want,
      [&](IngestBatch b) {
        for (const QueuedSamples& q : b.streams)
          for (const std::int64_t t : q.times_ns) {
            ASSERT_EQ(t, expected_time) << "in order, nothing lost";
            ++expected_time;
            ++got;
          }
      },
      60s);
  finish.join();
  EXPECT_EQ(got, want);
  EXPECT_EQ(registry.snapshot().rejected.total(), 0u);
}

struct InfluxUdp : ::testing::Test {
  InfluxUdp() : client(io, udp::endpoint(udp::v4(), 0)) {}
  void send(unsigned short port, std::string_view datagram) {
    client.send_to(asio::buffer(datagram), udp::endpoint(loopback, port));
  }
  StreamRegistry registry{{}, auto_create()};
  asio::io_context io;
  udp::socket client;
};

TEST_F(InfluxUdp, DatagramsOfSeveralLines) {
  IngestHub hub(registry, QueueLimits{});
  InfluxSource source(options("udp://127.0.0.1:0", "{measurement}.{field}"), hub);
  EXPECT_EQ(source.endpoint(), "udp://127.0.0.1:" + std::to_string(source.port()));
  source.start();
  send(source.port(), "m v=1 1\nm v=2 2\n");
  send(source.port(), "m v=3 3");  // the datagram ends the line
  send(source.port(), "bad line\nm v=4 4\n\n");
  const auto got = collect(hub, 4);
  EXPECT_EQ(got.at("m.v").values, (std::vector<float>{1, 2, 3, 4}));
  ASSERT_TRUE(eventually([&] { return source.stats().datagrams == 3; }));
  EXPECT_EQ(rejected(source, LineReject::syntax), 1u);
}

TEST_F(InfluxUdp, AFullQueueDropsAndCounts) {
  QueueLimits limits;
  limits.total_bytes = 1024;  // 85 samples of one value
  limits.stream_bytes = 1024;
  IngestHub hub(registry, limits);
  InfluxSource source(options("udp://127.0.0.1:0", "{measurement}.{field}"), hub);
  source.start();
  int sent = 0;
  ASSERT_TRUE(eventually([&] {
    std::string datagram;
    for (int i = 0; i < 50; ++i, ++sent) datagram += "m v=1 " + std::to_string(sent + 1) + "\n";
    send(source.port(), datagram);
    return registry.snapshot().rejected[RejectReason::queue_full] > 0;
  })) << "the queue never filled";
  const Backlog backlog = hub.backlog();
  EXPECT_GT(backlog.sources.at(0).dropped_samples, 0u);
  // The limit, and what one wake of the source reads over it (64 datagrams).
  EXPECT_LE(backlog.bytes, limits.total_bytes + 64 * 50 * queued_sample_bytes(1));
}

TEST_F(InfluxUdp, PausedItDoesNotRead) {
  IngestHub hub(registry, QueueLimits{});
  InfluxSource source(options("udp://127.0.0.1:0", "{measurement}.{field}"), hub);
  source.start();
  send(source.port(), "m v=1 1");
  ASSERT_EQ(total(collect(hub, 1)), 1u);
  source.pause();
  std::this_thread::sleep_for(150ms);
  send(source.port(), "m v=2 2");
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(source.stats().datagrams, 1u);
  EXPECT_EQ(hub.take_all().samples, 0u);
  source.resume();
  EXPECT_EQ(total(collect(hub, 1)), 1u) << "the kernel kept the datagram";
}

TEST(InfluxSourceAddress, BadAddressesFailAtStartUp) {
  StreamRegistry registry({}, auto_create());
  IngestHub hub(registry, QueueLimits{});
  for (const char* bad :
       {"http://127.0.0.1:0", "tcp://not-an-ip:0", "udp://127.0.0.1", "tcp://127.0.0.1:70000"}) {
    try {
      InfluxSource source(options(bad), hub);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
  }
  InfluxSource taken(options("tcp://127.0.0.1:0"), hub);
  EXPECT_THROW(InfluxSource(options(taken.endpoint()), hub), std::runtime_error)
      << "the port is taken";
  EXPECT_THROW(InfluxSource(options("tcp://127.0.0.1:0", "{measurement}"), hub),
               std::invalid_argument)
      << "no {field} and no fields";
}

}  // namespace
