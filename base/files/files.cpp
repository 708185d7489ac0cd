// The files the programs write whole: written all or nothing, read whole.
#include "warpwatch/files/files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <sstream>
#include <system_error>
#include <utility>

namespace warpwatch::files {
namespace {

[[noreturn]] void throw_errno(const std::string& what, const std::filesystem::path& path) {
  throw std::system_error(errno, std::generic_category(), what + " '" + path.string() + "'");
}

// A file descriptor closed when it goes.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

}  // namespace

void write_file_atomically(const std::filesystem::path& path, std::string_view bytes) {
  const std::filesystem::path dir =
      path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  // ".<name>.XXXXXX" (appended, not +: GCC 12 warns falsely, -Wrestrict, about + chains)
  std::string name(1, '.');
  name.append(path.filename().string()).append(".XXXXXX");
  std::string temp = (dir / name).string();
  Fd fd(::mkstemp(temp.data()));
  if (fd.get() < 0) throw_errno("cannot create a temporary file beside", path);
  try {
    for (std::size_t at = 0; at < bytes.size();) {
      const ssize_t n = ::write(fd.get(), bytes.data() + at, bytes.size() - at);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw_errno("cannot write", temp);
      at += static_cast<std::size_t>(n);
    }
    if (::fsync(fd.get()) != 0) throw_errno("cannot fsync", temp);
    if (::close(fd.release()) != 0) throw_errno("cannot close", temp);
    if (::rename(temp.c_str(), path.c_str()) != 0) throw_errno("cannot rename onto", path);
  } catch (...) {
    ::unlink(temp.c_str());
    throw;
  }
  // The rename is durable once the folder is.
  Fd folder(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (folder.get() < 0 || ::fsync(folder.get()) != 0)
    throw_errno("cannot fsync the folder of", path);
}

std::string read_whole_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw_errno("cannot open", path);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (in.bad()) throw_errno("cannot read", path);
  return std::move(bytes).str();
}

}  // namespace warpwatch::files
