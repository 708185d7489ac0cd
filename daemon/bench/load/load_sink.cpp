// ZmqSink: the load generator's messages on a ZeroMQ PUSH (or PUB) socket.
#include <zmq.hpp>

#include "warpwatch/bench/load_generator.hpp"
#include "warpwatch/stream/sources/zap_handler.hpp"

namespace warpwatch::bench {

struct ZmqSink::Impl {
  zmq::context_t context{1};
  std::unique_ptr<stream::ZapHandler> zap;  // a CURVE server's; closed after the socket
  zmq::socket_t socket;
};

ZmqSink::ZmqSink(const ZmqSinkOptions& options) : impl_(std::make_unique<Impl>()) {
  if (options.curve && options.curve->server_public_key.empty())
    impl_->zap = std::make_unique<stream::ZapHandler>(impl_->context, options.allowed_clients,
                                                      options.auth_log);
  impl_->socket =
      zmq::socket_t(impl_->context, options.pub ? zmq::socket_type::pub : zmq::socket_type::push);
  zmq::socket_t& s = impl_->socket;
  s.set(zmq::sockopt::sndhwm, options.send_hwm);
  s.set(zmq::sockopt::linger, options.linger_ms);
  if (options.pub) s.set(zmq::sockopt::xpub_nodrop, true);  // refuse at the HWM, never drop
  if (options.curve) stream::apply_curve(s, *options.curve);
  if (options.bind)
    s.bind(options.endpoint);
  else
    s.connect(options.endpoint);
}

ZmqSink::~ZmqSink() = default;

bool ZmqSink::try_send(std::string_view stream_id, std::span<const std::byte> payload) {
  zmq::socket_t& s = impl_->socket;
  if (!s.send(zmq::const_buffer(stream_id.data(), stream_id.size()),
              zmq::send_flags::sndmore | zmq::send_flags::dontwait))
    return false;
  // Once the first part is taken, libzmq takes the rest of the message (the high-water
  // mark counts whole messages); a blocking send only guards against a change of that.
  if (!s.send(zmq::const_buffer(payload.data(), payload.size()), zmq::send_flags::dontwait))
    s.send(zmq::const_buffer(payload.data(), payload.size()), zmq::send_flags::none);
  return true;
}

void ZmqSink::wait_writable(std::chrono::milliseconds limit) {
  zmq::pollitem_t item{impl_->socket.handle(), 0, ZMQ_POLLOUT, 0};
  zmq::poll(&item, 1, limit);
}

}  // namespace warpwatch::bench
