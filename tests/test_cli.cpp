#include <gtest/gtest.h>

#include <sstream>
#include <vector>

#include "warpwatch/daemon/cli.hpp"

namespace {
struct CliResult {
  int status;
  std::string out, err;
};
CliResult run(std::vector<const char*> args) {
  args.insert(args.begin(), "warpwatch");
  std::ostringstream out, err;
  const int status = warpwatch::daemon::run_cli(static_cast<int>(args.size()), args.data(), out, err);
  return {status, out.str(), err.str()};
}
}  // namespace

TEST(Cli, BackendsListsReferenceAndCuda) {
  const auto r = run({"backends"});
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("reference: available"), std::string::npos);
  EXPECT_NE(r.out.find("cuda: "), std::string::npos);
}

TEST(Cli, UnknownVerbIsAnError) {
  EXPECT_NE(run({"frobnicate"}).status, 0);
  EXPECT_NE(run({}).status, 0);
}

TEST(Cli, VerbNotImplementedYetSaysSoAndFails) {
  const auto r = run({"tail", "--endpoint", "tcp://127.0.0.1:5556"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("not implemented yet"), std::string::npos);
}
