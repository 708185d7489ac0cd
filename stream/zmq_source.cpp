#include "warpwatch/stream/zmq_source.hpp"

#include <zmq_addon.hpp>

#include <chrono>
#include <stdexcept>
#include <vector>

namespace warpwatch::stream {

ZmqSource::ZmqSource(zmq::context_t& context, const ZmqSourceOptions& options, IngestHub& hub)
    : options_(options),
      socket_(context, options.kind == ZmqSourceOptions::Kind::sub ? zmq::socket_type::sub
                                                                   : zmq::socket_type::pull),
      hub_(hub) {
  try {
    if (options.kind == ZmqSourceOptions::Kind::sub) {
      socket_.set(zmq::sockopt::subscribe, options.topic);
      socket_.connect(options.endpoint);
    } else {
      socket_.bind(options.endpoint);
    }
  } catch (const zmq::error_t& e) {
    throw std::runtime_error("ingest endpoint " + options.endpoint + ": " + e.what());
  }
  endpoint_ = socket_.get(zmq::sockopt::last_endpoint);
  if (endpoint_.empty()) endpoint_ = options.endpoint;
}

ZmqSource::~ZmqSource() {
  stop();
}

std::string ZmqSource::describe() const {
  return (options_.kind == ZmqSourceOptions::Kind::sub ? "sub " : "pull ") + endpoint_;
}

void ZmqSource::run(std::stop_token stop) {
  while (wait_while_paused(stop)) {
    zmq::pollitem_t item{socket_.handle(), 0, ZMQ_POLLIN, 0};
    zmq::poll(&item, 1, std::chrono::milliseconds(100));
    // At most a thousand messages between looks at pause and stop.
    if (item.revents & ZMQ_POLLIN) drain(1000);
  }
  drain(0);  // what reached the socket before the stop is accepted input: match it too
}

void ZmqSource::drain(std::size_t max_messages) {
  std::vector<zmq::message_t> parts;
  for (std::size_t n = 0; max_messages == 0 || n < max_messages; ++n) {
    parts.clear();
    const auto received =
        zmq::recv_multipart(socket_, std::back_inserter(parts), zmq::recv_flags::dontwait);
    if (!received) return;
    if (parts.size() != 2) {
      hub_.offer_malformed(
          parts.empty() ? "" : parts[0].to_string_view(),
          "expected 2 frames [stream id][payload], got " + std::to_string(parts.size()));
      continue;
    }
    hub_.offer_message(parts[0].to_string_view(),
                       std::span<const std::byte>(static_cast<const std::byte*>(parts[1].data()),
                                                  parts[1].size()));
  }
}

}  // namespace warpwatch::stream
