# Compile options for project code only (not for third-party headers):
# warnings, warnings-as-errors in CI, and no floating-point contraction, because
# docs/spec.md §3.1 requires bit-identical float32 results across backends and a fused
# multiply-add rounds differently from a multiply followed by an add.
add_library(warpwatch_project_options INTERFACE)
target_compile_options(warpwatch_project_options INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wpedantic -ffp-contract=off>
  $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra,-ffp-contract=off --fmad=false>)
if(WARPWATCH_WERROR)
  target_compile_options(warpwatch_project_options INTERFACE
    $<$<COMPILE_LANGUAGE:CXX>:-Werror>
    $<$<COMPILE_LANGUAGE:CUDA>:-Werror=all-warnings>)
endif()

# Sanitizers (`make test-asan`, `make test-tsan`): "address" is AddressSanitizer with
# UndefinedBehaviorSanitizer (UB stops the program, float-to-int casts out of range
# included: gcc leaves float-cast-overflow out of -fsanitize=undefined), "thread" is
# ThreadSanitizer. Applied to every target of this project (libraries, warpwatchd,
# warpwatch, the test executables) so that the daemon a test starts is sanitized too.
set(WARPWATCH_SANITIZE "" CACHE STRING "Sanitizers: empty (none), address (ASan+UBSan), thread (TSan)")
set_property(CACHE WARPWATCH_SANITIZE PROPERTY STRINGS "" address thread)
if(WARPWATCH_SANITIZE STREQUAL "address")
  set(warpwatch_sanitize_flags -fsanitize=address,undefined,float-cast-overflow
      -fno-sanitize-recover=undefined,float-cast-overflow)
elseif(WARPWATCH_SANITIZE STREQUAL "thread")
  set(warpwatch_sanitize_flags -fsanitize=thread)
elseif(NOT WARPWATCH_SANITIZE STREQUAL "")
  message(FATAL_ERROR "WARPWATCH_SANITIZE is '${WARPWATCH_SANITIZE}': use address, thread or nothing")
endif()
if(warpwatch_sanitize_flags)
  if(WARPWATCH_HAVE_CUDA)
    message(FATAL_ERROR "WARPWATCH_SANITIZE needs WARPWATCH_CUDA=OFF (compute-sanitizer checks the GPU suite)")
  endif()
  add_compile_options(${warpwatch_sanitize_flags} -fno-omit-frame-pointer)
  add_link_options(${warpwatch_sanitize_flags})
endif()
