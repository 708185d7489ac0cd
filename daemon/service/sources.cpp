#include "warpwatch/service/sources.hpp"

#include <zmq_addon.hpp>

#include <chrono>
#include <stdexcept>
#include <vector>

#include "warpwatch/config/series_file.hpp"
#include "warpwatch/stream/replay.hpp"

namespace warpwatch::service {

ZmqSource::ZmqSource(zmq::context_t& context, const config::IngestSource& source, IngestHub& hub,
                     stream::StreamRegistry& registry)
    : socket_(context, source.kind == config::IngestSource::Kind::sub ? zmq::socket_type::sub
                                                                       : zmq::socket_type::pull),
      hub_(hub),
      registry_(registry) {
  try {
    if (source.kind == config::IngestSource::Kind::sub) {
      socket_.set(zmq::sockopt::subscribe, source.topic);
      socket_.connect(source.endpoint);
    } else {
      socket_.bind(source.endpoint);
    }
  } catch (const zmq::error_t& e) {
    throw std::runtime_error("ingest endpoint " + source.endpoint + ": " + e.what());
  }
  endpoint_ = socket_.get(zmq::sockopt::last_endpoint);
  if (endpoint_.empty()) endpoint_ = source.endpoint;
}

void ZmqSource::run(std::stop_token stop) {
  while (!stop.stop_requested()) {
    zmq::pollitem_t item{socket_.handle(), 0, ZMQ_POLLIN, 0};
    zmq::poll(&item, 1, std::chrono::milliseconds(100));
    if (item.revents & ZMQ_POLLIN) drain();
  }
  drain();  // what reached the socket before the stop is accepted input: match it too
}

void ZmqSource::drain() {
  std::vector<zmq::message_t> parts;
  for (;;) {
    parts.clear();
    const auto received = zmq::recv_multipart(socket_, std::back_inserter(parts), zmq::recv_flags::dontwait);
    if (!received) return;
    if (parts.size() != 2) {
      registry_.reject(parts.empty() ? "" : parts[0].to_string_view(), stream::RejectReason::malformed_frame,
                       "expected 2 frames [stream id][payload], got " + std::to_string(parts.size()));
      continue;
    }
    hub_.offer_message(parts[0].to_string_view(),
                       std::span<const std::byte>(static_cast<const std::byte*>(parts[1].data()), parts[1].size()));
  }
}

ReplaySource::ReplaySource(const config::IngestSource& source, IngestHub& hub)
    : source_(source), hub_(hub) {
  const auto series = config::load_series_file(source.file);
  const config::LoadedSeries& s = series.front();
  samples_.dims = s.dims;
  samples_.values = s.values;
  samples_.times_ns.resize(s.length());
  for (std::size_t i = 0; i < s.length(); ++i)
    samples_.times_ns[i] = static_cast<std::int64_t>(i) * source.period_ns;
}

void ReplaySource::run(std::stop_token stop) {
  // Paced: about 100 chunks a second; unpaced: large chunks, as fast as the hub takes them.
  const std::size_t chunk =
      source_.rate_hz > 0 ? std::max<std::size_t>(1, static_cast<std::size_t>(source_.rate_hz / 100)) : 1024;
  stream::replay_paced(samples_, chunk, source_.rate_hz, [&](const stream::Samples& part) {
    if (stop.stop_requested()) return false;
    hub_.offer_samples(source_.stream, part);
    return true;
  });
  if (!stop.stop_requested()) hub_.end_stream(source_.stream);
  done_ = true;
}

}  // namespace warpwatch::service
