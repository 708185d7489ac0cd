#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "warpwatch/kernels/reference.hpp"

using namespace warpwatch::kernels;

namespace {
SeriesView view(const std::vector<float>& v, std::size_t dims = 1) {
  return SeriesView{v.data(), v.size() / dims, dims, nullptr};
}
}  // namespace

// a = 0 1 2, b = 0 2, sq cost. Cost table c(i,j):   D table:
//        b=0  b=2                                    j=1  j=2
//  a=0    0    4                              i=1     0    4
//  a=1    1    1                              i=2     1    1
//  a=2    4    0                              i=3     5    1
TEST(ReferenceDtw, HandComputedTable) {
  const std::vector<float> a{0, 1, 2}, b{0, 2};
  EXPECT_DOUBLE_EQ(reference::dtw(view(a), view(b), Cost::sq), 1.0);
  // abs cost: c = |a-b|: D(1,1)=0, D(2,1)=1, D(3,1)=3, D(1,2)=2, D(2,2)=1, D(3,2)=1.
  EXPECT_DOUBLE_EQ(reference::dtw(view(a), view(b), Cost::abs), 1.0);
}

TEST(ReferenceDtw, IdenticalSeriesAreAtZero) {
  const std::vector<float> a{3, -1, 4, 1, -5};
  EXPECT_EQ(reference::dtw(view(a), view(a), Cost::sq), 0.0);
}

TEST(ReferenceDtw, NarrowBandForcesTheDiagonal) {
  // With band 0 only the diagonal is allowed: (0-0)^2 + (0-2)^2 + (2-2)^2 = 4.
  // Band 1 admits (1,1) (2,1) (3,2) (3,3), a path of cost 0, as does no band at all.
  const std::vector<float> a{0, 0, 2}, b{0, 2, 2};
  EXPECT_DOUBLE_EQ(reference::dtw(view(a), view(b), Cost::sq, 0.0), 4.0);
  EXPECT_DOUBLE_EQ(reference::dtw(view(a), view(b), Cost::sq, 1.0), 0.0);
  EXPECT_DOUBLE_EQ(reference::dtw(view(a), view(b), Cost::sq), 0.0);
}

TEST(ReferenceDtw, DimensionMismatchThrows) {
  const std::vector<float> a{0, 1, 2, 3}, b{0, 1, 2};
  EXPECT_THROW(reference::dtw(view(a, 2), view(b, 1), Cost::sq), std::invalid_argument);
}
