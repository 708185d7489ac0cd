#include <gtest/gtest.h>

#include "gpu_test_support.hpp"

TEST(CudaDevice, RuntimeNamesTheDevice) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  const auto status = warpwatch::kernels::cuda_status();
  EXPECT_TRUE(status.compiled);
  EXPECT_GE(status.device_count, 1);
  EXPECT_NE(status.detail.find("(sm_"), std::string::npos) << status.detail;
}

// `auto` with a device (docs/architecture.md §6.1): fewer pairs than the device needs for
// the shape go to the cpu, more (or an unknown number) to the device, and the log line says
// why.
TEST(CudaDevice, AutoChoosesByPairs) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  using warpwatch::kernels::Backend;
  using warpwatch::kernels::resolve_backend;
  std::string why;
  EXPECT_EQ(resolve_backend(Backend::automatic,
                            {.pairs = 1, .cpu_threads = 16, .longest_pattern = 256}, &why),
            Backend::cpu);
  EXPECT_NE(why.find("1 pair(s) a batch, fewer than the 32 the device needs to beat 16 cpu"),
            std::string::npos)
      << why;
  EXPECT_EQ(resolve_backend(Backend::automatic,
                            {.pairs = 64, .cpu_threads = 16, .longest_pattern = 256}, &why),
            Backend::cuda);
  EXPECT_NE(why.find("starting on the cuda backend"), std::string::npos) << why;
  EXPECT_NE(why.find("64 pair(s) a batch"), std::string::npos) << why;
  EXPECT_EQ(resolve_backend(Backend::automatic, {.pairs = 64, .cpu_threads = 16, .widest_dims = 65},
                            &why),
            Backend::cpu);
  EXPECT_NE(why.find("fewer than the 4096"), std::string::npos) << why;
  EXPECT_EQ(resolve_backend(Backend::automatic, {}, &why), Backend::cuda);
  EXPECT_NE(why.find("pairs not known in advance"), std::string::npos) << why;
  // An explicit backend is never second-guessed.
  EXPECT_EQ(resolve_backend(Backend::cuda, {.pairs = 1, .cpu_threads = 16}), Backend::cuda);
}
