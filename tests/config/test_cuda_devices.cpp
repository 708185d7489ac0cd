// cuda.devices (docs/architecture.md §6.2): `all` or a list of device indices, each once; an
// index the machine does not have is refused at start at the entry's file:line:column, when
// the backend may use a device and the device count is known.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli_test_support.hpp"
#include "config_error_support.hpp"
#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/plugins/registry.hpp"

namespace fs = std::filesystem;
using namespace warpwatch::config;
using warpwatch::testing::ConfigErrorCase;
using warpwatch::testing::temp_dir;
using warpwatch::testing::write_file;

namespace {

DaemonConfig parse(const std::string& yaml) {
  return warpwatch::plugins::parse_daemon_config(yaml, "/etc/warpwatch/warpwatch.yaml");
}

const ConfigErrorCase device_errors[] = {
    {"not_a_number", "cuda:\n  devices: [0, one]\n", 2, 16,
     "must be a device index (an integer from 0 to 1023)"},
    {"negative", "cuda:\n  devices: [-1]\n", 2, 13, "must be a device index"},
    {"fraction", "cuda:\n  devices: [0.5]\n", 2, 13, "must be a device index"},
    {"too_large", "cuda:\n  devices: [1024]\n", 2, 13, "must be a device index"},
    {"twice", "cuda:\n  devices: [1, 0, 1]\n", 2, 19, "lists device 1 twice"},
    {"empty_list", "cuda:\n  devices: []\n", 2, 12, "must be `all` or a non-empty list"},
    {"other_word", "cuda:\n  devices: some\n", 2, 12, "must be `all` or a non-empty list"},
};

}  // namespace

TEST(CudaDevicesConfig, AllByDefaultOrTheListedIndicesInOrder) {
  EXPECT_TRUE(parse("instance: a\n").cuda_devices.empty());
  EXPECT_TRUE(parse("cuda:\n  devices: all\n").cuda_devices.empty());
  const DaemonConfig c = parse("cuda:\n  devices: [1, 0, 3]\n");
  EXPECT_EQ(c.cuda_devices, (std::vector<int>{1, 0, 3}));
  ASSERT_EQ(c.cuda_devices_where.size(), 3u);
  EXPECT_EQ(c.cuda_devices_where[2].line, 2);
  EXPECT_EQ(c.cuda_devices_where[2].column, 19);
}

TEST(CudaDevicesConfig, BadListsNameTheirEntry) {
  const fs::path dir = temp_dir("CudaDevicesConfig_BadListsNameTheirEntry");
  for (const ConfigErrorCase& c : device_errors) {
    SCOPED_TRACE(c.name);
    const fs::path path = dir / (std::string(c.name) + ".yaml");
    write_file(path, c.yaml);
    warpwatch::testing::expect_config_error(path.string(), c);
  }
}

TEST(CudaDevicesConfig, AnIndexPastTheMachinesDevicesIsRefusedAtItsEntry) {
  const DaemonConfig c = parse("backend: cuda\ncuda:\n  devices:\n    - 0\n    - 2\n");
  EXPECT_NO_THROW(check_cuda_devices(c, 3));
  try {
    check_cuda_devices(c, 2);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.where().file, "/etc/warpwatch/warpwatch.yaml");
    EXPECT_EQ(e.where().line, 5);
    EXPECT_EQ(e.where().column, 7);
    EXPECT_NE(std::string(e.what()).find("device 2 does not exist: this machine has 2 usable "
                                         "CUDA device(s), 0 to 1"),
              std::string::npos)
        << e.what();
  }
  // Nothing to check against without a usable device, or with a backend that uses none.
  EXPECT_NO_THROW(check_cuda_devices(c, 0));
  EXPECT_NO_THROW(check_cuda_devices(parse("backend: cpu\ncuda:\n  devices: [0, 2]\n"), 2));
  EXPECT_THROW(check_cuda_devices(parse("backend: auto\ncuda:\n  devices: [0, 2]\n"), 2),
               ConfigError);
}

TEST(CudaDevicesConfig, AChangeWaitsForARestart) {
  const DaemonConfig a = parse("cuda:\n  devices: [0]\n");
  const DaemonConfig b = parse("cuda:\n  devices: [0, 1]\n");
  EXPECT_EQ(startup_options_changed(a, b), (std::vector<std::string>{"cuda.devices"}));
  EXPECT_TRUE(startup_options_changed(a, a).empty());
}
