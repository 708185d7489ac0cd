// `warpwatch token` (daemon/cli/verbs/token_command.cpp): a token on stdout, the tokens file's
// line on stderr, which the configuration reads and the server's table recognizes the token by.
#include <gtest/gtest.h>

#include <regex>

#include "cli_test_support.hpp"
#include "test_support.hpp"
#include "warpwatch/base/sha256.hpp"
#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/service/http_server.hpp"

namespace {

using namespace warpwatch;
using namespace warpwatch::testing;

TEST(TokenCli, PrintsATokenAndItsTokensFileLine) {
  const CliResult r = run_cli({"token", "grafana", "--role", "read"});
  ASSERT_EQ(r.status, 0) << r.err;
  // 32 random bytes, base64url without padding: 43 characters.
  ASSERT_TRUE(std::regex_match(r.out, std::regex("[A-Za-z0-9_-]{43}\n"))) << r.out;
  const std::string token = r.out.substr(0, 43);
  EXPECT_EQ(r.err, "grafana read " + stream::to_hex(stream::sha256(token)) + "\n");
  EXPECT_EQ(r.err.find(token), std::string::npos) << "the token is not in the line";
  // The line is a tokens file's, and the server's table knows the token by it.
  TempDir dir;
  const auto tokens = config::read_tokens_file(dir.write("tokens", r.err), {"x", 1, 1});
  service::http::TokenTable table(tokens);
  const auto who = table.identify(token);
  ASSERT_TRUE(who);
  EXPECT_EQ(who->name, "grafana");
  EXPECT_EQ(who->role, config::TokenRole::read);
  EXPECT_FALSE(table.identify(token.substr(1)));
  // Two tokens differ.
  EXPECT_NE(run_cli({"token", "grafana", "--role", "read"}).out, r.out);
}

// The url-safe alphabet of RFC 4648 §5, without padding: 20 tokens (860 characters, of which
// '-' or '_' are each 1 in 64: none at all has odds of about 1e-12) all match it, and '-' or
// '_' turns up, where plain base64 would write '+' or '/'.
TEST(TokenCli, TokensAreBase64UrlWithoutPadding) {
  bool url_safe_seen = false;
  for (int k = 0; k < 20; ++k) {
    const CliResult r = run_cli({"token", "ci", "--role", "write"});
    ASSERT_EQ(r.status, 0) << r.err;
    ASSERT_TRUE(std::regex_match(r.out, std::regex("[A-Za-z0-9_-]{43}\n"))) << r.out;
    url_safe_seen = url_safe_seen || r.out.find_first_of("-_") != std::string::npos;
  }
  EXPECT_TRUE(url_safe_seen) << "no '-' or '_' in 860 base64url characters";
}

TEST(TokenCli, RefusesAnUnknownRoleAndANameWithSpaces) {
  const CliResult role = run_cli({"token", "ci", "--role", "admin"});
  EXPECT_NE(role.status, 0);
  EXPECT_NE(role.err.find("--role"), std::string::npos) << role.err;
  EXPECT_TRUE(role.out.empty());
  const CliResult name = run_cli({"token", "two words", "--role", "write"});
  EXPECT_NE(name.status, 0);
  EXPECT_NE(name.err.find("one word"), std::string::npos) << name.err;
}

}  // namespace
