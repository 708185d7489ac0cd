// The backend factory: the one place with `#if WARPWATCH_HAVE_CUDA` (docs/architecture.md).
#include "warpwatch/kernels/backends.hpp"

#include <algorithm>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/distance_inputs.hpp"
#include "warpwatch/kernels/cpu.hpp"
#include "warpwatch/kernels/reference.hpp"
#include "warpwatch/kernels/sharded_matcher.hpp"
#include "warpwatch/kernels/switching_matcher.hpp"

#if WARPWATCH_HAVE_CUDA
#include "cuda/device_context.hpp"
#include "cuda/runtime/device_info.hpp"
#include "warpwatch/kernels/cuda.hpp"
#endif

namespace warpwatch::kernels {

std::string_view to_string(Backend b) {
  switch (b) {
    case Backend::reference:
      return "reference";
    case Backend::cpu:
      return "cpu";
    case Backend::cuda:
      return "cuda";
    case Backend::automatic:
      return "auto";
  }
  return "?";
}

std::optional<Backend> parse_backend(std::string_view s) {
  for (Backend b : {Backend::reference, Backend::cpu, Backend::cuda, Backend::automatic})
    if (to_string(b) == s) return b;
  return std::nullopt;
}

CudaStatus cuda_status() {
  CudaStatus status;
#if WARPWATCH_HAVE_CUDA
  status.compiled = true;
  status.device_count = cuda::usable_device_count(status.detail);
  if (status.device_count > 0) {
    const cuda::DeviceProperties p = cuda::device_properties();
    status.sm_count = p.sm_count;
    status.clock_khz = p.clock_khz;
    status.fp32_lanes_per_sm = p.fp32_lanes_per_sm;
    status.memory_bytes_per_s = p.memory_bytes_per_s;
    status.memory_bytes = p.memory_bytes;
  }
#else
  status.detail = "this build has no CUDA backend (configured with WARPWATCH_CUDA=OFF or no nvcc)";
#endif
  return status;
}

std::optional<CudaFloatOpRates> cuda_float_op_rates() {
#if WARPWATCH_HAVE_CUDA
  if (cuda_status().device_count == 0) return std::nullopt;
  cuda::DeviceContext& context = cuda::DeviceContext::get();
  const auto lock = context.lock();
  const cuda::FloatOpRates r = cuda::measure_float_op_rates(context.compute().get());
  return CudaFloatOpRates{r.add_per_s, r.add_min_per_s, r.copy_bytes_per_s};
#else
  return std::nullopt;
#endif
}

int fp32_lanes_per_sm(int major, int minor) {
  if (major == 6 && minor == 0) return 64;  // P100
  if (major == 7) return 64;                // Volta (7.0, 7.2), Turing (7.5)
  if (major == 8 && minor == 0) return 64;  // A100; 8.6, 8.7, 8.9 have 128
  return 128;  // Maxwell, Pascal 6.1/6.2, Ampere GA10x, Ada, Hopper, Blackwell
}

namespace {
unsigned cpu_threads_of(const WorkShape& shape) {
  return shape.cpu_threads ? shape.cpu_threads : std::max(1u, std::thread::hardware_concurrency());
}

// Pairs the device needs per cpu thread to beat the cpu: a warp per pair (the register
// wavefront, and the sweep's d = 1 variants at short chunks) or a thread per pair. The kernels'
// limits below are those of docs/architecture.md §6.1.
constexpr std::size_t kPairsPerThreadWarpKernels = 2;
constexpr std::size_t kPairsPerThreadThreadKernels = 256;
constexpr std::size_t kWavefrontRows = 512;     // several dims: one tile up to 512 rows, then
constexpr std::size_t kTiledDimTiles = 64;      // tiles x dims up to 64
constexpr std::size_t kWavefrontDims = 64;      // up to 512 rows
constexpr std::size_t kTiledRows = 8192;        // d 1: row tiles up to 8192 rows
constexpr std::size_t kSweepChunks = 32;        // shorter chunks run on the sweep at any m
constexpr std::size_t kTiledAloneChunks = 512;  // row tiles beat a cpu core pair for pair

std::size_t cuda_min_pairs(const WorkShape& shape) {
  // Short chunks run on the sweep, as fast for long patterns as for shorter ones (but the
  // sweep runs several dimensions a thread a pair); longer chunks on the wavefront, for
  // several dimensions up to 512 rows and 64 dims, then in row tiles while tiles x dims is
  // at most 64 (their pattern rows in the H100's shared memory, with room to spare), for
  // d 1 up to 8192 rows (row tiles).
  const bool long_chunks = shape.chunk == 0 || shape.chunk >= kSweepChunks;
  const bool swept_rows = shape.longest_pattern > kTiledRows && long_chunks;
  const std::size_t tiles = (shape.longest_pattern + kWavefrontRows - 1) / kWavefrontRows;
  const bool swept_dims =
      shape.widest_dims > 1 &&
      (!long_chunks || shape.widest_dims > kWavefrontDims ||
       (tiles > 1 && (tiles * shape.widest_dims > kTiledDimTiles || swept_rows)));
  // A pair in row tiles runs on several warps: over chunks of 512+ samples one pair is
  // already faster there than on a cpu core (1 pair of m 1024: 2.0-3.0e9 cells/s against
  // 1.2-1.9e9 on the H100's host; shorter chunks: 0.8e9 against 1.4e9).
  const bool tiled = shape.widest_dims <= 1 && shape.longest_pattern > kWavefrontRows &&
                     shape.longest_pattern <= kTiledRows;
  if (tiled && shape.chunk >= kTiledAloneChunks) return 1;
  const bool thread_per_pair = swept_dims || swept_rows;
  return (thread_per_pair ? kPairsPerThreadThreadKernels : kPairsPerThreadWarpKernels) *
         cpu_threads_of(shape);
}
}  // namespace

bool cuda_pays_off(const WorkShape& shape) {
  return !shape.pairs || *shape.pairs >= cuda_min_pairs(shape);
}

Backend resolve_backend(Backend requested, const WorkShape& shape, std::string* why) {
  if (requested != Backend::automatic) return requested;
  const CudaStatus cuda = cuda_status();
  if (cuda.device_count == 0) {
    if (why)
      *why =
          "backend auto: " + cuda.detail + ": using the cpu backend (" + cpu::simd_target() + ")";
    return Backend::cpu;
  }
  const unsigned threads = cpu_threads_of(shape);
  const std::string pairs = shape.pairs ? std::to_string(*shape.pairs) + " pair(s) a batch"
                                        : "pairs not known in advance";
  // With a device, each batch then runs where the rule puts its own shape (make_matcher).
  const std::string then =
      "; each batch then runs on the backend the rule picks for its shape, after " +
      std::to_string(kAutoSwitchAfter) + " batches in a row prefer it";
  if (cuda_pays_off(shape)) {
    if (why)
      *why =
          "backend auto: starting on the cuda backend (" + cuda.detail + "; " + pairs + ")" + then;
    return Backend::cuda;
  }
  if (why)
    *why = "backend auto: " + pairs + ", fewer than the " + std::to_string(cuda_min_pairs(shape)) +
           " the device needs to beat " + std::to_string(threads) +
           " cpu threads: starting on the cpu backend (" + cpu::simd_target() + "; " + cuda.detail +
           ")" + then;
  return Backend::cpu;
}

std::vector<int> cuda_device_list(std::span<const int> listed, int device_count) {
  std::vector<int> devices(listed.begin(), listed.end());
  if (devices.empty())
    for (int d = 0; d < device_count; ++d) devices.push_back(d);
  for (std::size_t k = 0; k < devices.size(); ++k) {
    const int d = devices[k];
    if (d < 0 || d >= device_count)
      throw std::invalid_argument("CUDA device " + std::to_string(d) +
                                  " does not exist: " + std::to_string(device_count) +
                                  " usable device(s), 0.." + std::to_string(device_count - 1));
    if (std::find(devices.begin(), devices.begin() + static_cast<std::ptrdiff_t>(k), d) !=
        devices.begin() + static_cast<std::ptrdiff_t>(k))
      throw std::invalid_argument("CUDA device " + std::to_string(d) + " is listed twice");
  }
  return devices;
}

namespace {
// Asked for cuda explicitly, on a machine or build without it: say why, never fall back.
// Returns the devices to use (options.devices checked).
std::vector<int> require_cuda(const BackendOptions& options = {}) {
  const CudaStatus cuda = cuda_status();
  if (cuda.device_count == 0)
    throw std::runtime_error("the cuda backend cannot run: " + cuda.detail);
  try {
    return cuda_device_list(options.devices, cuda.device_count);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(std::string("the cuda backend cannot run: ") + e.what());
  }
}
}  // namespace

std::function<std::size_t(const WorkShape&)> auto_backend_choice(unsigned cpu_threads,
                                                                 std::size_t initial) {
  return [cpu_threads, on = initial, streak = 0u](const WorkShape& batch) mutable {
    WorkShape shape = batch;
    shape.cpu_threads = cpu_threads;
    const std::size_t want = cuda_pays_off(shape) ? 1 : 0;
    streak = want == on ? 0 : streak + 1;
    if (streak >= kAutoSwitchAfter) {
      on = want;
      streak = 0;
    }
    return on;
  };
}

std::unique_ptr<Matcher> make_matcher(Backend backend, const BackendOptions& options) {
  WorkShape shape = options.shape;
  shape.cpu_threads = options.cpu_threads;
  const Backend resolved = resolve_backend(backend, shape);
  if (backend == Backend::automatic && resolved != Backend::reference &&
      cuda_status().device_count > 0) {
    const std::size_t initial = resolved == Backend::cuda ? 1 : 0;
    return make_switching_matcher([options] { return make_matcher(Backend::cpu, options); },
                                  [options] { return make_matcher(Backend::cuda, options); },
                                  auto_backend_choice(options.cpu_threads, initial), initial);
  }
  switch (resolved) {
    case Backend::reference:
      return reference::make_matcher();
    case Backend::cpu:
      return cpu::make_matcher({options.cpu_threads});
    case Backend::cuda:
    case Backend::automatic:
      break;
  }
  const std::vector<int> devices = require_cuda(options);
#if WARPWATCH_HAVE_CUDA
  if (devices.size() == 1)
    return cuda::make_matcher({.window_pruning = true, .device = devices[0]});
  std::vector<BackendFactory> shards;
  for (const int device : devices)
    shards.emplace_back(
        [device] { return cuda::make_matcher({.window_pruning = true, .device = device}); });
  return make_sharded_matcher(std::move(shards));
#else
  throw std::logic_error("unreachable: cuda_status() reports no device without CUDA");
#endif
}

void distance_matrix(Backend backend, std::span<const SeriesView> a, std::span<const SeriesView> b,
                     const DistanceParams& params, std::span<double> out,
                     const BackendOptions& options) {
  if (out.size() != a.size() * b.size())
    throw std::invalid_argument("distance_matrix: output size is not |A| x |B|");
  switch (resolve_backend(backend)) {
    case Backend::reference:
      for (std::size_t i = 0; i < a.size(); ++i)
        for (std::size_t j = 0; j < b.size(); ++j)
          out[i * b.size() + j] = reference::distance(a[i], b[j], params);
      return;
    case Backend::cpu:
      return cpu::distance_matrix(a, b, params, out, {options.cpu_threads});
    case Backend::cuda:
    case Backend::automatic:
      break;
  }
  const std::vector<int> devices = require_cuda(options);
#if WARPWATCH_HAVE_CUDA
  cuda::distance_matrix(a, b, params, out, options.timings, devices);
#endif
}

void softdtw_grad_matrix(Backend backend, std::span<const SeriesView> a,
                         std::span<const SeriesView> b, const DistanceParams& params,
                         std::span<double> out, const BackendOptions& options) {
  common::check_softdtw_grad_inputs(a, b, params, out);
  switch (resolve_backend(backend)) {
    case Backend::reference: {
      const std::vector<std::size_t> rows = common::softdtw_grad_rows(a, b.size());
      std::vector<double> grad;
      for (std::size_t i = 0; i < a.size(); ++i)
        for (std::size_t j = 0; j < b.size(); ++j) {
          reference::softdtw_grad(a[i], b[j], params.cost, params.gamma, params.band, grad);
          std::copy(grad.begin(), grad.end(),
                    out.begin() + static_cast<std::ptrdiff_t>(rows[i] + j * grad.size()));
        }
      return;
    }
    case Backend::cpu:
      return cpu::softdtw_grad_matrix(a, b, params, out, {.threads = options.cpu_threads});
    case Backend::cuda:
    case Backend::automatic:
      break;
  }
  require_cuda();
#if WARPWATCH_HAVE_CUDA
  cuda::softdtw_grad_matrix(a, b, params, out, options.timings);
#endif
}

void prepare_backend(Backend backend) {
  if (backend != Backend::cuda) return;
  require_cuda();
#if WARPWATCH_HAVE_CUDA
  cuda::DeviceContext::get();
#endif
}

std::vector<TopWindow> top_windows(Backend backend, const TopWindowsRequest& request,
                                   const BackendOptions& options) {
  // Stream mode's top K (docs/spec.md §3.3) has one implementation, the reference's.
  if (request.pattern.params.mode == Mode::stream) return reference::top_windows(request);
  switch (backend) {
    case Backend::reference:
      return reference::top_windows(request);
    case Backend::cpu:
    case Backend::automatic:
      return cpu::top_windows(request, {.threads = options.cpu_threads});
    case Backend::cuda:
      break;
  }
  require_cuda();
#if WARPWATCH_HAVE_CUDA
  return cuda::top_windows(request, options.timings);
#else
  return {};  // require_cuda threw
#endif
}

}  // namespace warpwatch::kernels
