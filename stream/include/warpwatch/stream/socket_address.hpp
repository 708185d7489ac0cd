// A listening address as the configuration writes it ("host:port") made an IP address and a
// port, for the sockets that the daemon binds with Asio (line protocol, /metrics).
#pragma once

#include <boost/asio/ip/address.hpp>

#include <string>

namespace warpwatch::stream {

struct SocketAddress {
  boost::asio::ip::address address;
  unsigned short port = 0;
};

// "host:port" with an IP address as the host, "[v6]:port", "localhost:port" (127.0.0.1),
// or ":port" / "*:port" for every IPv4 address; port 0 lets the system choose. Throws
// std::runtime_error saying what is wrong (the configuration has checked the shape already).
SocketAddress parse_socket_address(const std::string& host_port);

}  // namespace warpwatch::stream
