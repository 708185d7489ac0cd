#include "warpwatch/service/socket_security.hpp"

#include <string_view>
#include <utility>

namespace warpwatch::service {

SocketSecurity::SocketSecurity(zmq::context_t& context, const config::CurveConfig& curve,
                               Logger log)
    : curve_(curve), log_(std::move(log)) {
  if (!curve_.enabled) return;
  stream::require_curve();
  zap_ = std::make_unique<stream::ZapHandler>(
      context, curve_.allowed_clients,
      [log = log_](std::string_view line) { log->warn("authentication: {}", line); });
  log_->info(
      "CURVE on every ZeroMQ socket: the daemon's public key is {} ({}); {} client key(s) "
      "allowed ({})",
      curve_.keys.public_key, curve_.secret_key_file, curve_.allowed_clients.size(),
      curve_.allowed_clients_file);
}

std::optional<stream::CurveSocketOptions> SocketSecurity::server(const std::string& domain) const {
  if (!zap_) return std::nullopt;
  return stream::CurveSocketOptions{
      .keys = curve_.keys, .server_public_key = {}, .zap_domain = domain};
}

std::optional<stream::CurveSocketOptions> SocketSecurity::client(
    const std::string& server_key) const {
  if (!zap_) return std::nullopt;
  return stream::CurveSocketOptions{
      .keys = curve_.keys, .server_public_key = server_key, .zap_domain = {}};
}

void SocketSecurity::bound(const std::string& domain, const std::string& name,
                           const std::string& endpoint) {
  if (zap_) {
    zap_->name_domain(domain, name);
    return;
  }
  if (exposed_beyond_loopback(endpoint))
    log_->warn(
        "'{}' is bound beyond loopback without CURVE: any host that reaches {} may connect "
        "(README: Authenticated sockets)",
        name, endpoint);
}

void SocketSecurity::reload(const config::CurveConfig& next) {
  if (!zap_ || !next.enabled || next.allowed_clients == curve_.allowed_clients) return;
  zap_->set_allowed(next.allowed_clients);
  log_->info("reload: {} CURVE client key(s) allowed now ({}), {} before",
             next.allowed_clients.size(), next.allowed_clients_file, curve_.allowed_clients.size());
  curve_.allowed_clients = next.allowed_clients;
  curve_.allowed_clients_file = next.allowed_clients_file;
}

std::vector<stream::ZapCounters> SocketSecurity::counters() const {
  return zap_ ? zap_->counters() : std::vector<stream::ZapCounters>{};
}

bool exposed_beyond_loopback(const std::string& endpoint) {
  constexpr std::string_view tcp = "tcp://";
  if (!endpoint.starts_with(tcp)) return false;  // ipc and inproc stay on this host
  const std::string_view address = std::string_view(endpoint).substr(tcp.size());
  const std::string_view host = address.substr(0, address.rfind(':'));
  return !(host.starts_with("127.") || host == "[::1]" || host == "localhost");
}

}  // namespace warpwatch::service
