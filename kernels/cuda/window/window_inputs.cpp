#include "cuda/window/window_inputs.hpp"

#include <cuda_runtime.h>

#include <limits>
#include <stdexcept>

#include "cuda/runtime/cuda_check.hpp"

namespace warpwatch::kernels::cuda::detail {

void WindowInputTables::build(std::span<const WindowSearchInput> inputs) {
  window_base.assign(1, 0);
  block_base.assign(1, 0);
  std::uint64_t windows = 0, blocks = 0;
  for (const WindowSearchInput& in : inputs) {
    windows += in.windows;
    blocks += window_moment_blocks(in);
    if (windows > std::numeric_limits<std::uint32_t>::max() / 2 ||
        blocks > std::numeric_limits<std::uint32_t>::max() / 2)
      throw std::invalid_argument("window search on the cuda backend: more than 2^31 windows");
    window_base.push_back(static_cast<std::uint32_t>(windows));
    block_base.push_back(static_cast<std::uint32_t>(blocks));
  }
}

WindowInputs upload_window_inputs(std::span<const WindowSearchInput> inputs,
                                  const WindowInputTables& tables, WindowSearchInput* inputs_dev,
                                  std::uint32_t* tables_dev, window_stream_t stream) {
  const std::size_t count = inputs.size();
  WindowInputs out;
  out.count = static_cast<std::uint32_t>(count);
  out.windows = tables.windows();
  out.blocks = tables.blocks();
  out.inputs = inputs_dev;
  out.window_base = tables_dev;
  out.block_base = tables_dev + count + 1;
  if (count == 0) return out;
  WW_CUDA(cudaMemcpyAsync(inputs_dev, inputs.data(), count * sizeof(WindowSearchInput),
                          cudaMemcpyHostToDevice, stream));
  WW_CUDA(cudaMemcpyAsync(tables_dev, tables.window_base.data(), (count + 1) * 4,
                          cudaMemcpyHostToDevice, stream));
  WW_CUDA(cudaMemcpyAsync(tables_dev + count + 1, tables.block_base.data(), (count + 1) * 4,
                          cudaMemcpyHostToDevice, stream));
  return out;
}

}  // namespace warpwatch::kernels::cuda::detail
