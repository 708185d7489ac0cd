// The InfluxDB line protocol source (docs/ingest.md §7): what Telegraf's
// socket_writer output sends (`data_format = "influx"`), and any client that writes line
// protocol to a socket. One source is one socket, on a thread of its own running Boost.Asio:
//
// - tcp://host:port: a listener taking up to max_connections connections, each a stream
//   of '\n'-terminated lines that reads may cut anywhere. It pushes back: paused, or while
//   the hub's queue is full, it reads from no connection (what the last read brought is
//   processed first), so the kernel's buffers fill and TCP flow control stops the senders.
// - udp://host:port: datagrams of one or more lines (the last one may lack its '\n'). It
//   cannot push back: while the queue is full its samples are dropped and counted as
//   queue_full (Overflow::drop); paused, it does not read, and the kernel drops what its
//   receive buffer cannot hold.
//
// A line is at most max_line_bytes (a longer one is counted and skipped to its '\n'), so a
// connection holds at most that much of an unfinished line. Lines become samples through an
// InfluxMapping (influx_lines.hpp); what cannot be used is counted per reason.
#pragma once

#include <memory>
#include <string>

#include "warpwatch/stream/decode/influx_lines.hpp"
#include "warpwatch/stream/ingest_hub.hpp"
#include "warpwatch/stream/source.hpp"
#include "warpwatch/stream/sources/influx_mapping.hpp"

namespace warpwatch::stream {

struct InfluxSourceOptions {
  std::string address;  // tcp://host:port or udp://host:port (port 0: the system's choice)
  InfluxMappingOptions mapping;
  std::size_t max_line_bytes = 64 << 10;
  std::size_t max_connections = 256;  // tcp: more are closed at once and counted
};

class InfluxSource final : public ThreadedSource {
 public:
  // Binds (and listens) now, so that a bad address fails at start-up: std::runtime_error
  // naming it; std::invalid_argument for a bad mapping. Registers with the hub.
  InfluxSource(const InfluxSourceOptions& options, IngestHub& hub);
  ~InfluxSource() override;

  // "influx tcp://127.0.0.1:8094"
  std::string describe() const override;
  // Stops the Asio loop too, so that no socket is read after pause() returns but what a
  // handler running at that moment reads.
  void pause() override;
  // The address actually bound (port 0 resolved), as tcp://host:port or udp://host:port.
  const std::string& endpoint() const { return endpoint_; }
  unsigned short port() const { return port_; }
  InfluxStats stats() const { return read_stats(describe(), counters_); }

 private:
  // Runs the sockets until the stop, looking at pause, room and stop every 100 ms at the
  // latest. At the stop, what the sockets hold already is read while the queue has room
  // (accepted input, as the ZeroMQ source drains its socket); partial lines left then are
  // counted as incomplete_line.
  void run(std::stop_token stop) override;

  struct Io;  // Asio: io_context, the socket(s), the connections
  InfluxCounters counters_;
  std::string endpoint_;
  unsigned short port_ = 0;
  std::unique_ptr<Io> io_;
};

}  // namespace warpwatch::stream
