#include <gtest/gtest.h>

#include "cli_test_support.hpp"

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
