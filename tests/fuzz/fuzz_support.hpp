// What the fuzz targets share: the oracle's check. A failed check prints what failed and
// aborts, so that libFuzzer keeps the input as a finding and the replay test
// (replay_main.cpp) fails on it.
#pragma once

#include <cstdio>
#include <cstdlib>

#define WARPWATCH_FUZZ_CHECK(condition, what)                                                  \
  do {                                                                                         \
    if (!(condition)) {                                                                        \
      std::fprintf(stderr, "fuzz oracle failed at %s:%d: %s (%s)\n", __FILE__, __LINE__, what, \
                   #condition);                                                                \
      std::abort();                                                                            \
    }                                                                                          \
  } while (false)
