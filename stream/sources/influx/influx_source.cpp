#include "warpwatch/stream/sources/influx_source.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ip/udp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <vector>

#include "warpwatch/base/timestamps.hpp"
#include "warpwatch/stream/socket_address.hpp"

namespace warpwatch::stream {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using udp = asio::ip::udp;
using boost::system::error_code;

// Datagrams read in a row before the loop looks at pause, stop and the other sockets.
constexpr int datagrams_per_wake = 64;
// At the stop, rounds of reads from what the sockets hold (one read per socket a round).
constexpr int drain_rounds = 1024;
constexpr auto loop_period = std::chrono::milliseconds(100);
constexpr auto accept_retry = std::chrono::milliseconds(100);

template <typename Endpoint>
std::string host_port(const Endpoint& endpoint) {
  const auto address = endpoint.address();
  std::string host = address.to_string();
  if (address.is_v6()) host = "[" + host + "]";
  return host + ":" + std::to_string(endpoint.port());
}

}  // namespace

// Everything of Asio, used on the source's thread only (but the constructor's binding, and
// pause(), which stops the io_context: that is thread-safe).
struct InfluxSource::Io {
  struct Connection {
    Connection(tcp::socket s, std::string from, std::size_t max_line_bytes)
        : socket(std::move(s)), peer(std::move(from)), framer(max_line_bytes) {}
    tcp::socket socket;
    std::string peer;
    LineFramer framer;
    std::uint64_t lines = 0;
  };
  using ConnectionRef = std::shared_ptr<Connection>;

  Io(InfluxSource& source_object, const InfluxSourceOptions& options)
      : owner(source_object),
        mapping(options.mapping),
        max_line_bytes(options.max_line_bytes),
        max_connections(options.max_connections),
        udp_framer(options.max_line_bytes) {}

  void bind(const InfluxSourceOptions& options);
  void attach(IngestHub& hub);

  bool reading_allowed() const;
  // Reading stopped (paused, or the queue is full: the same for every socket): the loop
  // returns to run(), which waits for the resume or the room.
  void park() { context.stop(); }
  void accept();
  void on_accept(tcp::socket socket);
  void arm(const ConnectionRef& c);
  void on_readable(const ConnectionRef& c);
  void line_too_long(std::string_view peer, std::uint64_t line_no);
  void close(const ConnectionRef& c);
  void arm_udp();
  void on_udp_readable();
  void resume_parked();
  void drain();
  void close_all();

  InfluxSource& owner;
  InfluxMapping mapping;
  std::size_t max_line_bytes, max_connections;
  bool is_tcp = true;
  IngestHub* hub = nullptr;
  SourceId source = 0;
  std::optional<InfluxLineDecoder> decoder;
  bool draining = false;  // at the stop: read what the sockets hold, paused or not

  asio::io_context context;
  tcp::acceptor acceptor{context};
  asio::steady_timer accept_timer{context};
  std::vector<ConnectionRef> connections;
  std::vector<ConnectionRef> parked;  // not reading: paused, or the queue is full
  udp::socket datagrams{context};
  udp::endpoint sender;
  LineFramer udp_framer;
  bool udp_parked = false;
  // One read at a time on this thread: every socket reads into this buffer once it is
  // readable (async_wait), so an idle connection holds no buffer of its own.
  std::array<char, influx_read_bytes> buffer{};  // a datagram is never cut
};

void InfluxSource::Io::bind(const InfluxSourceOptions& options) {
  const std::string& a = options.address;
  const std::size_t sep = a.find("://");
  const std::string scheme = sep == std::string::npos ? "" : a.substr(0, sep);
  if (scheme != "tcp" && scheme != "udp")
    throw std::runtime_error("line protocol address '" + a +
                             "': expected tcp://host:port or udp://host:port");
  is_tcp = scheme == "tcp";
  try {
    const auto [address, port] = parse_socket_address(a.substr(sep + 3));
    if (is_tcp) {
      const tcp::endpoint at(address, port);
      acceptor.open(at.protocol());
      acceptor.set_option(asio::socket_base::reuse_address(true));
      acceptor.bind(at);
      acceptor.listen();
      owner.port_ = acceptor.local_endpoint().port();
      owner.endpoint_ = "tcp://" + host_port(acceptor.local_endpoint());
    } else {
      const udp::endpoint at(address, port);
      datagrams.open(at.protocol());
      datagrams.bind(at);
      datagrams.non_blocking(true);
      owner.port_ = datagrams.local_endpoint().port();
      owner.endpoint_ = "udp://" + host_port(datagrams.local_endpoint());
    }
  } catch (const std::exception& e) {
    throw std::runtime_error("line protocol address '" + a + "': " + e.what());
  }
}

void InfluxSource::Io::attach(IngestHub& h) {
  hub = &h;
  // TCP pushes back on its senders; UDP cannot, so a full queue drops (queue_full).
  source = hub->add_source(owner.describe(), is_tcp ? Overflow::wait : Overflow::drop);
  decoder.emplace(mapping, *hub, source, owner.counters_, owner.describe());
  if (is_tcp)
    accept();
  else
    arm_udp();
}

bool InfluxSource::Io::reading_allowed() const {
  if (!draining && owner.paused()) return false;
  return !is_tcp || hub->has_room();
}

void InfluxSource::Io::accept() {
  acceptor.async_accept([this](error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted) return;
    if (!ec) {
      on_accept(std::move(socket));
      accept();
      return;
    }
    // Out of file descriptors, say: try again a little later instead of spinning.
    accept_timer.expires_after(accept_retry);
    accept_timer.async_wait([this](error_code timer) {
      if (!timer) accept();
    });
  });
}

void InfluxSource::Io::on_accept(tcp::socket socket) {
  if (connections.size() >= max_connections) {
    ++owner.counters_.connections_refused;
    error_code ignored;
    socket.close(ignored);
    return;
  }
  error_code ec;
  const auto peer = socket.remote_endpoint(ec);
  if (!ec) socket.non_blocking(true, ec);
  if (ec) return;  // gone already
  ++owner.counters_.connections;
  ++owner.counters_.connections_open;
  auto c = std::make_shared<Connection>(std::move(socket), host_port(peer), max_line_bytes);
  connections.push_back(c);
  arm(c);
}

void InfluxSource::Io::arm(const ConnectionRef& c) {
  if (!reading_allowed()) {
    park();
    parked.push_back(c);
    return;
  }
  c->socket.async_wait(tcp::socket::wait_read, [this, c](error_code ec) {
    if (ec == asio::error::operation_aborted) return;
    if (ec) return close(c);
    on_readable(c);
  });
}

void InfluxSource::Io::on_readable(const ConnectionRef& c) {
  // Another connection's read may have filled the queue since this wait began: then this
  // one parks unread, so that the queue overshoots by one read, not one per connection.
  if (!reading_allowed()) return arm(c);
  error_code ec;
  const std::size_t n = c->socket.read_some(asio::buffer(buffer), ec);
  if (ec == asio::error::would_block || ec == asio::error::try_again) return arm(c);
  decoder->received_at(stream::wall_clock_ns());
  const auto on_line = [&](std::string_view line) { decoder->line(line, c->peer, ++c->lines); };
  if (ec == asio::error::eof) {
    c->framer.finish(on_line);  // the sender closed: its last line needs no '\n'
    decoder->flush();
    return close(c);
  }
  if (ec) return close(c);  // reset: an unfinished line is incomplete (close counts it)
  owner.counters_.bytes += n;
  c->framer.feed(std::string_view(buffer.data(), n), on_line,
                 [&] { line_too_long(c->peer, ++c->lines); });
  decoder->flush();
  arm(c);
}

void InfluxSource::Io::line_too_long(std::string_view peer, std::uint64_t line_no) {
  decoder->reject_line(LineReject::line_too_long, peer, line_no,
                       "a line longer than max_line_bytes (" + std::to_string(max_line_bytes) +
                           "), skipped to its end");
}

void InfluxSource::Io::close(const ConnectionRef& c) {
  if (c->framer.holds_partial_line()) {
    decoder->reject_line(LineReject::incomplete_line, c->peer, c->lines + 1,
                         "the connection ended inside a line (no '\\n' before it closed)");
    c->framer.discard();
    decoder->flush();
  }
  error_code ignored;
  c->socket.close(ignored);
  const auto gone = [&](const ConnectionRef& x) { return x == c; };
  if (std::erase_if(connections, gone) > 0) --owner.counters_.connections_open;
  std::erase_if(parked, gone);
}

void InfluxSource::Io::arm_udp() {
  if (!reading_allowed()) {
    park();
    udp_parked = true;
    return;
  }
  datagrams.async_wait(udp::socket::wait_read, [this](error_code ec) {
    if (ec == asio::error::operation_aborted) return;
    on_udp_readable();
  });
}

void InfluxSource::Io::on_udp_readable() {
  if (!reading_allowed()) return arm_udp();  // paused since the wait began
  decoder->received_at(stream::wall_clock_ns());
  for (int i = 0; i < datagrams_per_wake; ++i) {
    error_code ec;
    const std::size_t n = datagrams.receive_from(asio::buffer(buffer), sender, 0, ec);
    if (ec) break;  // would_block: read all there was; another error: the next wait says
    ++owner.counters_.datagrams;
    owner.counters_.bytes += n;
    const std::string peer = host_port(sender);
    std::uint64_t lines = 0;
    const auto on_line = [&](std::string_view line) { decoder->line(line, peer, ++lines); };
    udp_framer.feed(std::string_view(buffer.data(), n), on_line,
                    [&] { line_too_long(peer, ++lines); });
    udp_framer.finish(on_line);  // a datagram ends its last line
  }
  decoder->flush();
  arm_udp();
}

void InfluxSource::Io::resume_parked() {
  std::vector<ConnectionRef> waiting;
  waiting.swap(parked);
  for (const ConnectionRef& c : waiting) arm(c);  // each parks again if still not allowed
  if (udp_parked) {
    udp_parked = false;
    arm_udp();
  }
}

void InfluxSource::Io::drain() {
  draining = true;
  error_code ignored;
  acceptor.close(ignored);  // no new connections: only what the open ones hold
  accept_timer.cancel();
  for (int round = 0; round < drain_rounds; ++round) {
    context.restart();
    resume_parked();
    if (context.poll() == 0) break;
  }
}

void InfluxSource::Io::close_all() {
  while (!connections.empty()) close(connections.back());
  error_code ignored;
  datagrams.close(ignored);
  udp_framer.discard();
  context.restart();
  context.poll();  // the aborted waits run, letting go of their connections
}

InfluxSource::InfluxSource(const InfluxSourceOptions& options, IngestHub& hub)
    : io_(std::make_unique<Io>(*this, options)) {
  io_->bind(options);
  io_->attach(hub);
}

InfluxSource::~InfluxSource() {
  stop();
}

void InfluxSource::pause() {
  ThreadedSource::pause();
  io_->context.stop();
}

std::string InfluxSource::describe() const {
  return "influx " + endpoint_;
}

void InfluxSource::run(std::stop_token stop) {
  Io& io = *io_;
  const std::stop_callback wake(stop, [&io] { io.context.stop(); });
  while (wait_while_paused(stop)) {
    // A full queue: read nothing until the scheduler makes room (TCP's windows close and
    // the senders block), looking at pause and stop between waits.
    if (io.is_tcp &&
        !io.hub->wait_for_room(io.source, stop, std::chrono::steady_clock::now() + loop_period))
      continue;
    io.context.restart();
    io.resume_parked();  // stops the context again at once if reading is still not allowed
    io.context.run_for(loop_period);
  }
  io.drain();
  io.close_all();
}

}  // namespace warpwatch::stream
