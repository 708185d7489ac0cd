#include "warpwatch/stream/socket_address.hpp"

#include <charconv>
#include <stdexcept>

namespace warpwatch::stream {

SocketAddress parse_socket_address(const std::string& host_port) {
  const std::size_t colon = host_port.rfind(':');
  if (colon == std::string::npos) throw std::runtime_error("expected host:port");
  std::string host = host_port.substr(0, colon);
  unsigned port = 0;
  const char* end = host_port.data() + host_port.size();
  const auto [ptr, ec] = std::from_chars(host_port.data() + colon + 1, end, port);
  if (ec != std::errc{} || ptr != end || colon + 1 == host_port.size() || port > 65535)
    throw std::runtime_error("expected a port from 0 to 65535 after the last ':'");
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  if (host.empty() || host == "*") host = "0.0.0.0";
  if (host == "localhost") host = "127.0.0.1";
  boost::system::error_code error;
  const auto address = boost::asio::ip::make_address(host, error);
  if (error) throw std::runtime_error("'" + host + "' is not an IP address");
  return {address, static_cast<unsigned short>(port)};
}

}  // namespace warpwatch::stream
