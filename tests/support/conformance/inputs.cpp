// Conformance suite (overview: conformance.hpp): random walks.
#include <random>
#include <vector>

#include "conformance.hpp"

namespace warpwatch::testing::conformance {

// `length` x `dims` values: each component a random walk from N(0, 1) with N(0, step) steps.
std::vector<float> random_walk(std::mt19937_64& rng, std::size_t length, std::size_t dims,
                               float step) {
  std::normal_distribution<float> start(0.0f, 1.0f), delta(0.0f, step);
  std::vector<float> v(length * dims);
  for (std::size_t k = 0; k < dims; ++k) {
    float x = start(rng);
    for (std::size_t i = 0; i < length; ++i) {
      if (i > 0) x += delta(rng);
      v[i * dims + k] = x;
    }
  }
  return v;
}

std::string to_string(Chunking c) {
  switch (c) {
    case Chunking::one_sample:
      return "one sample per batch";
    case Chunking::small_random:
      return "random chunks of 0..9";
    case Chunking::large_random:
      return "random large chunks";
    case Chunking::one_big:
      return "one big batch";
    case Chunking::pipelined:
      return "random chunks of 0..9, two batches outstanding";
  }
  return "?";
}

const std::vector<Chunking>& all_chunkings() {
  static const std::vector<Chunking> all{Chunking::one_sample, Chunking::small_random,
                                         Chunking::large_random, Chunking::one_big,
                                         Chunking::pipelined};
  return all;
}

}  // namespace warpwatch::testing::conformance
