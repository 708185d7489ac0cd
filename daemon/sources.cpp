#include "warpwatch/daemon/sources.hpp"

#include <zmq_addon.hpp>

#include <chrono>
#include <stdexcept>
#include <thread>
#include <vector>

#include "warpwatch/config/series_file.hpp"

namespace warpwatch::daemon {

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
  using clock = std::chrono::steady_clock;
  const std::size_t n = samples_.size(), dims = samples_.dims;
  // Paced: about 100 chunks a second; unpaced: large chunks, as fast as the hub takes them.
  const std::size_t chunk =
      source_.rate_hz > 0 ? std::max<std::size_t>(1, static_cast<std::size_t>(source_.rate_hz / 100)) : 1024;
  const auto start = clock::now();
  stream::Samples part;
  part.dims = dims;
  for (std::size_t i = 0; i < n && !stop.stop_requested(); i += chunk) {
    const std::size_t count = std::min(chunk, n - i);
    if (source_.rate_hz > 0)
      std::this_thread::sleep_until(start + std::chrono::duration_cast<clock::duration>(
                                                std::chrono::duration<double>(static_cast<double>(i) / source_.rate_hz)));
    part.times_ns.assign(samples_.times_ns.begin() + static_cast<std::ptrdiff_t>(i),
                         samples_.times_ns.begin() + static_cast<std::ptrdiff_t>(i + count));
    part.values.assign(samples_.values.begin() + static_cast<std::ptrdiff_t>(i * dims),
                       samples_.values.begin() + static_cast<std::ptrdiff_t>((i + count) * dims));
    hub_.offer_samples(source_.stream, part);
  }
  if (!stop.stop_requested()) hub_.end_stream(source_.stream);
  done_ = true;
}

}  // namespace warpwatch::daemon
