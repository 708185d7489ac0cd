// Which matching backends this build has and whether a CUDA device is usable.
// This is the only interface that knows whether CUDA was compiled in.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "warpwatch/kernels/matcher.hpp"
#include "warpwatch/kernels/params.hpp"
#include "warpwatch/kernels/series.hpp"

namespace warpwatch::kernels {

enum class Backend { reference, cpu, cuda, automatic };

std::string_view to_string(Backend b);
std::optional<Backend> parse_backend(std::string_view s);  // "auto" -> automatic

struct CudaStatus {
  bool compiled = false;   // the CUDA backend is part of this build
  int device_count = 0;    // usable devices (0 when none or when not compiled)
  std::string detail;      // device name, or why none is usable
};

// Asks the CUDA runtime (when compiled in); never throws.
CudaStatus cuda_status();

struct BackendOptions {
  unsigned cpu_threads = 0;  // cpu backend: worker threads, 0 = one per hardware thread
};

// The backend `requested` resolves to: `automatic` is cuda when a device is usable, else
// cpu; `why` (optional) receives one line saying what was chosen and why.
Backend resolve_backend(Backend requested, std::string* why = nullptr);

// A Matcher of the given backend (resolved as above). Throws std::runtime_error when the
// backend cannot be had (not compiled in, no device, not implemented).
std::unique_ptr<Matcher> make_matcher(Backend backend, const BackendOptions& options = {});

// The pairwise distance matrix on the given backend (resolved as above):
// out[i * b.size() + j] = distance(a[i], b[j]).
void distance_matrix(Backend backend, std::span<const SeriesView> a, std::span<const SeriesView> b,
                     const DistanceParams& params, std::span<double> out,
                     const BackendOptions& options = {});

}  // namespace warpwatch::kernels
