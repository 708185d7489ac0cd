#include "warpwatch/stream/sources/zap_handler.hpp"

#include <zmq_addon.hpp>

#include <array>
#include <cerrno>
#include <iterator>
#include <stdexcept>
#include <utility>

#include "warpwatch/stream/decode/frame.hpp"
#include "warpwatch/stream/sources/curve.hpp"

namespace warpwatch::stream {
namespace {

constexpr const char* zap_endpoint = "inproc://zeromq.zap.01";  // RFC 27's, fixed
constexpr std::size_t curve_key_bytes = 32;

std::string binary_key(const std::string& z85) {
  std::array<std::uint8_t, curve_key_bytes> bytes{};
  if (z85.size() != z85_key_chars || !zmq_z85_decode(bytes.data(), z85.c_str()))
    throw std::invalid_argument("ZapHandler: not a Z85 CURVE key");
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

std::string z85_key(std::string_view binary) {
  std::array<char, z85_key_chars + 1> text{};
  zmq_z85_encode(text.data(), reinterpret_cast<const std::uint8_t*>(binary.data()), binary.size());
  return text.data();
}

}  // namespace

ZapHandler::ZapHandler(zmq::context_t& context, const std::vector<std::string>& allowed, Log log,
                       std::chrono::milliseconds log_interval)
    : socket_(context, zmq::socket_type::rep), log_(std::move(log)), log_interval_(log_interval) {
  set_allowed(allowed);
  socket_.set(zmq::sockopt::linger, 0);
  try {
    socket_.bind(zap_endpoint);
  } catch (const zmq::error_t& e) {
    throw std::runtime_error(std::string("cannot start the ZAP handler at ") + zap_endpoint + ": " +
                             e.what() + " (one per context)");
  }
  thread_ = std::jthread([this](std::stop_token stop) { run(std::move(stop)); });
}

ZapHandler::~ZapHandler() {
  thread_.request_stop();
  if (thread_.joinable()) thread_.join();
}

void ZapHandler::set_allowed(const std::vector<std::string>& allowed) {
  std::set<std::string, std::less<>> keys;
  for (const std::string& key : allowed) keys.insert(binary_key(key));
  const std::lock_guard lock(mu_);
  allowed_ = std::move(keys);
}

std::size_t ZapHandler::allowed_count() const {
  const std::lock_guard lock(mu_);
  return allowed_.size();
}

void ZapHandler::name_domain(const std::string& domain, std::string name) {
  const std::lock_guard lock(mu_);
  domains_[domain].counters.socket = std::move(name);
}

std::vector<ZapCounters> ZapHandler::counters() const {
  const std::lock_guard lock(mu_);
  std::vector<ZapCounters> out;
  for (const auto& [domain, d] : domains_) out.push_back(d.counters);
  return out;
}

void ZapHandler::run(std::stop_token stop) {
  std::vector<zmq::message_t> request;
  while (!stop.stop_requested()) {
    try {
      zmq::pollitem_t item{socket_.handle(), 0, ZMQ_POLLIN, 0};
      zmq::poll(&item, 1, std::chrono::milliseconds(100));
      if (!(item.revents & ZMQ_POLLIN)) continue;
      request.clear();
      if (!zmq::recv_multipart(socket_, std::back_inserter(request), zmq::recv_flags::dontwait))
        continue;
      std::vector<zmq::const_buffer> reply;
      const std::vector<std::string> frames = answer(request);
      for (const std::string& frame : frames) reply.push_back(zmq::buffer(frame));
      zmq::send_multipart(socket_, reply);
    } catch (const zmq::error_t& e) {
      if (e.num() == ETERM) return;  // the context is ending
      if (e.num() != EINTR) throw;
    }
  }
}

std::vector<std::string> ZapHandler::answer(const std::vector<zmq::message_t>& request) {
  // Frames (RFC 27): version, request id, domain, address, routing id, mechanism,
  // credentials (CURVE: the client's 32-byte public key).
  const auto frame = [&](std::size_t i) {
    return i < request.size() ? request[i].to_string() : std::string();
  };
  const std::string request_id = frame(1);
  if (request.size() < 6 || frame(0) != "1.0")  // libzmq never sends one: answer, refuse
    return {"1.0", request_id, "500", "malformed ZAP request", "", ""};
  const std::string domain_name = frame(2), address = frame(3), mechanism = frame(5);
  const bool curve =
      mechanism == "CURVE" && request.size() == 7 && request[6].size() == curve_key_bytes;
  const std::string key = curve ? request[6].to_string() : std::string();
  std::string line;
  bool accepted = false;
  {
    const std::lock_guard lock(mu_);
    Domain& domain = domains_[domain_name];
    if (domain.counters.socket.empty()) domain.counters.socket = domain_name;
    if (!curve) {
      ++domain.counters.refused_mechanism;
      line = refusal_line(domain, address, "a " + mechanism + " handshake (CURVE only)");
    } else if (allowed_.contains(key)) {
      ++domain.counters.accepted;
      accepted = true;
    } else {
      ++domain.counters.refused_key;
      line = refusal_line(domain, address,
                          "a CURVE client key " + z85_key(key) + " not in the allowed list");
    }
  }
  if (!line.empty() && log_) log_(line);
  if (accepted) return {"1.0", request_id, "200", "OK", z85_key(key), ""};
  return {"1.0", request_id, "400", curve ? "key not allowed" : "CURVE only", "", ""};
}

std::string ZapHandler::refusal_line(Domain& domain, std::string_view address,
                                     std::string_view why) {
  const auto now = std::chrono::steady_clock::now();
  if (domain.logged && now - domain.last_line < log_interval_) {
    ++domain.unlogged;
    return {};
  }
  std::string line = domain.counters.socket + ": refused a connection from " + quoted(address, 64) +
                     ": " + std::string(why);
  if (domain.unlogged > 0)
    line += " (" + std::to_string(domain.unlogged) + " more refused since the last line)";
  domain.logged = true;
  domain.last_line = now;
  domain.unlogged = 0;
  return line;
}

}  // namespace warpwatch::stream
