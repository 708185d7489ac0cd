// GPU suites skip (never pass) when this machine has no usable CUDA device.
#pragma once

#include <gtest/gtest.h>

#include "warpwatch/kernels/backends.hpp"

#define WARPWATCH_REQUIRE_CUDA_DEVICE()                                                            \
  do {                                                                                             \
    const auto cuda_status_ = ::warpwatch::kernels::cuda_status();                                 \
    if (cuda_status_.device_count == 0) GTEST_SKIP() << "no CUDA device: " << cuda_status_.detail; \
  } while (0)
