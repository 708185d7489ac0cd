#include <gtest/gtest.h>

#include "gpu_test_support.hpp"

TEST(CudaDevice, RuntimeNamesTheDevice) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  const auto status = warpwatch::kernels::cuda_status();
  EXPECT_TRUE(status.compiled);
  EXPECT_GE(status.device_count, 1);
  EXPECT_NE(status.detail.find("(sm_"), std::string::npos) << status.detail;
}
