# Decide whether the CUDA backend is built (WARPWATCH_CUDA = AUTO | ON | OFF).
# AUTO builds it when nvcc is found on PATH or in /usr/local/cuda/bin; ON fails clearly
# when it is not; OFF never looks.
string(TOUPPER "${WARPWATCH_CUDA}" WARPWATCH_CUDA)
if(NOT WARPWATCH_CUDA MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "WARPWATCH_CUDA must be AUTO, ON or OFF (got '${WARPWATCH_CUDA}')")
endif()

set(WARPWATCH_HAVE_CUDA OFF)
set(WARPWATCH_CUDA_SUMMARY "")
if(NOT WARPWATCH_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX})
    find_program(WARPWATCH_NVCC nvcc PATHS /usr/local/cuda/bin NO_CACHE)
    if(WARPWATCH_NVCC)
      set(CMAKE_CUDA_COMPILER "${WARPWATCH_NVCC}" CACHE FILEPATH "CUDA compiler")
    endif()
  endif()
  # Ampere and Hopper machine code, plus Hopper PTX that newer GPUs JIT-compile.
  # Override with -DCMAKE_CUDA_ARCHITECTURES=... (CI builds one architecture).
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES "80-real;90-real;90-virtual" CACHE STRING "CUDA architectures")
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    enable_language(CUDA)
    # CMake 3.25 knows no C++20 dialect flag for nvcc; device code is written in C++17.
    set(CMAKE_CUDA_STANDARD 17)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_package(CUDAToolkit REQUIRED)
    set(WARPWATCH_HAVE_CUDA ON)
    set(WARPWATCH_CUDA_SUMMARY " (nvcc ${CMAKE_CUDA_COMPILER_VERSION}, architectures ${CMAKE_CUDA_ARCHITECTURES})")
  elseif(WARPWATCH_CUDA STREQUAL "ON")
    message(FATAL_ERROR
      "WARPWATCH_CUDA=ON but no CUDA compiler was found (looked for nvcc on PATH and in "
      "/usr/local/cuda/bin, and at CUDACXX). Install the CUDA toolkit, point CUDACXX at "
      "nvcc, or configure with -DWARPWATCH_CUDA=OFF (or AUTO) for a CPU-only build.")
  else()
    set(WARPWATCH_CUDA_SUMMARY " (AUTO: no nvcc found)")
  endif()
endif()
