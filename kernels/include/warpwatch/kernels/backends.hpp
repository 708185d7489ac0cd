// Which matching backends this build has and whether a CUDA device is usable.
// This is the only interface that knows whether CUDA was compiled in.
#pragma once

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "warpwatch/kernels/matcher.hpp"
#include "warpwatch/kernels/params.hpp"
#include "warpwatch/kernels/series.hpp"
#include "warpwatch/kernels/top_windows.hpp"

namespace warpwatch::kernels {

enum class Backend { reference, cpu, cuda, automatic };

std::string_view to_string(Backend b);
std::optional<Backend> parse_backend(std::string_view s);  // "auto" -> automatic

struct CudaStatus {
  bool compiled = false;  // the CUDA backend is part of this build
  int device_count = 0;   // usable devices (0 when none or when not compiled)
  std::string detail;     // device name, or why none is usable
  // Device 0, when usable: what the benchmark's ceiling column is computed from.
  int sm_count = 0;
  int clock_khz = 0;              // SM clock
  int fp32_lanes_per_sm = 0;      // FP32 lanes per SM
  double memory_bytes_per_s = 0;  // peak DRAM bandwidth
  std::size_t memory_bytes = 0;   // total device memory
};

// Asks the CUDA runtime (when compiled in); never throws.
CudaStatus cuda_status();

// FP32 lanes an SM of compute capability major.minor has: its results of 32-bit float add,
// multiply or multiply-add per clock (the CUDA programming guide's throughput table; the
// bench's nominal ceiling is SMs x this x clock). 128 for capabilities newer than the table.
int fp32_lanes_per_sm(int major, int minor);

// Measured on device 0 (about a second): independent float32 adds per second, adds
// interleaved with mins (2 ops a step) per second, and the bytes a device-to-device copy
// reads and writes per second. nullopt without a usable device.
struct CudaFloatOpRates {
  double add_per_s = 0.0;
  double add_min_per_s = 0.0;
  double copy_bytes_per_s = 0.0;
};
std::optional<CudaFloatOpRates> cuda_float_op_rates();

// Device-side times of one call, measured with CUDA events (cuda backend only).
struct DeviceTimings {
  double kernel_seconds = 0.0;   // the kernels alone
  double copy_seconds = 0.0;     // host <-> device copies
  std::size_t device_bytes = 0;  // device memory the call used at its peak
};

// What `auto` knows of the work before it starts: the (stream, pattern) pairs a batch runs,
// the longest pattern and the widest sample, and the cpu backend's threads.
struct WorkShape {
  std::optional<std::size_t> pairs;  // nullopt: not known in advance (auto-created streams)
  unsigned cpu_threads = 0;          // 0 = one per hardware thread
  std::size_t longest_pattern = 0;   // rows of the longest pattern of a pair
  std::size_t widest_dims = 1;       // the largest d of a pair
  std::size_t chunk = 0;             // samples per stream per batch; 0 = not known
};

struct BackendOptions {
  unsigned cpu_threads = 0;          // cpu backend: worker threads, 0 = one per hardware thread
  DeviceTimings* timings = nullptr;  // cuda backend: filled by distance_matrix when set
  // auto with a usable device: the work's expected shape, which picks the backend its pairs
  // start on (each batch then runs on the one its own shape picks; cpu_threads is this
  // struct's).
  WorkShape shape{};
  // cuda (and auto's cuda): the CUDA devices to use (cuda.devices), each at most once; empty =
  // every usable device. With several, a Matcher is a cuda backend a device behind a
  // sharded matcher (sharded_matcher.hpp; auto: the cpu and that, switching between them),
  // and distance_matrix splits A's rows across them.
  std::vector<int> devices{};
};

// The devices `listed` names (empty: every usable one, 0 .. device_count - 1), checked:
// std::invalid_argument naming the first index that is negative, repeated, or not below
// `device_count`.
std::vector<int> cuda_device_list(std::span<const int> listed, int device_count);

// `auto`'s rule (docs/architecture.md §6.1), from bench --case stream_matrix on the H100
// and its 16-core host: one pair runs on one core of the cpu (1.1-1.9e9 cells/s) and on one
// warp of the device (4e6-8e8 for patterns of up to 512 rows), so cuda needs at least
// 2 x (cpu threads) pairs to win (from 64 pairs on 16 threads: 1.3-21x, all densities); so
// do patterns of up to 64 dims and 512 rows in chunks of 32+ samples (the wavefront holds
// several dimensions too, as far as the device's shared memory goes: the H100's takes
// 512 rows of 64 dims; a device with less sends the largest to the sweep, which this rule
// does not know), patterns of several dims past 512 rows while their 512-row tiles x dims
// is at most 64 (row tiles, pattern rows in shared memory), and patterns of d 1 and
// 513-8192 rows (row tiles: a warp per 512 rows), which over chunks of 512+ samples win
// from one pair. With several dims in chunks under 32 samples or in more tiles, or
// patterns over 8192 rows in chunks of 32+ samples (unknown counts as 32+), a pair runs on
// one device thread (the sweep), and cuda
// needs 256 x (cpu threads) pairs: 64 such pairs run 1.2-50x faster on the cpu. An unknown
// number of pairs goes to the device.
bool cuda_pays_off(const WorkShape& shape);

// Adds the pair of `pattern` with a stream of `stream_dims` to shape (pairs set), when the
// dims agree (the Matcher pairs only those).
inline void count_pair(WorkShape& shape, const PatternDef& pattern, std::size_t stream_dims) {
  if (pattern.dims != stream_dims) return;
  shape.pairs = shape.pairs.value_or(0) + 1;
  shape.longest_pattern = std::max(shape.longest_pattern, pattern.length());
  shape.widest_dims = std::max(shape.widest_dims, pattern.dims);
}

// The backend `requested` resolves to: `automatic` is cuda when a device is usable and the
// shape pays off (above), else cpu; `why` (optional) receives one line saying what was
// chosen and why (for the log: "backend auto: no usable CUDA device (...): using the cpu
// backend (AVX2)"). Without a shape the number of pairs counts as unknown.
Backend resolve_backend(Backend requested, const WorkShape& shape, std::string* why = nullptr);
inline Backend resolve_backend(Backend requested, std::string* why = nullptr) {
  return resolve_backend(requested, WorkShape{}, why);
}

// `auto`'s choice per batch, for a switching matcher of the cpu (0) and cuda (1) backends
// (switching_matcher.hpp): the rule above on the batch's shape (its pairs, its longest
// chunk) with `cpu_threads`, starting on `initial`; it moves to the other backend only
// after kAutoSwitchAfter batches in a row preferred it, so that batches of a varying shape
// near the rule's edge do not move every pair back and forth.
inline constexpr unsigned kAutoSwitchAfter = 8;
std::function<std::size_t(const WorkShape&)> auto_backend_choice(unsigned cpu_threads,
                                                                 std::size_t initial);

// A Matcher of the given backend (resolved as above; `auto` with a usable device is the cpu
// and cuda backends behind one switching matcher, each batch on the one auto_backend_choice
// picks, starting on the one resolve_backend picks for options.shape; cuda over several
// devices (options.devices) is one cuda backend a device behind a sharded matcher, to which
// auto's rule applies as to one device). Throws std::runtime_error when the backend cannot
// be had (not compiled in, no device, a listed device that does not exist).
std::unique_ptr<Matcher> make_matcher(Backend backend, const BackendOptions& options = {});

// The pairwise distance matrix on the given backend (resolved as above):
// out[i * b.size() + j] = distance(a[i], b[j]). cuda: A's rows in blocks of about equal
// cells, a block a device of options.devices, each on a host thread of its own (the same
// results as one device); options.timings gets the slowest device's times.
void distance_matrix(Backend backend, std::span<const SeriesView> a, std::span<const SeriesView> b,
                     const DistanceParams& params, std::span<double> out,
                     const BackendOptions& options = {});

// docs/spec.md §4.2's gradient of softdtw(a[i], b[j]) with respect to a[i]'s values, for every
// pair, on the given backend (resolved as above; params.metric must be softdtw). `out` holds
// the pairs in (i, j) order, pair (i, j) as a[i].length x dims values row-major like
// a[i].values: with the series of A of one length n, the |A| x |B| x n x dims array of
// `warpwatch distance --grad`. Its size must be the samples x dims of all of A times |B|
// (std::invalid_argument otherwise, and for the inputs distance_matrix refuses). A pair
// that no path fits (a band) has the gradient 0. float64 on every backend, within 1e-9 of
// the reference relative to the pair's largest component. The cuda backend fills
// options.timings when set.
void softdtw_grad_matrix(Backend backend, std::span<const SeriesView> a,
                         std::span<const SeriesView> b, const DistanceParams& params,
                         std::span<double> out, const BackendOptions& options = {});

// Starts what `backend` needs before its first call: for cuda the device context (a few
// hundred milliseconds on an H100), so that a command can overlap it with reading its
// input; nothing for the others. Throws what that first call would (no device: the error
// of the cuda backend cannot run).
void prepare_backend(Backend backend);

// docs/spec.md §3.2's top K windows (top_windows.hpp) on any backend; `auto` is the cpu (the
// cuda search covers dtw and dk on one-dimensional series: cuda.hpp). The cuda backend
// fills options.timings when set. A stream-mode pattern: docs/spec.md §3.3's top K
// subsequences, on the reference whatever the backend (options unused).
std::vector<TopWindow> top_windows(Backend backend, const TopWindowsRequest& request,
                                   const BackendOptions& options = {});

}  // namespace warpwatch::kernels
