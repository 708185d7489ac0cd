// warpwatchd's entry point, callable in-process.
#pragma once

#include <iosfwd>

namespace warpwatch::service {

int run_daemon(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace warpwatch::service
