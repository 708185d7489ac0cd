// `curve:` and `ingest[].server_key_file` (docs/operations.md §6): the keys read
// at load, each error at its file:line:column, and what a reload says waits for a restart.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <string>

#include "cli_test_support.hpp"
#include "config_error_support.hpp"
#include "curve_support.hpp"
#include "in_sub/in_sub.hpp"
#include "test_support.hpp"
#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/plugins/registry.hpp"

namespace {

using namespace warpwatch;
using namespace warpwatch::config;
using warpwatch::testing::expect_config_error;
using warpwatch::testing::TempDir;
using warpwatch::testing::write_allowed;
using warpwatch::testing::write_key_pair;

#define CURVE "curve:\n  secret_key_file: daemon.key\n  allowed_clients_file: clients\n"

using CurveErrorCase = warpwatch::testing::ConfigErrorCase;

const CurveErrorCase curve_errors[] = {
    {"missing_secret", "curve:\n  allowed_clients_file: clients\n", 2, 3,
     "missing required key 'secret_key_file' in 'curve'"},
    {"missing_clients", "curve:\n  secret_key_file: daemon.key\n", 2, 3,
     "missing required key 'allowed_clients_file' in 'curve'"},
    {"empty_section", "curve: {}\n", 1, 8, "missing required key 'secret_key_file'"},
    {"secret_open_to_group",
     "curve:\n  secret_key_file: open.key\n  allowed_clients_file: clients\n", 2, 20,
     "may be read or written by group or others (mode 0640)"},
    {"secret_not_a_key", "curve:\n  secret_key_file: bad.key\n  allowed_clients_file: clients\n", 2,
     20, "bad.key', line 2: not a CURVE key"},
    {"secret_missing", "curve:\n  secret_key_file: none.key\n  allowed_clients_file: clients\n", 2,
     20, "cannot read it"},
    {"clients_empty", "curve:\n  secret_key_file: daemon.key\n  allowed_clients_file: empty\n", 3,
     25, "holds no key: no client could connect"},
    {"clients_bad_line",
     "curve:\n  secret_key_file: daemon.key\n  allowed_clients_file: bad_clients\n", 3, 25,
     "bad_clients', line 3: not a CURVE key"},
    {"sub_without_server_key", CURVE "ingest:\n  - sub: tcp://127.0.0.1:7000\n", 5, 10,
     "with 'curve', a 'sub' entry needs 'server_key_file'"},
    {"server_key_without_curve",
     "ingest:\n  - sub: tcp://127.0.0.1:7000\n    server_key_file: server.pub\n", 3, 5,
     "'server_key_file' needs the 'curve' section"},
    {"server_key_on_pull",
     CURVE "ingest:\n  - pull: tcp://127.0.0.1:7000\n    server_key_file: server.pub\n", 6, 5,
     "'server_key_file' applies to 'sub' entries only"},
    {"server_key_not_a_key",
     CURVE "ingest:\n  - sub: tcp://127.0.0.1:7000\n    server_key_file: bad_clients\n", 6, 22,
     "bad_clients', line 3: not a CURVE key"},
};

class CurveConfigError : public ::testing::TestWithParam<CurveErrorCase> {};

// The files the cases name, in the configuration's folder.
void write_curve_files(const TempDir& dir) {
  write_key_pair(dir, "daemon");
  write_key_pair(dir, "server");
  const auto pair = stream::generate_curve_keypair();
  ::chmod(dir.write("open.key", pair.secret_key + "\n").c_str(), 0640);
  ::chmod(dir.write("bad.key", "# a key\noops\n").c_str(), 0600);
  write_allowed(dir, "clients", {pair.public_key});
  dir.write("empty", "# nobody yet\n");
  dir.write("bad_clients", pair.public_key + "\n\n" + pair.public_key + "!\n");
}

TEST_P(CurveConfigError, NamesFileLineAndColumn) {
  const CurveErrorCase& c = GetParam();
  const TempDir dir;
  write_curve_files(dir);
  expect_config_error(dir.write("warpwatch.yaml", c.yaml), c);
}

INSTANTIATE_TEST_SUITE_P(CurveConfig, CurveConfigError, ::testing::ValuesIn(curve_errors),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(CurveConfig, KeysAreReadAtLoad) {
  const TempDir dir;
  const auto daemon = write_key_pair(dir, "daemon");
  const auto server = write_key_pair(dir, "server");
  const auto a = stream::generate_curve_keypair().public_key;
  const auto b = stream::generate_curve_keypair().public_key;
  write_allowed(dir, "clients", {a, b, a});
  const std::string path =
      dir.write("warpwatch.yaml",
                CURVE "ingest:\n  - sub: tcp://127.0.0.1:7000\n    server_key_file: server.pub\n");
  const DaemonConfig c = warpwatch::plugins::load_daemon_config(path);
  EXPECT_TRUE(c.curve.enabled);
  EXPECT_EQ(c.curve.keys, daemon.keys);
  EXPECT_EQ(c.curve.secret_key_file, dir.file("daemon.key"));
  EXPECT_EQ(c.curve.allowed_clients, (std::vector<std::string>{a, b}));
  EXPECT_EQ(c.ingest.at(0).options_as<warpwatch::plugins::in_sub::SubOptions>().server_key,
            server.keys.public_key);
  const auto summary = warpwatch::testing::run_cli({"check-config", path});
  EXPECT_EQ(summary.status, 0) << summary.err;
  EXPECT_NE(summary.out.find("curve on: the daemon's public key " + daemon.keys.public_key +
                             ", 2 client key(s) allowed\n"),
            std::string::npos)
      << summary.out;

  EXPECT_FALSE(warpwatch::plugins::load_daemon_config(dir.write("plain.yaml", "instance: x\n"))
                   .curve.enabled);
}

TEST(CurveConfig, KeyChangesWaitForARestartTheListDoesNot) {
  const TempDir dir;
  write_key_pair(dir, "daemon");
  write_key_pair(dir, "other");
  write_allowed(dir, "clients", {stream::generate_curve_keypair().public_key});
  write_allowed(dir, "more", {stream::generate_curve_keypair().public_key});
  const DaemonConfig running = warpwatch::plugins::load_daemon_config(dir.write("a.yaml", CURVE));
  const auto changed = [&](const std::string& yaml) {
    return startup_options_changed(
        running, warpwatch::plugins::load_daemon_config(dir.write("b.yaml", yaml)));
  };
  EXPECT_TRUE(
      changed("curve:\n  secret_key_file: daemon.key\n  allowed_clients_file: more\n").empty());
  EXPECT_EQ(changed("curve:\n  secret_key_file: other.key\n  allowed_clients_file: clients\n"),
            std::vector<std::string>{"curve.secret_key_file"});
  EXPECT_EQ(changed("instance: warpwatch\n"),
            (std::vector<std::string>{"curve", "curve.secret_key_file"}));
}

}  // namespace
