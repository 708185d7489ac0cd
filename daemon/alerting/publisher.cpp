// ZeroMQ PUB + JSON-lines sink for events; see publisher.hpp for the guarantees.
#include "warpwatch/alerting/publisher.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <stdexcept>
#include <system_error>
#include <utility>

namespace warpwatch::alerting {
namespace {

std::string errno_text(int error) {
  return std::system_category().message(error);
}

}  // namespace

Publisher::Publisher(zmq::context_t& context, PublisherOptions options)
    : options_(std::move(options)), socket_(context, zmq::socket_type::pub) {
  start();
}

Publisher::Publisher(PublisherOptions options)
    : options_(std::move(options)),
      owned_context_(std::make_unique<zmq::context_t>(1)),
      socket_(*owned_context_, zmq::socket_type::pub) {
  start();
}

Publisher::~Publisher() {
  if (file_ >= 0) ::close(file_);
}

void Publisher::start() {
  if (!options_.log) options_.log = service::stderr_logger();
  socket_.set(zmq::sockopt::sndhwm, options_.send_high_water_mark);
  // A PUB socket silently discards at the high-water mark; NODROP makes the send fail
  // with EAGAIN instead (with dontwait: at once), which is what lets us count drops.
  socket_.set(zmq::sockopt::xpub_nodrop, 1);
  socket_.set(zmq::sockopt::linger, static_cast<int>(options_.linger.count()));
  if (options_.curve) stream::apply_curve(socket_, *options_.curve);
  try {
    socket_.bind(options_.endpoint);
  } catch (const zmq::error_t& e) {
    throw std::runtime_error("cannot bind the event publisher to '" + options_.endpoint +
                             "': " + e.what());
  }
  endpoint_ = socket_.get(zmq::sockopt::last_endpoint);
}

void Publisher::stop(std::chrono::steady_clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  options_.linger = std::max(left, std::chrono::milliseconds(0));
  socket_.set(zmq::sockopt::linger, static_cast<int>(options_.linger.count()));
}

PublisherCounters Publisher::counters() const {
  PublisherCounters out{published_.load(std::memory_order_relaxed),
                        dropped_.load(std::memory_order_relaxed),
                        file_errors_.load(std::memory_order_relaxed),
                        {}};
  const std::lock_guard lock(by_rule_mu_);
  out.by_rule = by_rule_;
  return out;
}

void Publisher::offer(std::span<const SharedEvent> shared) {
  if (shared.empty()) return;
  std::string lines;
  const std::lock_guard lock(by_rule_mu_);  // held for the batch: sends never block
  for (const SharedEvent& shared_event : shared) {
    const Event& event = *shared_event;
    const std::string payload = to_json(event);
    Delivery& rule = by_rule_[event.rule];
    if (send(event.rule + "/" + event.stream, payload)) {
      published_.fetch_add(1, std::memory_order_relaxed);
      ++rule.published;
    } else {
      dropped_.fetch_add(1, std::memory_order_relaxed);
      ++rule.dropped;
    }
    if (options_.events_file) {
      lines += payload;
      lines += '\n';
    }
  }
  if (options_.events_file) append_to_file(lines);
}

bool Publisher::send(const std::string& topic, const std::string& payload) {
  // cppzmq returns an empty result for EAGAIN and throws for anything else; a signal
  // (the daemon's SIGTERM handler) may interrupt a send, which is simply retried.
  const auto send_frame = [this](const std::string& frame, zmq::send_flags flags) {
    for (;;) {
      try {
        return socket_.send(zmq::buffer(frame), flags).has_value();
      } catch (const zmq::error_t& e) {
        if (e.num() != EINTR) throw;
      }
    }
  };
  if (!send_frame(topic, zmq::send_flags::sndmore | zmq::send_flags::dontwait)) return false;
  // libzmq checks the high-water mark on whole messages, so once the first frame is in
  // the rest is accepted too. Should that ever change, the message is finished anyway:
  // a half-sent message would glue itself to the next event.
  if (!send_frame(payload, zmq::send_flags::dontwait)) send_frame(payload, zmq::send_flags::none);
  return true;
}

void Publisher::append_to_file(const std::string& lines) {
  const std::string& path = *options_.events_file;
  const auto fail = [&](const std::string& what, int error) {
    file_errors_.fetch_add(1, std::memory_order_relaxed);
    if (!file_failing_)
      options_.log->error("events file '{}': {}: {}", path, what, errno_text(error));
    file_failing_ = true;
  };
  if (file_ < 0) {
    file_ = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (file_ < 0) return fail("cannot open", errno);
  }
  // After a torn write, start on a fresh line so the half line stays alone (a reader
  // skips one bad line) instead of corrupting this batch's first event.
  const std::string data = partial_line_ ? "\n" + lines : lines;
  std::size_t written = 0;
  while (written < data.size()) {
    const ssize_t n = ::write(file_, data.data() + written, data.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = n < 0 ? errno : EIO;
      if (written > 0) partial_line_ = data[written - 1] != '\n';
      ::close(file_);  // reopened by the next batch
      file_ = -1;
      return fail("write failed", error);
    }
    written += static_cast<std::size_t>(n);
  }
  partial_line_ = false;
  if (file_failing_) options_.log->info("events file '{}': writing again", path);
  file_failing_ = false;
}

}  // namespace warpwatch::alerting
