# WARPWATCH_FUZZ (`make fuzz`): the whole build instrumented for libFuzzer (coverage, no
# main: -fsanitize=fuzzer-no-link) with AddressSanitizer and UndefinedBehaviorSanitizer, so
# that tests/fuzz/ can link its fuzz_<name> executables with -fsanitize=fuzzer. Needs clang.
option(WARPWATCH_FUZZ "Build the libFuzzer targets of tests/fuzz (clang only)" OFF)
if(WARPWATCH_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "WARPWATCH_FUZZ needs clang (libFuzzer): configure with CXX=clang++")
  endif()
  if(WARPWATCH_HAVE_CUDA)
    message(FATAL_ERROR "WARPWATCH_FUZZ builds the host code only: configure with WARPWATCH_CUDA=OFF")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
                      -fno-omit-frame-pointer)
  add_link_options(-fsanitize=address,undefined)
endif()
