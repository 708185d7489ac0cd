// Switching matchers for the conformance suite (kernels/switching_matcher.cpp): two
// backends behind one matcher, with policies that move every stream-mode pair between them
// far more often than auto does, so that each move is compared with the reference.
#pragma once

#include <functional>
#include <memory>
#include <random>
#include <string>
#include <utility>

#include "conformance/conformance.hpp"
#include "warpwatch/kernels/switching_matcher.hpp"

namespace warpwatch::testing {

enum class SwitchEvery { batch, random_batches };

// Backend 0 first, then: every batch on the other backend (batch), or each batch on the
// other one with probability 1/3 (random_batches, from `seed`: each matcher replays the
// same moves).
inline kernels::BackendChoice switch_policy(SwitchEvery every, std::uint64_t seed) {
  if (every == SwitchEvery::batch)
    return [on = std::size_t{0}](const kernels::WorkShape&) mutable { return on ^= 1; };
  return [rng = std::mt19937_64(seed), on = std::size_t{0}](const kernels::WorkShape&) mutable {
    if (std::uniform_int_distribution<int>(0, 2)(rng) == 0) on ^= 1;
    return on;
  };
}

inline conformance::Backend switching_backend(const std::string& name,
                                              conformance::MatcherFactory first,
                                              conformance::MatcherFactory second, SwitchEvery every,
                                              std::uint64_t seed,
                                              conformance::DistanceMatrixFn distances) {
  return conformance::Backend{
      name,
      [=] { return kernels::make_switching_matcher(first, second, switch_policy(every, seed), 0); },
      std::move(distances)};
}

}  // namespace warpwatch::testing
