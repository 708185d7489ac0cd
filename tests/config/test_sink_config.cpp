// The alert sinks' configuration (config/sink_config.cpp, options/options_sinks.cpp, http_url.cpp,
// and the sink plugins' rows, daemon/plugins/out_*/):
// URLs, every option read into its value, the defaults, what a reload cannot apply, and
// `warpwatch check-config`'s summary line (the error cases are in test_daemon_config.cpp).
#include <gtest/gtest.h>

#include <filesystem>

#include "cli_test_support.hpp"
#include "out_alertmanager/out_alertmanager.hpp"
#include "out_webhook/out_webhook.hpp"
#include "test_support.hpp"
#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/config/http_url.hpp"
#include "warpwatch/plugins/registry.hpp"

namespace {

using namespace warpwatch::config;
using warpwatch::plugins::out_alertmanager::AlertmanagerOptions;
using warpwatch::plugins::out_webhook::WebhookOptions;
using warpwatch::testing::run_cli;
using warpwatch::testing::TempDir;

TEST(HttpUrl, ReadsHostPortAndTarget) {
  std::string why;
  const auto a = parse_http_url("http://127.0.0.1:9093", &why);
  ASSERT_TRUE(a) << why;
  EXPECT_EQ(a->host, "127.0.0.1");
  EXPECT_EQ(a->port, 9093);
  EXPECT_EQ(a->target, "/");
  EXPECT_FALSE(a->has_query);
  EXPECT_EQ(a->authority(), "127.0.0.1:9093");
  const auto b = parse_http_url("http://hooks.example.org/a/b?token=x%20y", &why);
  ASSERT_TRUE(b) << why;
  EXPECT_EQ(b->host, "hooks.example.org");
  EXPECT_EQ(b->port, 80);
  EXPECT_EQ(b->target, "/a/b?token=x%20y");
  EXPECT_TRUE(b->has_query);
  const auto c = parse_http_url("http://[::1]:8080?q", &why);
  ASSERT_TRUE(c) << why;
  EXPECT_EQ(c->host, "::1");
  EXPECT_EQ(c->target, "/?q");
  EXPECT_EQ(c->authority(), "[::1]:8080");
}

TEST(HttpUrl, RefusesWhatItCannotSend) {
  const std::pair<const char*, const char*> bad[] = {
      {"https://a/", "not https"},
      {"ftp://a/", "must start with http://"},
      {"http://", "has no host"},
      {"http://:80/", "has no host"},
      {"http://a:/", "has an empty port"},
      {"http://a:65536/", "not 1 to 65535"},
      {"http://a:8x/", "not 1 to 65535"},
      {"http://u@a/", "user:password@"},
      {"http://a/b c", "spaces"},
      {"http://a/#top", "#fragment"},
      {"http://::1:80/", "brackets around an IPv6 address"},
      {"http://[::1/", "unclosed '['"},
      {"http://[::1]x/", "text after ']'"},
  };
  for (const auto& [text, reason] : bad) {
    std::string why;
    EXPECT_FALSE(parse_http_url(text, &why)) << text;
    EXPECT_NE(why.find(reason), std::string::npos) << text << ": " << why;
  }
}

TEST(SinkConfig, EveryOptionReadsIntoItsValue) {
  const TempDir dir;
  dir.write("hook.secret", "s3cret\r\n\n");  // `echo`'s line breaks are not the key's
  const std::string path = dir.write("warpwatch.yaml", R"(rules:
  - {name: hot, labels: {team: ops}, resolve_ms: 60000}
  - name: cold
sinks:
  - alertmanager: http://127.0.0.1:9093/am/
    rules: [hot]
  - webhook: "http://hooks.local:8080/in?token=x"
    name: ops-hook
    rules: ["h*", cold]
    headers: {Authorization: "Bearer t", X-Team: ops}
    queue: 50
    max_batch: 5
    timeout_ms: 750
    max_attempts: 9
    backoff_ms: 20
    max_backoff_ms: 400
    hmac_secret_file: hook.secret
    signature_header: X-Hub-Signature-256
)");
  const DaemonConfig c = warpwatch::plugins::load_daemon_config(path);
  ASSERT_EQ(c.live.rules.size(), 2u);
  EXPECT_EQ(c.live.rules[0].resolve.count(), 60000);
  EXPECT_EQ(c.live.rules[1].resolve.count(), 300000);  // the default: 5 minutes
  ASSERT_EQ(c.sinks.size(), 2u);
  const SinkConfig& am = c.sinks[0];
  EXPECT_EQ(am.kind, "alertmanager");
  const auto& amo = am.options_as<AlertmanagerOptions>();
  EXPECT_EQ(am.sink.name, "alertmanager 127.0.0.1:9093");
  EXPECT_EQ(amo.url.target, "/am/");
  EXPECT_EQ(am.sink.rules, std::vector<std::string>{"hot"});
  EXPECT_TRUE(amo.headers.empty());
  EXPECT_EQ(am.sink.queue, 10000u);
  EXPECT_EQ(amo.max_batch, 100u);
  EXPECT_EQ(am.sink.timeout.count(), 5000);
  EXPECT_EQ(am.sink.max_attempts, 5u);
  EXPECT_EQ(am.sink.backoff.count(), 500);
  EXPECT_EQ(am.sink.max_backoff.count(), 30000);
  EXPECT_EQ(am.where.line, 5);
  const SinkConfig& hook = c.sinks[1];
  EXPECT_EQ(hook.kind, "webhook");
  const auto& ho = hook.options_as<WebhookOptions>();
  EXPECT_EQ(hook.sink.name, "ops-hook");
  EXPECT_EQ(ho.url.authority(), "hooks.local:8080");
  EXPECT_EQ(ho.url.target, "/in?token=x");
  EXPECT_EQ(hook.sink.rules, (std::vector<std::string>{"h*", "cold"}));
  EXPECT_EQ(ho.headers,
            (std::map<std::string, std::string>{{"Authorization", "Bearer t"}, {"X-Team", "ops"}}));
  EXPECT_EQ(hook.sink.queue, 50u);
  EXPECT_EQ(ho.max_batch, 5u);
  EXPECT_EQ(hook.sink.timeout.count(), 750);
  EXPECT_EQ(hook.sink.max_attempts, 9u);
  EXPECT_EQ(hook.sink.backoff.count(), 20);
  EXPECT_EQ(hook.sink.max_backoff.count(), 400);
  EXPECT_EQ(ho.hmac_secret_file, dir.file("hook.secret"));
  EXPECT_EQ(ho.hmac_secret, "s3cret");
  EXPECT_EQ(ho.signature_header, "X-Hub-Signature-256");
}

TEST(SinkConfig, AnEmptySecretFileIsAnError) {
  const TempDir dir;
  dir.write("empty.secret", "\n");
  const std::string path = dir.write(
      "warpwatch.yaml", "sinks:\n  - {webhook: 'http://a/', hmac_secret_file: empty.secret}\n");
  try {
    warpwatch::plugins::load_daemon_config(path);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.where().line, 2);
    EXPECT_EQ(e.where().column, 46);
    EXPECT_NE(std::string(e.what()).find("is empty"), std::string::npos) << e.what();
  }
}

TEST(SinkConfig, WithoutAnAlertmanagerRuleLabelsAreFree) {
  const TempDir dir;
  const std::string path = dir.write(
      "warpwatch.yaml",
      "rules:\n  - {name: r, labels: {team-name: ops}}\nsinks:\n  - webhook: 'http://a/'\n");
  EXPECT_EQ(warpwatch::plugins::load_daemon_config(path).live.rules[0].labels.at("team-name"),
            "ops");
}

TEST(SinkConfig, AReloadNamesChangedSinksAsWaitingForARestart) {
  const TempDir dir;
  const auto a = warpwatch::plugins::load_daemon_config(
      dir.write("a.yaml", "sinks:\n  - webhook: 'http://a/'\n"));
  const auto b = warpwatch::plugins::load_daemon_config(
      dir.write("b.yaml", "sinks:\n  - {webhook: 'http://a/', queue: 7}\n"));
  const auto moved = warpwatch::plugins::load_daemon_config(
      dir.write("c.yaml", "instance: warpwatch\nsinks:\n  - webhook: 'http://a/'\n"));
  EXPECT_EQ(startup_options_changed(a, b), std::vector<std::string>{"sinks"});
  EXPECT_TRUE(startup_options_changed(a, moved).empty());  // only its place in the file moved
}

TEST(SinkConfig, CheckConfigSummarizesSinksWithoutSecrets) {
  const TempDir dir;
  dir.write("hook.secret", "s3cret");
  const std::string path =
      dir.write("warpwatch.yaml",
                "sinks:\n  - alertmanager: http://127.0.0.1:9093\n"
                "  - {webhook: 'http://h:81/p?token=tok', headers: {Authorization: 'Bearer b'},\n"
                "     hmac_secret_file: hook.secret}\n");
  const auto r = run_cli({"check-config", path});
  EXPECT_EQ(r.status, 0) << r.err;
  for (const char* part :
       {"sinks (2)",
        "alertmanager 127.0.0.1:9093: alertmanager at 127.0.0.1:9093, rules *, queue 10000, "
        "batch 100, timeout 5000 ms, 5 attempts, backoff 500-30000 ms",
        "webhook h:81: webhook at h:81", "headers Authorization, signed (X-Warpwatch-Signature)"})
    EXPECT_NE(r.out.find(part), std::string::npos) << part << "\n" << r.out;
  for (const char* secret : {"s3cret", "tok", "Bearer b"})
    EXPECT_EQ(r.out.find(secret), std::string::npos) << secret << "\n" << r.out;
}

}  // namespace
