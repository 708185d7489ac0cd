// Generated test data shared by the suites that plant patterns in noise: a pattern with
// steep, distinct ends (so the true start and end of an occurrence are the only cheap
// places for the pattern's ends) and time warps of it.
#pragma once

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <vector>

namespace warpwatch::testing {

// 3, -3, one sine period of amplitude 2 over 36 samples, -3, 3 (40 samples).
template <typename T>
std::vector<T> bump_pattern() {
  std::vector<T> p{T(3), T(-3)};
  for (int i = 2; i < 38; ++i)
    p.push_back(static_cast<T>(2.0 * std::sin(2.0 * std::numbers::pi * i / 36.0)));
  p.push_back(T(-3));
  p.push_back(T(3));
  return p;
}

// A time warp of p: `drops` interior samples dropped and `repeats` others repeated (a
// monotone index map), the two samples at each end kept.
template <typename T>
std::vector<T> warp(const std::vector<T>& p, int drops, int repeats, std::mt19937_64& rng) {
  std::vector<int> interior;
  for (int i = 2; i < static_cast<int>(p.size()) - 2; ++i) interior.push_back(i);
  std::shuffle(interior.begin(), interior.end(), rng);
  std::vector<int> times(p.size(), 1);
  for (int k = 0; k < drops; ++k) times[interior[k]] = 0;
  for (int k = drops; k < drops + repeats; ++k) times[interior[k]] = 2;
  std::vector<T> out;
  for (std::size_t i = 0; i < p.size(); ++i) out.insert(out.end(), times[i], p[i]);
  return out;
}

}  // namespace warpwatch::testing
