#include "warpwatch/stream/sources/zmq_source.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string_view>

namespace warpwatch::stream {
namespace {

// One monitor endpoint per watched socket, unique within the process.
std::string next_monitor_endpoint() {
  static std::atomic<std::uint64_t> next{0};
  return "inproc://warpwatch.source-monitor." + std::to_string(next++);
}

}  // namespace

ZmqSource::ZmqSource(zmq::context_t& context, const ZmqSourceOptions& options, IngestHub& hub)
    : options_(options),
      socket_(context, options.kind == ZmqSourceOptions::Kind::sub ? zmq::socket_type::sub
                                                                   : zmq::socket_type::pull),
      hub_(hub) {
  try {
    // Before bind/connect: the options apply to the connections made after them.
    socket_.set(zmq::sockopt::maxmsgsize, static_cast<std::int64_t>(options.max_message_bytes));
    socket_.set(zmq::sockopt::rcvhwm, options.receive_high_water_mark);
    if (options.curve) {
      const bool client = options.kind == ZmqSourceOptions::Kind::sub;
      if (client == options.curve->server_public_key.empty())
        throw std::invalid_argument(client ? "a CURVE sub source needs the publisher's public key"
                                           : "a CURVE pull source is a server: no server key");
      apply_curve(socket_, *options.curve);
    }
    if (options.kind == ZmqSourceOptions::Kind::sub) {
      socket_.set(zmq::sockopt::subscribe, options.topic);
      // Watched from before the connect, so that its first handshake is seen. inproc has
      // no handshake events: such a source counts as connected at once.
      if (!std::string_view(options.endpoint).starts_with("inproc://")) {
        watch_ = std::make_unique<ConnectionWatch>();
        watch_->init(socket_, next_monitor_endpoint(),
                     ZMQ_EVENT_HANDSHAKE_SUCCEEDED | ZMQ_EVENT_DISCONNECTED);
      }
      socket_.connect(options.endpoint);
    } else {
      if (!options.curve && std::string_view(options.endpoint).starts_with("tcp://")) {
        watch_ = std::make_unique<ConnectionWatch>();
        watch_->on_not_zeromq = [this](const std::string& peer) { not_zeromq(peer); };
        watch_->init(socket_, next_monitor_endpoint(),
                     ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_DISCONNECTED |
                         ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL |
                         ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL);
      }
      socket_.bind(options.endpoint);
    }
  } catch (const zmq::error_t& e) {
    throw std::runtime_error("ingest endpoint " + options.endpoint + ": " + e.what());
  }
  endpoint_ = socket_.get(zmq::sockopt::last_endpoint);
  if (endpoint_.empty()) endpoint_ = options.endpoint;
  source_ = hub_.add_source(
      describe(), options.kind == ZmqSourceOptions::Kind::sub ? Overflow::drop : Overflow::wait);
  // A pull socket's watch has a thread of its own, woken by each event: the peer's address
  // is read from the accepted connection while it is open, which for a peer that sends and
  // closes at once is not long. Started last: it reads endpoint_.
  if (watch_ && options.kind == ZmqSourceOptions::Kind::pull)
    peer_watch_ = std::jthread([this](std::stop_token stop) {
      while (!stop.stop_requested()) watch_->check_event(100);
    });
}

ZmqSource::~ZmqSource() {
  stop();
}

bool ZmqSource::connected() const {
  return options_.kind == ZmqSourceOptions::Kind::pull || !watch_ || watch_->up.load();
}

void ZmqSource::ConnectionWatch::on_event_accepted(const zmq_event_t& event, const char*) {
  sockaddr_storage address{};
  socklen_t size = sizeof address;
  char host[INET6_ADDRSTRLEN] = "?";
  int port = 0;
  if (::getpeername(event.value, reinterpret_cast<sockaddr*>(&address), &size) != 0) return;
  {
    if (address.ss_family == AF_INET) {
      const auto& in = reinterpret_cast<const sockaddr_in&>(address);
      ::inet_ntop(AF_INET, &in.sin_addr, host, sizeof host);
      port = ntohs(in.sin_port);
    } else if (address.ss_family == AF_INET6) {
      const auto& in = reinterpret_cast<const sockaddr_in6&>(address);
      ::inet_ntop(AF_INET6, &in.sin6_addr, host, sizeof host);
      port = ntohs(in.sin6_port);
    }
  }
  if (peers_.size() < 4096) peers_[event.value] = std::string(host) + ":" + std::to_string(port);
}

void ZmqSource::ConnectionWatch::on_event_disconnected(const zmq_event_t& event, const char*) {
  up = false;
  const auto it = peers_.find(event.value);
  const std::string peer =
      it == peers_.end() ? "an address not read in time (closed at once)" : it->second;
  if (it != peers_.end()) peers_.erase(it);
  if (failed_ == 0) return;
  --failed_;
  if (on_not_zeromq) on_not_zeromq(peer);
}

void ZmqSource::not_zeromq(const std::string& peer) {
  hub_.offer_rejected({}, RejectReason::malformed_frame,
                      describe() + ": from " + peer +
                          ": not ZeroMQ (no ZMTP handshake: raw text or another protocol?); "
                          "send [stream id][payload] messages from a ZeroMQ PUSH socket",
                      1, "peer " + peer.substr(0, peer.rfind(':')));
}

std::string ZmqSource::describe() const {
  return (options_.kind == ZmqSourceOptions::Kind::sub ? "sub " : "pull ") + endpoint_;
}

void ZmqSource::run(std::stop_token stop) {
  constexpr auto poll_interval = std::chrono::milliseconds(100);
  const bool waits = options_.kind == ZmqSourceOptions::Kind::pull;
  while (wait_while_paused(stop)) {
    // A full queue: read nothing until the scheduler makes room (libzmq's buffers fill
    // and the peers block), looking at pause and stop between waits.
    if (waits &&
        !hub_.wait_for_room(source_, stop, std::chrono::steady_clock::now() + poll_interval))
      continue;
    zmq::pollitem_t item{socket_.handle(), 0, ZMQ_POLLIN, 0};
    zmq::poll(&item, 1, poll_interval);
    // At most a thousand messages between looks at pause and stop.
    if (item.revents & ZMQ_POLLIN) drain(1000);
    if (watch_ && !waits)  // a pull socket's watch has a thread of its own
      while (watch_->check_event(0)) {
      }
  }
  drain(0);  // what reached the socket before the stop is accepted input, while there is room
}

void ZmqSource::drain(std::size_t max_messages) {
  const bool waits = options_.kind == ZmqSourceOptions::Kind::pull;
  for (std::size_t n = 0; max_messages == 0 || n < max_messages; ++n) {
    if (waits && !hub_.has_room()) return;
    if (!receive_one()) return;
  }
}

bool ZmqSource::receive_one() {
  if (!socket_.recv(id_, zmq::recv_flags::dontwait)) return false;
  // The parts of a message arrive together: once the first is here, so are the others.
  std::size_t parts = 1;
  if (id_.more()) {
    (void)socket_.recv(payload_);
    ++parts;
    for (bool more = payload_.more(); more; more = extra_.more()) {
      (void)socket_.recv(extra_);
      ++parts;
    }
  }
  std::string peer;
  if (parts != 2) {  // named in the log line: who sends such messages
    const char* address = zmq_msg_gets(id_.handle(), "Peer-Address");
    if (address) peer = address;
  }
  deliver_zmq_message(hub_, source_, parts, id_.to_string_view(),
                      parts < 2
                          ? std::span<const std::byte>()
                          : std::span<const std::byte>(
                                static_cast<const std::byte*>(payload_.data()), payload_.size()),
                      peer);
  return true;
}

void deliver_zmq_message(IngestHub& hub, SourceId source, std::size_t parts, std::string_view id,
                         std::span<const std::byte> payload, std::string_view peer) {
  if (parts != 2) {
    std::string detail = "expected 2 frames [stream id][payload], got " + std::to_string(parts);
    if (!peer.empty()) detail.append(" from ").append(peer);
    hub.offer_rejected(id, RejectReason::wrong_part_count, detail);
    return;
  }
  hub.offer_message(source, id, payload);
}

}  // namespace warpwatch::stream
