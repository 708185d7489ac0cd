# Compile options for project code only (not for third-party headers):
# warnings, warnings-as-errors in CI, and no floating-point contraction, because
# SPEC.md 3.1 requires bit-identical float32 results across backends and a fused
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
