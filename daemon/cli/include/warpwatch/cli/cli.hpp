// The `warpwatch` command line (search, distance, replay, tail, check-config, bench,
// backends), callable in-process so tests can run it without spawning a process.
#pragma once

#include <iosfwd>

namespace warpwatch::cli {

// Returns the process exit status: 0 on success, non-zero on any error (usage errors,
// bad input files, verbs not implemented yet).
int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

}  // namespace warpwatch::cli
