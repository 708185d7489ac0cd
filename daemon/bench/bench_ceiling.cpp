// The ceiling column of `warpwatch bench` on a CPU: the peak rate of simple float32
// operations, measured by a loop the compiler vectorizes. A DP cell update is a handful of
// such operations (docs/architecture.md: 4 for dtw), so this rate divided by the operations a cell
// costs is the most cells/s the machine could do if nothing but arithmetic counted.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "bench_internal.hpp"

namespace warpwatch::bench {
namespace {

// `lanes` independent accumulators, each updated by an add and a min per iteration. The
// compiler keeps them in vector registers: enough independent chains to cover the
// latency of both operations, few enough that none spills to memory.
template <int lanes>
[[gnu::always_inline]] inline float spin(std::uint64_t iterations, float step, float cap) {
  alignas(64) float acc[lanes];
  for (int k = 0; k < lanes; ++k) acc[k] = static_cast<float>(k) * 1e-3f;
  for (std::uint64_t i = 0; i < iterations; ++i)
    for (int k = 0; k < lanes; ++k) acc[k] = std::min(acc[k] + step, cap);
  float sum = 0.0f;
  for (int k = 0; k < lanes; ++k) sum += acc[k];
  return sum;
}

struct Spinner {
  float (*run)(std::uint64_t, float, float);
  int lanes;
};

// The build targets baseline x86-64 (SSE2), but the cpu backend dispatches at run time to
// the widest vectors the CPU has; the ceiling must use the same width, or it would be
// understated by 2-4x. One copy of the loop per vector width, chosen by what the CPU says
// it supports.
#if defined(__x86_64__) && defined(__GNUC__)
[[gnu::target("avx512f"), gnu::noinline]] float spin_avx512(std::uint64_t n, float s, float c) {
  return spin<256>(n, s, c);  // 16 of the 32 zmm registers
}
[[gnu::target("avx2"), gnu::noinline]] float spin_avx2(std::uint64_t n, float s, float c) {
  return spin<64>(n, s, c);  // 8 of the 16 ymm registers
}
#endif
[[gnu::noinline]] float spin_baseline(std::uint64_t n, float s, float c) {
  return spin<32>(n, s, c);  // 8 of the 16 xmm (or NEON q) registers
}

Spinner best_spinner() {
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return {spin_avx512, 256};
  if (__builtin_cpu_supports("avx2")) return {spin_avx2, 64};
#endif
  return {spin_baseline, 32};
}

// Operations per second of `threads` threads each running `iterations` iterations.
double spin_rate(const Spinner& spinner, unsigned threads, std::uint64_t iterations) {
  std::vector<std::thread> workers;
  std::vector<float> sums(threads);
  std::atomic<unsigned> ready{0};
  std::atomic<bool> go{false};
  for (unsigned t = 0; t < threads; ++t)
    workers.emplace_back([&, t] {
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      // The loop's result is used (summed into `sink` below), so it cannot be elided.
      sums[t] = spinner.run(iterations, 1e-3f * static_cast<float>(1 + t % 2), 1e30f);
    });
  while (ready.load() < threads) std::this_thread::yield();
  const auto start = std::chrono::steady_clock::now();
  go.store(true, std::memory_order_release);
  for (auto& w : workers) w.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  volatile float sink = 0.0f;
  for (float s : sums) sink = sink + s;
  const double ops_per_iteration = 2.0 * spinner.lanes;  // an add and a min per lane
  return ops_per_iteration * static_cast<double>(iterations) * threads / seconds;
}

}  // namespace

double calibrate_float_ops(unsigned threads, double seconds) {
  const Spinner spinner = best_spinner();
  threads = std::max(threads, 1u);
  // Size the loop from a short probe on one thread so each run lasts about `seconds`.
  const std::uint64_t probe = 200'000;
  const double probe_rate = spin_rate(spinner, 1, probe);
  const auto iterations = std::max<std::uint64_t>(
      probe, static_cast<std::uint64_t>(probe_rate * seconds / (2.0 * spinner.lanes)));
  // The ceiling is a peak: the best of three, so one preempted run does not lower it.
  double best = 0.0;
  for (int run = 0; run < 3; ++run) best = std::max(best, spin_rate(spinner, threads, iterations));
  return best;
}

double calibrate_copy_bandwidth(unsigned threads) {
  threads = std::max(threads, 1u);
  // Each thread reads and writes back its own 64 MiB, in place, as a batch does with the
  // pairs' state (a copy between two buffers understates it on some machines).
  constexpr std::size_t floats = (std::size_t{64} << 20) / sizeof(float);
  std::vector<std::vector<float>> buffers(threads, std::vector<float>(floats, 1.0f));
  double best = 0.0;
  for (int run = 0; run < 3; ++run) {
    const auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> workers;
    for (unsigned t = 0; t < threads; ++t)
      workers.emplace_back([&, t] {
        float* x = buffers[t].data();
        for (std::size_t i = 0; i < floats; ++i) x[i] = x[i] * 0.5f + 0.5f;  // stays 1
      });
    for (auto& w : workers) w.join();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = std::max(best, 2.0 * sizeof(float) * static_cast<double>(floats) * threads / seconds);
  }
  volatile float sink = buffers[0][floats / 2];  // the updates are used
  (void)sink;
  return best;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) != 0) continue;
    const auto value = line.find_first_not_of(" \t", line.find(':') + 1);
    if (line.find(':') != std::string::npos && value != std::string::npos)
      return line.substr(value);
  }
  return "unknown";
}

}  // namespace warpwatch::bench
