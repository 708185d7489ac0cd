// The systemd side of sd_notify(3) for tests: a unix datagram socket that receives the
// daemon's "READY=1\nSTATUS=..." messages, as systemd's NOTIFY_SOCKET does.
#pragma once

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>

namespace warpwatch::testing {

class NotifySocket {
 public:
  explicit NotifySocket(std::string path) : path_(std::move(path)) {
    fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (fd_ < 0 || path_.size() >= sizeof(address.sun_path))
      throw std::runtime_error("notify socket: " + path_);
    std::memcpy(address.sun_path, path_.c_str(), path_.size() + 1);
    if (::bind(fd_, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0)
      throw std::runtime_error("cannot bind the notify socket " + path_ + ": " +
                               std::strerror(errno));
  }
  ~NotifySocket() {
    ::close(fd_);
    ::unlink(path_.c_str());
  }
  NotifySocket(const NotifySocket&) = delete;
  NotifySocket& operator=(const NotifySocket&) = delete;

  const std::string& path() const { return path_; }

  // The next datagram, or nullopt when none arrives within `limit`.
  std::optional<std::string> receive(std::chrono::milliseconds limit) {
    pollfd item{fd_, POLLIN, 0};
    if (::poll(&item, 1, static_cast<int>(limit.count())) <= 0) return std::nullopt;
    char buffer[4096];
    const ssize_t n = ::recv(fd_, buffer, sizeof(buffer), 0);
    if (n < 0) return std::nullopt;
    return std::string(buffer, static_cast<std::size_t>(n));
  }
  // Receives until a datagram contains `text` (returned) or `limit` passes (nullopt).
  std::optional<std::string> receive_containing(const std::string& text,
                                                std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return std::nullopt;
      auto message = receive(left);
      if (!message) return std::nullopt;
      if (message->find(text) != std::string::npos) return message;
    }
  }

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace warpwatch::testing
