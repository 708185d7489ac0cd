// The daemon's HTTP server (daemon/service/http/): tokens and roles, problem+json, 404/405, the
// limits (header, body, connections), TLS, the tokens file re-read on reload, and
// GET /api/v1/streams over a real Pipeline; real sockets on 127.0.0.1 throughout.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <boost/asio/ip/tcp.hpp>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "daemon_e2e_support.hpp"
#include "http/http_request.hpp"
#include "log_capture.hpp"
#include "test_support.hpp"
#include "warpwatch/base/sha256.hpp"
#include "warpwatch/bench/loopback.hpp"
#include "warpwatch/plugins/registry.hpp"
#include "warpwatch/service/api_routes.hpp"
#include "warpwatch/service/pipeline.hpp"

namespace {

using namespace warpwatch;
using namespace warpwatch::testing;
namespace http = warpwatch::service::http;

constexpr const char* read_token = "read-token-0123456789";
constexpr const char* write_token = "write-token-9876543210";

config::ApiToken token(std::string name, config::TokenRole role, const std::string& secret) {
  config::ApiToken t;
  t.name = std::move(name);
  t.role = role;
  t.sha256 = stream::sha256(secret);
  return t;
}

config::HttpConfig http_config() {
  config::HttpConfig c;
  c.listen = "127.0.0.1:0";
  c.tokens = {token("reader", config::TokenRole::read, read_token),
              token("writer", config::TokenRole::write, write_token)};
  return c;
}

// A route of each kind; the handlers answer who called.
http::Router test_routes() {
  http::Router r;
  const auto who = [](const http::Request& q) {
    http::Response out;
    out.body = nlohmann::json{{"who", q.who.name}, {"body", q.body}}.dump();
    return out;
  };
  r.add("GET", "/r", who);
  r.add("PUT", "/w/{id}", who);
  r.add("GET", "/open", who, http::Access::open);
  return r;
}

HttpCall call(std::string method, std::string target, const char* bearer = nullptr) {
  HttpCall c;
  c.method = std::move(method);
  c.target = std::move(target);
  if (bearer) c.headers["Authorization"] = std::string("Bearer ") + bearer;
  return c;
}

nlohmann::json problem_of(const HttpReply& r) {
  EXPECT_EQ(r.headers.count("content-type") ? r.headers.at("content-type") : "",
            "application/problem+json");
  return nlohmann::json::parse(r.body);
}

TEST(HttpServer, TokensAndRolesOnReadAndWriteRoutes) {
  CapturedLog log;
  http::Server server(http_config(), test_routes(), log.logger());
  const int port = server.port();
  // A read token: GETs yes, a write route 403.
  EXPECT_EQ(http_call(port, call("GET", "/r", read_token)).status, 200);
  const HttpReply forbidden = http_call(port, call("PUT", "/w/7", read_token));
  EXPECT_EQ(forbidden.status, 403);
  const auto p403 = problem_of(forbidden);
  EXPECT_EQ(p403.at("status"), 403);
  EXPECT_EQ(p403.at("field"), "Authorization");
  EXPECT_NE(p403.at("detail").get<std::string>().find("'reader' has role read"), std::string::npos)
      << forbidden.body;
  // A write token: both; the handler sees who called.
  EXPECT_EQ(http_call(port, call("GET", "/r", write_token)).status, 200);
  HttpCall put = call("PUT", "/w/7", write_token);
  put.body = "payload";
  const HttpReply written = http_call(port, put);
  ASSERT_EQ(written.status, 200) << written.body;
  EXPECT_EQ(nlohmann::json::parse(written.body).at("who"), "writer");
  EXPECT_EQ(nlohmann::json::parse(written.body).at("body"), "payload");
  // No header, an unknown token, another scheme: 401 with WWW-Authenticate: Bearer.
  for (const HttpCall& c : {call("GET", "/r"), call("GET", "/r", "not-a-token"),
                            call("PUT", "/w/7", "read-token-012345678")}) {
    const HttpReply r = http_call(port, c);
    EXPECT_EQ(r.status, 401) << c.method << " " << c.target;
    EXPECT_EQ(r.headers.at("www-authenticate").rfind("Bearer", 0), 0u);
    EXPECT_EQ(problem_of(r).at("field"), "Authorization");
  }
  HttpCall basic = call("GET", "/r");
  basic.headers["Authorization"] = std::string("Basic ") + read_token;
  EXPECT_EQ(http_call(port, basic).status, 401);
  // An open route needs none.
  EXPECT_EQ(http_call(port, call("GET", "/open")).status, 200);
  // (That the comparison takes constant time cannot be tested here: it is
  // equal_in_constant_time, OpenSSL's CRYPTO_memcmp, over every token of the table.)
}

TEST(HttpServer, MetricsAuthPutsTheOpenRoutesBehindTokens) {
  CapturedLog log;
  config::HttpConfig c = http_config();
  c.metrics_auth = true;
  http::Server server(c, test_routes(), log.logger());
  EXPECT_EQ(http_call(server.port(), call("GET", "/open")).status, 401);
  EXPECT_EQ(http_call(server.port(), call("GET", "/open", read_token)).status, 200);
}

TEST(HttpServer, UnknownRoutesAndMethodsAreProblems) {
  CapturedLog log;
  http::Server server(http_config(), test_routes(), log.logger());
  const HttpReply missing = http_call(server.port(), call("GET", "/nothing", read_token));
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(problem_of(missing).at("title"), "Not Found");
  const HttpReply wrong = http_call(server.port(), call("DELETE", "/w/7", write_token));
  EXPECT_EQ(wrong.status, 405);
  EXPECT_EQ(wrong.headers.at("allow"), "PUT");
  EXPECT_EQ(problem_of(wrong).at("status"), 405);
}

TEST(HttpServer, OversizedHeaderIs431AndBodyIs413) {
  CapturedLog log;
  config::HttpConfig c = http_config();
  c.max_header_bytes = 2048;
  c.max_body_bytes = 1000;
  http::Server server(c, test_routes(), log.logger());
  HttpCall big_header = call("GET", "/r", read_token);
  big_header.headers["X-Filler"] = std::string(4096, 'x');
  const HttpReply h = http_call(server.port(), big_header);
  EXPECT_EQ(h.status, 431);
  EXPECT_NE(problem_of(h).at("detail").get<std::string>().find("http.max_header_bytes (2048)"),
            std::string::npos);
  HttpCall big_body = call("PUT", "/w/1", write_token);
  big_body.body = std::string(1001, 'b');
  const HttpReply b = http_call(server.port(), big_body);
  EXPECT_EQ(b.status, 413);
  EXPECT_NE(problem_of(b).at("detail").get<std::string>().find("http.max_body_bytes (1000)"),
            std::string::npos);
  big_body.body.resize(1000);  // at the limit: served
  EXPECT_EQ(http_call(server.port(), big_body).status, 200);
}

TEST(HttpServer, ConnectionsOverTheCapAre503WithRetryAfter) {
  CapturedLog log;
  config::HttpConfig c = http_config();
  c.max_connections = 2;
  http::Server server(c, test_routes(), log.logger());
  boost::asio::io_context io;
  const boost::asio::ip::tcp::endpoint at(boost::asio::ip::make_address("127.0.0.1"),
                                          static_cast<unsigned short>(server.port()));
  std::vector<boost::asio::ip::tcp::socket> idle;
  for (int i = 0; i < 2; ++i) {
    idle.emplace_back(io);
    idle.back().connect(at);  // held open, sending nothing: two connections served
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));  // accepted in order anyway
  const HttpReply over = http_call(server.port(), call("GET", "/r", read_token));
  EXPECT_EQ(over.status, 503);
  EXPECT_EQ(over.headers.at("retry-after"), "1");
  EXPECT_NE(problem_of(over).at("detail").get<std::string>().find("http.max_connections (2)"),
            std::string::npos);
  idle.clear();  // closed: room again (bounded wait for the server to notice)
  int status = 0;
  for (int attempt = 0; attempt < 50 && status != 200; ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    status = http_call(server.port(), call("GET", "/r", read_token)).status;
  }
  EXPECT_EQ(status, 200);
}

TEST(HttpServer, KeepAliveServesSeveralRequestsOnOneConnection) {
  CapturedLog log;
  http::Server server(http_config(), test_routes(), log.logger());
  namespace bhttp = boost::beast::http;
  boost::asio::io_context io;
  boost::beast::tcp_stream stream(io);
  stream.connect(
      {boost::asio::ip::make_address("127.0.0.1"), static_cast<unsigned short>(server.port())});
  boost::beast::flat_buffer buffer;
  for (int i = 0; i < 3; ++i) {
    bhttp::request<bhttp::empty_body> req(bhttp::verb::get, "/r", 11);
    req.set(bhttp::field::authorization, std::string("Bearer ") + read_token);
    req.keep_alive(true);
    bhttp::write(stream, req);
    bhttp::response<bhttp::string_body> res;
    bhttp::read(stream, buffer, res);
    EXPECT_EQ(res.result_int(), 200u) << "request " << i;
    EXPECT_TRUE(res.keep_alive());
  }
}

// http_config() serving TLS with a self-signed certificate and its key, made by openssl in
// `dir`; `names`: the certificate's -subj and any -addext.
config::HttpConfig tls_config(const TempDir& dir, const std::string& names) {
  config::HttpConfig c = http_config();
  c.tls_cert_file = dir.path() + "/cert.pem";
  c.tls_key_file = dir.path() + "/key.pem";
  std::string make = "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 ";
  make.append("-nodes -days 1 ").append(names).append(" -keyout ").append(c.tls_key_file);
  make.append(" -out ").append(c.tls_cert_file).append(" >/dev/null 2>&1");
  if (std::system(make.c_str()) != 0) throw std::runtime_error("failed: " + make);
  return c;
}

TEST(HttpServer, ServesTlsWithASelfSignedCertificateAndRefusesPlainHttp) {
  TempDir dir;
  CapturedLog log;
  const config::HttpConfig c = tls_config(dir, "-subj /CN=127.0.0.1");
  const std::string& cert = c.tls_cert_file;
  http::Server server(c, test_routes(), log.logger());
  HttpCall over_tls = call("GET", "/r", read_token);
  over_tls.tls_ca_file = cert;
  const HttpReply r = http_call(server.port(), over_tls);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(nlohmann::json::parse(r.body).at("who"), "reader");
  // Plain HTTP to the TLS port: the handshake fails and the connection closes, unanswered.
  EXPECT_ANY_THROW(http_call(server.port(), call("GET", "/r", read_token)));
  // A key that is not the certificate's: refused at start, naming the file.
  config::HttpConfig wrong = c;
  wrong.tls_key_file = cert;
  try {
    http::Server bad(wrong, test_routes(), log.logger());
    FAIL() << "a certificate as the key was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("http.tls.key_file '" + cert + "'"), std::string::npos)
        << e.what();
  }
}

// The CLI's client (bench::http_request: `warpwatch explain`, the ingest feedback) over TLS:
// it verifies the chain against the CA file given and the host against the certificate.
TEST(HttpServer, TheCliClientSpeaksTlsAndVerifiesTheCertificateAndTheHost) {
  TempDir dir;
  CapturedLog log;
  const config::HttpConfig c =
      tls_config(dir, "-subj /CN=warpwatchd -addext subjectAltName=IP:127.0.0.1");
  const std::string& cert = c.tls_cert_file;
  http::Server server(c, test_routes(), log.logger());
  const std::vector<std::pair<std::string, std::string>> auth = {
      {"Authorization", std::string("Bearer ") + read_token}};
  const auto timeout = std::chrono::milliseconds(5000);
  std::string why;
  const auto ok = bench::http_get("127.0.0.1", server.port(), "/r", timeout, &why, auth,
                                  bench::HttpTls{true, cert});
  ASSERT_TRUE(ok) << why;
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(nlohmann::json::parse(ok->body).at("who"), "reader");
  // Not trusted (the system's store only): refused in the handshake.
  why.clear();
  EXPECT_FALSE(bench::http_get("127.0.0.1", server.port(), "/r", timeout, &why, auth,
                               bench::HttpTls{true, ""}));
  EXPECT_NE(why.find("TLS handshake"), std::string::npos) << why;
  // Trusted, but not for this name: the certificate names 127.0.0.1 only.
  why.clear();
  EXPECT_FALSE(bench::http_get("localhost", server.port(), "/r", timeout, &why, auth,
                               bench::HttpTls{true, cert}));
  EXPECT_NE(why.find("TLS handshake"), std::string::npos) << why;
  // Plain HTTP to the TLS port: no answer.
  EXPECT_FALSE(bench::http_get("127.0.0.1", server.port(), "/r", timeout, &why, auth));
}

// ---- the daemon's routes over a real Pipeline

config::DaemonConfig streams_config() {
  auto c = base_config({}, {make_pattern("blip", {5.0f, -5.0f}, kernels::Mode::stream, 1.0)});
  c.live.auto_create_streams = true;
  c.live.max_streams = 5000;
  c.http = http_config();
  return c;
}

std::string stream_id(int k) {
  char id[16];
  std::snprintf(id, sizeof(id), "s-%04d", k);
  return id;
}

nlohmann::json get_json(int port, const std::string& target) {
  const HttpReply r = http_call(port, call("GET", target, read_token));
  EXPECT_EQ(r.status, 200) << target << ": " << r.body;
  return nlohmann::json::parse(r.body);
}

TEST(HttpApi, StreamsArePagedAndFilteredOver2500AutoCreatedStreams) {
  CapturedLog log;
  service::Pipeline pipeline(streams_config(), log.logger());
  zmq::context_t ctx;
  Producer push(ctx, pipeline.ingest_endpoints().at(0));
  pipeline.start();
  constexpr int streams = 2500;
  for (int k = 0; k < streams; ++k)
    push.send(stream_id(k), stream::encode_frame(samples_at(0, {1.0f, 2.0f, 3.0f}), false));
  ASSERT_TRUE(step_until(
      pipeline, [&] { return pipeline.stats().samples == 3u * streams; }, 20000ms))
      << log.joined();
  const int port = pipeline.http_port();
  const auto first = get_json(port, "/api/v1/streams");  // the default limit: 100
  EXPECT_EQ(first.at("total"), streams);
  EXPECT_EQ(first.at("streams").size(), 100u);
  EXPECT_EQ(first.at("next_offset"), 100);
  const auto& s0 = first.at("streams").at(0);
  EXPECT_EQ(s0.at("id"), "s-0000");
  EXPECT_EQ(s0.at("dims"), 1);
  EXPECT_EQ(s0.at("samples"), 3);
  EXPECT_EQ(s0.at("backlog"), 0);
  EXPECT_EQ(s0.at("patterns"), 1);
  EXPECT_EQ(s0.at("declared"), false);
  EXPECT_EQ(s0.at("last_ns"), samples_at(0, {1.0f, 2.0f, 3.0f}).times_ns.back());
  // Every stream once over pages of the maximum, in id order; the last page says so.
  std::vector<std::string> seen;
  nlohmann::json next = 0;
  for (int page = 0; page < 10 && !next.is_null(); ++page) {
    const auto p = get_json(port, "/api/v1/streams?limit=1000&offset=" + next.dump());
    EXPECT_LE(p.at("streams").size(), 1000u);
    for (const auto& s : p.at("streams")) seen.push_back(s.at("id"));
    next = p.at("next_offset");
  }
  ASSERT_EQ(seen.size(), static_cast<std::size_t>(streams));
  for (int k = 0; k < streams; ++k) ASSERT_EQ(seen[k], stream_id(k));
  const auto last = get_json(port, "/api/v1/streams?offset=2400&limit=1000");
  EXPECT_EQ(last.at("streams").size(), 100u);
  EXPECT_TRUE(last.at("next_offset").is_null());
  // q: a substring of the id; total counts what passes.
  const auto filtered = get_json(port, "/api/v1/streams?q=s-01&limit=30&offset=90");
  EXPECT_EQ(filtered.at("total"), 100);
  ASSERT_EQ(filtered.at("streams").size(), 10u);
  EXPECT_EQ(filtered.at("streams").at(0).at("id"), "s-0190");
  EXPECT_TRUE(filtered.at("next_offset").is_null());
  EXPECT_EQ(get_json(port, "/api/v1/streams?q=nobody").at("total"), 0);
}

TEST(HttpApi, BadParametersAreProblemsNamingTheParameter) {
  CapturedLog log;
  service::Pipeline pipeline(streams_config(), log.logger());
  const int port = pipeline.http_port();
  for (const auto& [target, field, words] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"/api/v1/streams?limit=abc", "limit", "limit must be an integer, got 'abc'"},
           {"/api/v1/streams?limit=1001", "limit", "between 1 and 1000"},
           {"/api/v1/streams?limit=0", "limit", "between 1 and 1000"},
           {"/api/v1/streams?offset=-1", "offset", "between 0 and"},
           {"/api/v1/streams?q=%zz", "q", "%-escape"}}) {
    const HttpReply r = http_call(port, call("GET", target, read_token));
    EXPECT_EQ(r.status, 400) << target;
    const auto p = problem_of(r);
    EXPECT_EQ(p.at("field"), field) << target;
    EXPECT_EQ(p.at("status"), 400);
    EXPECT_EQ(p.at("title"), "Bad Request");
    EXPECT_NE(p.at("detail").get<std::string>().find(words), std::string::npos) << r.body;
  }
}

TEST(HttpApi, MonitoringRoutesNeedNoTokenAndOpenApiListsEveryRoute) {
  CapturedLog log;
  service::Pipeline pipeline(streams_config(), log.logger());
  const int port = pipeline.http_port();
  EXPECT_EQ(http_call(port, call("GET", "/healthz")).status, 503);  // not started
  pipeline.start();
  pipeline.step();
  EXPECT_EQ(http_call(port, call("GET", "/healthz")).status, 200);
  const HttpReply metrics = http_call(port, call("GET", "/metrics"));
  EXPECT_EQ(metrics.status, 200);
  EXPECT_NE(metrics.body.find("warpwatch_info{"), std::string::npos);
  EXPECT_EQ(http_call(port, call("GET", "/api/v1/openapi.json")).status, 401);
  const auto doc = get_json(port, "/api/v1/openapi.json");
  EXPECT_EQ(doc.at("openapi").get<std::string>().rfind("3.", 0), 0u);
  for (const char* path :
       {"/metrics", "/healthz", "/readyz", "/api/v1/openapi.json", "/api/v1/streams"})
    EXPECT_TRUE(doc.at("paths").contains(path)) << path;
  EXPECT_TRUE(doc.at("components").at("schemas").contains("Problem"));
}

TEST(HttpApi, ReloadAppliesAChangedTokensFile) {
  TempDir dir;
  const auto line = [](const char* name, const char* role, const char* secret) {
    return std::string(name) + " " + role + " " + stream::to_hex(stream::sha256(secret)) + "\n";
  };
  const std::string tokens = dir.write("tokens", line("old", "read", "old-secret"));
  const std::string yaml =
      "streams: {auto_create: true}\nhttp:\n  listen: 127.0.0.1:0\n"
      "  tokens_file: tokens\n";
  const std::string path = dir.write("warpwatch.yaml", yaml);
  CapturedLog log;
  service::Pipeline pipeline(plugins::load_daemon_config(path), log.logger());
  const int port = pipeline.http_port();
  EXPECT_EQ(http_call(port, call("GET", "/api/v1/streams", "old-secret")).status, 200);
  dir.write("tokens", "# rotated\n" + line("new", "read", "new-secret"));
  ASSERT_TRUE(pipeline.reload(path)) << log.joined();
  EXPECT_EQ(http_call(port, call("GET", "/api/v1/streams", "old-secret")).status, 401);
  EXPECT_EQ(http_call(port, call("GET", "/api/v1/streams", "new-secret")).status, 200);
  // A bad tokens file: the reload is refused and the running tokens stay.
  dir.write("tokens", "new read nothex\n");
  EXPECT_FALSE(pipeline.reload(path));
  EXPECT_NE(log.joined().find(dir.path() + "/tokens:1:1:"), std::string::npos) << log.joined();
  EXPECT_EQ(http_call(port, call("GET", "/api/v1/streams", "new-secret")).status, 200);
}

}  // namespace
