// Files written whole by the programs (checkpoints, reports, learnt libraries, events of a
// backtest): all or nothing, so that a reader or a crash never sees half of one.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace warpwatch::files {

// Replaces `path` atomically: the bytes go to a temporary file in the same folder, which is
// fsynced, renamed over `path`, and the folder fsynced, so that a crash at any point leaves
// the old file or the new one whole. Throws std::system_error naming the path on failure
// (the temporary file is removed).
void write_file_atomically(const std::filesystem::path& path, std::string_view bytes);
// The whole file; std::system_error naming the path when it cannot be read.
std::string read_whole_file(const std::filesystem::path& path);

}  // namespace warpwatch::files
