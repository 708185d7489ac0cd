# The CUDA backend, compiled into warpwatch_kernels when CMake found nvcc.
# `.cu` files hold device code (C++17: CMake 3.25 knows no CUDA C++20 flag); `.cpp` files
# are host code (C++20) that talks to the runtime through the launchers' headers.
target_sources(warpwatch_kernels PRIVATE
  cuda/cuda_check.cpp
  cuda/device_info.cu
  cuda/device_calibration.cu
  cuda/spring_kernels.cu
  cuda/spring_wavefront.cu
  cuda/spring_wavefront_tiled.cu
  cuda/spring_pairs.cpp
  cuda/cuda_matcher.cpp
  cuda/warp_distance.cu
  cuda/long_pair_distance.cu
  cuda/generic_distance.cu
  cuda/elastic_engine.cpp
  cuda/elastic_batch.cpp
  cuda/cuda_distance.cpp
  cuda/device_properties.cpp)
target_link_libraries(warpwatch_kernels PUBLIC CUDA::cudart_static)
set_target_properties(warpwatch_kernels PROPERTIES
  CUDA_SEPARABLE_COMPILATION OFF
  POSITION_INDEPENDENT_CODE ON)
