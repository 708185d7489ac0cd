// Opening output files (results written by array_writer.cpp and npy.cpp) with one error
// message for every way a write fails: "cannot write 'path': <reason from errno>".
#pragma once

#include <fstream>
#include <ios>
#include <string>

namespace warpwatch::config {

// Opens `path` for writing (std::ios::out is implied by std::ofstream) and throws
// std::runtime_error via throw_write_error when it cannot be opened.
std::ofstream open_for_writing(const std::string& path, std::ios::openmode mode);

// Throws std::runtime_error("cannot write 'path'"), followed by strerror(errno) when errno
// is set. open_for_writing clears errno first, so a reason given after a failed open or a
// failed close of its stream comes from the file system, not from an earlier call.
[[noreturn]] void throw_write_error(const std::string& path);

}  // namespace warpwatch::config
