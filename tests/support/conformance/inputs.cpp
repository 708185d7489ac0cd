// Conformance suite (overview: conformance.hpp): random walks.
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <random>
#include <stdexcept>
#include <string>
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

std::size_t test_shrink() {
  static const std::size_t shrink = [] {
    const char* env = std::getenv("WARPWATCH_TEST_SHRINK");
    if (!env || !*env) return std::size_t{1};
    char* end = nullptr;
    const long value = std::strtol(env, &end, 10);
    if (*end != '\0' || value < 1 || value > 64)
      throw std::invalid_argument(std::string("WARPWATCH_TEST_SHRINK=") + env +
                                  ": want an integer from 1 to 64");
    if (value > 1)
      std::cout << "[ shrink   ] WARPWATCH_TEST_SHRINK=" << value
                << ": dense streams and gradient series shorter, no one-sample or small-random "
                   "chunking\n";
    return static_cast<std::size_t>(value);
  }();
  return shrink;
}

std::vector<Chunking> chunkings_to_run(const std::vector<Chunking>& chunkings) {
  if (test_shrink() == 1) return chunkings;
  std::vector<Chunking> kept;
  std::copy_if(chunkings.begin(), chunkings.end(), std::back_inserter(kept),
               [](Chunking c) { return c != Chunking::one_sample && c != Chunking::small_random; });
  if (kept.empty() && !chunkings.empty()) kept.push_back(chunkings.front());
  return kept;
}

}  // namespace warpwatch::testing::conformance
