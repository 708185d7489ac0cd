// Any HTTP request over loopback, plain or TLS, for the tests of warpwatchd's HTTP server
// (Boost.Beast, synchronous, one connection a request): the status, the headers and the body.
#pragma once

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <chrono>
#include <map>
#include <optional>
#include <string>

namespace warpwatch::testing {

struct HttpReply {
  int status = 0;
  std::map<std::string, std::string> headers;  // names in lower case
  std::string body;
};

struct HttpCall {
  std::string method = "GET";
  std::string target = "/";
  std::map<std::string, std::string> headers;
  std::string body;
  std::optional<std::string> tls_ca_file;  // TLS, trusting this certificate (PEM)
};

namespace http_detail {
template <class Stream>
HttpReply exchange(Stream& stream, const HttpCall& call) {
  namespace bhttp = boost::beast::http;
  bhttp::request<bhttp::string_body> request(bhttp::string_to_verb(call.method), call.target, 11);
  request.set(bhttp::field::host, "127.0.0.1");
  for (const auto& [name, value] : call.headers) request.set(name, value);
  request.body() = call.body;
  request.prepare_payload();
  bhttp::write(stream, request);
  boost::beast::flat_buffer buffer;
  bhttp::response_parser<bhttp::string_body> parser;
  parser.body_limit(64 << 20);
  parser.skip(call.method == "HEAD");
  bhttp::read(stream, buffer, parser);
  HttpReply reply;
  reply.status = static_cast<int>(parser.get().result_int());
  for (const auto& field : parser.get()) {
    std::string name(field.name_string());
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    reply.headers[name] = std::string(field.value());
  }
  reply.body = parser.get().body();
  return reply;
}
}  // namespace http_detail

// Throws boost::system::system_error when the server closes or refuses (no HTTP answer).
inline HttpReply http_call(int port, const HttpCall& call) {
  namespace asio = boost::asio;
  namespace beast = boost::beast;
  asio::io_context io;
  beast::tcp_stream tcp(io);
  tcp.expires_after(std::chrono::seconds(10));
  tcp.connect(asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"),
                                      static_cast<unsigned short>(port)));
  if (!call.tls_ca_file) return http_detail::exchange(tcp, call);
  asio::ssl::context tls(asio::ssl::context::tls_client);
  tls.load_verify_file(*call.tls_ca_file);
  tls.set_verify_mode(asio::ssl::verify_peer);
  beast::ssl_stream<beast::tcp_stream> stream(std::move(tcp), tls);
  stream.handshake(asio::ssl::stream_base::client);
  return http_detail::exchange(stream, call);
}

}  // namespace warpwatch::testing
