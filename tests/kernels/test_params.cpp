#include <gtest/gtest.h>

#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/params.hpp"

using namespace warpwatch::kernels;

TEST(Params, NamesRoundTrip) {
  for (Metric m : {Metric::dtw, Metric::dk, Metric::softdtw, Metric::twed})
    EXPECT_EQ(parse_metric(to_string(m)), m);
  for (Mode m : {Mode::stream, Mode::window}) EXPECT_EQ(parse_mode(to_string(m)), m);
  for (Cost c : {Cost::sq, Cost::abs}) EXPECT_EQ(parse_cost(to_string(c)), c);
  for (Normalize n : {Normalize::none, Normalize::znorm})
    EXPECT_EQ(parse_normalize(to_string(n)), n);
  EXPECT_EQ(parse_backend("auto"), Backend::automatic);
  EXPECT_EQ(to_string(Metric::twed), "twed");
}

TEST(Params, UnknownNamesAreRejected) {
  EXPECT_FALSE(parse_metric("DTW"));
  EXPECT_FALSE(parse_metric(""));
  EXPECT_FALSE(parse_mode("windows"));
  EXPECT_FALSE(parse_cost("l2"));
  EXPECT_FALSE(parse_backend("gpu"));
}

// The table behind the bench's nominal ceiling (CUDA programming guide, throughput of
// 32-bit float add/multiply/multiply-add per SM per clock).
TEST(Backends, Fp32LanesPerSmFollowTheProgrammingGuide) {
  EXPECT_EQ(fp32_lanes_per_sm(5, 2), 128);  // Maxwell
  EXPECT_EQ(fp32_lanes_per_sm(6, 0), 64);   // P100
  EXPECT_EQ(fp32_lanes_per_sm(6, 1), 128);
  EXPECT_EQ(fp32_lanes_per_sm(7, 0), 64);   // V100
  EXPECT_EQ(fp32_lanes_per_sm(7, 5), 64);   // Turing
  EXPECT_EQ(fp32_lanes_per_sm(8, 0), 64);   // A100
  EXPECT_EQ(fp32_lanes_per_sm(8, 6), 128);  // GA10x
  EXPECT_EQ(fp32_lanes_per_sm(8, 9), 128);  // Ada
  EXPECT_EQ(fp32_lanes_per_sm(9, 0), 128);  // H100
  EXPECT_EQ(fp32_lanes_per_sm(10, 0), 128);
}
