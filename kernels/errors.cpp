#include "warpwatch/kernels/errors.hpp"

#include <cstdio>
#include <cstdlib>

namespace warpwatch::kernels {

void assertion_failed(const char* condition, const char* file, int line,
                      const std::string& message) {
  std::fprintf(stderr, "warpwatch: internal error at %s:%d: %s: %s\n", file, line, condition,
               message.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace warpwatch::kernels
