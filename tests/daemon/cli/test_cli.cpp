#include <gtest/gtest.h>

#include "cli_test_support.hpp"
#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/cpu.hpp"

using warpwatch::testing::run_cli;

TEST(Cli, BackendsListsReferenceAndCuda) {
  const auto r = run_cli({"backends"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("reference: available"), std::string::npos);
  EXPECT_NE(r.out.find("cuda: "), std::string::npos);
}

TEST(Cli, UnknownVerbIsAnError) {
  EXPECT_NE(run_cli({"frobnicate"}).status, 0);
  EXPECT_NE(run_cli({}).status, 0);
}

// Each backend says whether it can run here, and why not: nothing says "not implemented".
TEST(Cli, BackendsSayWhetherEachCanRun) {
  const auto r = run_cli({"backends"});
  ASSERT_EQ(r.status, 0);
  EXPECT_EQ(r.out.find("not implemented"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cpu: available, " + warpwatch::kernels::cpu::simd_target()),
            std::string::npos)
      << r.out;
  const warpwatch::kernels::CudaStatus cuda = warpwatch::kernels::cuda_status();
  const std::string want = cuda.device_count > 0 ? "cuda: available, " + cuda.detail
                                                 : "cuda: unavailable: " + cuda.detail;
  EXPECT_NE(r.out.find(want), std::string::npos) << r.out;
}
