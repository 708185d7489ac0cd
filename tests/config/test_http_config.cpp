// `http:` (config/http_config.cpp, the option table's rows): the alias metrics.listen, the rule
// that a listener beyond loopback needs a tokens file, the tokens file's lines, TLS's files,
// the external URL handed to every sink; each error at file:line:column.
#include <gtest/gtest.h>

#include "config_error_support.hpp"
#include "test_support.hpp"
#include "warpwatch/base/sha256.hpp"
#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/plugins/registry.hpp"

namespace {

using namespace warpwatch;
using namespace warpwatch::testing;

const std::string digest_a(64, 'a');

class HttpConfigTest : public ::testing::Test {
 protected:
  void SetUp() override { plugins::register_builtin_plugins(); }
  TempDir dir;
};

TEST_F(HttpConfigTest, ReadsEveryKeyAndTheTokensFile) {
  dir.write("tokens", "# who may call\n\nalice read " + digest_a + "  # ops dashboard\nbob write " +
                          stream::to_hex(stream::sha256("bob's secret")) + "\n");
  dir.write("cert.pem", "-");
  dir.write("key.pem", "-");
  const std::string path = dir.write("warpwatch.yaml", R"(streams: {auto_create: true}
http:
  listen: 0.0.0.0:8443
  tokens_file: tokens
  tls: {cert_file: cert.pem, key_file: key.pem}
  external_url: https://ww.example/
  metrics_auth: true
  max_header_bytes: 4096
  max_body_bytes: 2048
  timeout_ms: 500
  max_connections: 8
sinks:
  - alertmanager: http://127.0.0.1:9093
)");
  const config::DaemonConfig c = plugins::load_daemon_config(path);
  EXPECT_EQ(c.http.listen, "0.0.0.0:8443");
  ASSERT_EQ(c.http.tokens.size(), 2u);
  EXPECT_EQ(c.http.tokens[0].name, "alice");
  EXPECT_EQ(c.http.tokens[0].role, config::TokenRole::read);
  EXPECT_EQ(stream::to_hex(c.http.tokens[0].sha256), digest_a);
  EXPECT_EQ(c.http.tokens[1].role, config::TokenRole::write);
  EXPECT_EQ(c.http.tokens[1].sha256, stream::sha256("bob's secret"));
  EXPECT_EQ(c.http.tls_cert_file, (dir.path() + "/cert.pem"));
  EXPECT_TRUE(c.http.tls());
  EXPECT_EQ(c.http.external_url, "https://ww.example") << "the trailing / is dropped";
  EXPECT_TRUE(c.http.metrics_auth);
  EXPECT_EQ(c.http.max_header_bytes, 4096u);
  EXPECT_EQ(c.http.max_body_bytes, 2048u);
  EXPECT_EQ(c.http.timeout.count(), 500);
  EXPECT_EQ(c.http.max_connections, 8u);
  ASSERT_EQ(c.sinks.size(), 1u);
  EXPECT_EQ(c.sinks[0].sink.external_url, "https://ww.example");
}

TEST_F(HttpConfigTest, DefaultsAndTheAlias) {
  const config::DaemonConfig d =
      plugins::load_daemon_config(dir.write("a.yaml", "streams: {auto_create: true}\n"));
  EXPECT_EQ(d.http.listen, "");
  EXPECT_EQ(d.http.max_header_bytes, 16384u);
  EXPECT_EQ(d.http.max_body_bytes, 1048576u);
  EXPECT_EQ(d.http.max_connections, 64u);
  EXPECT_EQ(d.http.timeout.count(), 10000);
  EXPECT_FALSE(d.http.metrics_auth);
  const config::DaemonConfig alias = plugins::load_daemon_config(
      dir.write("b.yaml", "streams: {auto_create: true}\nmetrics: {listen: 127.0.0.1:9464}\n"));
  EXPECT_EQ(alias.http.listen, "127.0.0.1:9464");
  const config::DaemonConfig both = plugins::load_daemon_config(
      dir.write("c.yaml",
                "streams: {auto_create: true}\nmetrics: {listen: 127.0.0.1:9464}\n"
                "http: {listen: 127.0.0.1:9464}\n"));
  EXPECT_EQ(both.http.listen, "127.0.0.1:9464") << "both, the same: fine";
}

TEST_F(HttpConfigTest, ErrorsNameFileLineColumn) {
  dir.write("tokens", "alice read " + digest_a + "\n");
  const ConfigErrorCase cases[] = {
      {"beyond loopback without tokens",
       "streams: {auto_create: true}\nhttp:\n  listen: 0.0.0.0:9464\n", 3, 11,
       "listens beyond loopback without http.tokens_file"},
      {"the alias beyond loopback without tokens",
       "streams: {auto_create: true}\nmetrics:\n  listen: \"*:9464\"\n", 3, 11,
       "write http.tokens_file (`warpwatch token` makes its lines), or listen on 127.0.0.1"},
      {"alias conflict",
       "streams: {auto_create: true}\nhttp:\n  listen: 127.0.0.1:1\nmetrics:\n  listen: "
       "127.0.0.1:2\n",
       5, 11, "metrics.listen is another name for http.listen, which is '127.0.0.1:1' (at line 3)"},
      {"tls without its key", "streams: {auto_create: true}\nhttp:\n  tls: {cert_file: tokens}\n",
       3, 8, "missing required key 'key_file' in 'http.tls'"},
      {"an unreadable certificate",
       "streams: {auto_create: true}\nhttp:\n  tls: {cert_file: none.pem, key_file: tokens}\n", 3,
       20, "cannot read"},
      {"an external_url without a scheme",
       "streams: {auto_create: true}\nhttp:\n  external_url: ww.example\n", 3, 17,
       "http.external_url must start with http:// or https://"},
      {"a missing tokens file", "streams: {auto_create: true}\nhttp:\n  tokens_file: nowhere\n", 3,
       16, "cannot read tokens file"},
  };
  for (const ConfigErrorCase& c : cases) {
    SCOPED_TRACE(c.name);
    expect_config_error(dir.write("warpwatch.yaml", c.yaml), c);
  }
  // Loopback listens without tokens.
  for (const char* listen : {"127.0.0.1:0", "127.3.2.1:80", "[::1]:9464", "localhost:9464"})
    EXPECT_NO_THROW(plugins::load_daemon_config(dir.write(
        "ok.yaml",
        std::string("streams: {auto_create: true}\nhttp: {listen: \"") + listen + "\"}\n")))
        << listen;
}

TEST_F(HttpConfigTest, ABadTokensLineIsAnErrorAtItsLine) {
  const std::string yaml = "streams: {auto_create: true}\nhttp: {tokens_file: tokens}\n";
  const std::string tokens = (dir.path() + "/tokens");
  const struct {
    std::string text;
    int line;
    std::string message;
  } cases[] = {
      {"# ok\nalice read " + digest_a + "\nbob admin " + digest_a + "\n", 3,
       "token 'bob': role must be 'read' or 'write', got 'admin'"},
      {"alice read\n", 1, "a token line is `NAME ROLE SHA256-HEX` (three words)"},
      {"alice read " + digest_a + " extra\n", 1, "(three words)"},
      {"\n\nalice write 0123\n", 3, "the third word must be the token's SHA-256 as 64 hex digits"},
      {"alice read " + digest_a + "\nalice write " + digest_a + "\n", 2,
       "token name 'alice' is given twice"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    dir.write("tokens", c.text);
    try {
      plugins::load_daemon_config(dir.write("warpwatch.yaml", yaml));
      ADD_FAILURE() << "loaded";
    } catch (const config::ConfigError& e) {
      EXPECT_EQ(e.where().file, tokens);
      EXPECT_EQ(e.where().line, c.line) << e.what();
      EXPECT_EQ(std::string(e.what()).rfind(tokens + ":" + std::to_string(c.line) + ":1: ", 0), 0u)
          << e.what();
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
    }
  }
}

}  // namespace
