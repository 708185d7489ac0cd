#include "output_file.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace warpwatch::config {

std::ofstream open_for_writing(const std::string& path, std::ios::openmode mode) {
  errno = 0;
  std::ofstream out(path, mode);
  if (!out) throw_write_error(path);
  return out;
}

void throw_write_error(const std::string& path) {
  std::string message = "cannot write '" + path + "'";
  if (errno != 0) {
    message += ": ";
    message += std::strerror(errno);
  }
  throw std::runtime_error(message);
}

}  // namespace warpwatch::config
