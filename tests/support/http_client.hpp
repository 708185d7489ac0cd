// A plain HTTP/1.1 GET over loopback with Boost.Beast, for tests of warpwatchd's
// /metrics and /healthz.
#pragma once

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <map>
#include <sstream>
#include <string>

namespace warpwatch::testing {

struct HttpResponse {
  int status = 0;
  std::string content_type;
  std::string body;
};

inline HttpResponse http_get(int port, const std::string& target) {
  namespace http = boost::beast::http;
  using boost::asio::ip::tcp;
  boost::asio::io_context io;
  tcp::socket socket(io);
  socket.connect(
      tcp::endpoint(boost::asio::ip::address_v4::loopback(), static_cast<unsigned short>(port)));
  http::request<http::empty_body> request{http::verb::get, target, 11};
  request.set(http::field::host, "127.0.0.1");
  request.set(http::field::connection, "close");
  http::write(socket, request);
  boost::beast::flat_buffer buffer;
  http::response<http::string_body> response;
  http::read(socket, buffer, response);
  return {static_cast<int>(response.result_int()), std::string(response[http::field::content_type]),
          response.body()};
}

// Prometheus text format -> "name{labels}" -> value; comment lines skipped.
inline std::map<std::string, double> parse_prometheus_text(const std::string& text) {
  std::map<std::string, double> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const std::size_t space = line.rfind(' ');
    out[line.substr(0, space)] = std::stod(line.substr(space + 1));
  }
  return out;
}

}  // namespace warpwatch::testing
