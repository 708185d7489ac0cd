# The CUDA backend, compiled into warpwatch_kernels when CMake found nvcc.
# `.cu` files hold device code (C++17: CMake 3.25 knows no CUDA C++20 flag); `.cpp` files
# are host code (C++20) that talks to the runtime through the launchers' headers.
target_sources(warpwatch_kernels PRIVATE
  cuda/runtime/cuda_check.cpp
  cuda/runtime/device_info.cu
  cuda/runtime/device_calibration.cu
  cuda/runtime/device_properties.cpp
  cuda/stream/spring_kernels.cu
  cuda/stream/spring_wavefront.cu
  cuda/stream/spring_wavefront_tiled.cu
  cuda/stream/spring_sweep.cu
  cuda/stream/spring_pairs.cpp
  cuda/distance/warp_distance.cu
  cuda/distance/long_pair_distance.cu
  cuda/distance/generic_distance.cu
  cuda/distance/softdtw_grad.cu
  cuda/distance/elastic_engine.cpp
  cuda/distance/elastic_batch.cpp
  cuda/distance/cuda_distance.cpp
  cuda/window/window_prepare.cu
  cuda/window/window_dtw.cu
  cuda/window/window_ed.cu
  cuda/window/window_search.cpp
  cuda/window/window_inputs.cpp
  cuda/window/window_pairs.cpp
  cuda/device_context.cpp
  cuda/cuda_matcher.cpp)
target_link_libraries(warpwatch_kernels PUBLIC CUDA::cudart_static)
set_target_properties(warpwatch_kernels PROPERTIES
  CUDA_SEPARABLE_COMPILATION OFF
  POSITION_INDEPENDENT_CODE ON)
