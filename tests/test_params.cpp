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
