// `warpwatch tail`: print the events a daemon publishes.
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include <chrono>
#include <ostream>
#include <vector>

#include "commands.hpp"

namespace warpwatch::cli {

CLI::App* add_tail_command(CLI::App& app, TailCommand& cmd) {
  auto* sub =
      app.add_subcommand("tail", "print events published by a daemon, one JSON object per line");
  sub->add_option("--endpoint", cmd.endpoint, "the daemon's PUB endpoint")->capture_default_str();
  sub->add_option("--topic", cmd.topic,
                  "topic prefix: \"<rule>/\" or \"<rule>/<stream>\"; empty = all")
      ->capture_default_str();
  sub->add_option("--count", cmd.count, "exit after this many events (0 = never)")
      ->capture_default_str();
  sub->add_option("--idle-exit-ms", cmd.idle_exit_ms,
                  "exit after this long without an event (0 = never)")
      ->capture_default_str();
  sub->add_flag("--topics", cmd.show_topic, "print the topic before each event");
  add_curve_client_options(*sub, cmd.curve);
  return sub;
}

int run_tail(const TailCommand& cmd, std::ostream& out, std::ostream& err) {
  zmq::context_t context;
  zmq::socket_t socket(context, zmq::socket_type::sub);
  if (const auto curve = curve_client(cmd.curve)) stream::apply_curve(socket, *curve);
  socket.set(zmq::sockopt::subscribe, cmd.topic);
  socket.connect(cmd.endpoint);
  std::uint64_t seen = 0;
  auto last = std::chrono::steady_clock::now();
  std::vector<zmq::message_t> parts;
  while (cmd.count == 0 || seen < cmd.count) {
    zmq::pollitem_t item{socket.handle(), 0, ZMQ_POLLIN, 0};
    zmq::poll(&item, 1, std::chrono::milliseconds(100));
    if (!(item.revents & ZMQ_POLLIN)) {
      if (cmd.idle_exit_ms > 0 &&
          std::chrono::steady_clock::now() - last > std::chrono::milliseconds(cmd.idle_exit_ms))
        break;
      continue;
    }
    parts.clear();
    if (!zmq::recv_multipart(socket, std::back_inserter(parts), zmq::recv_flags::dontwait))
      continue;
    last = std::chrono::steady_clock::now();
    if (parts.size() != 2) {
      err << "warpwatch tail: skipped a message of " << parts.size() << " frames\n";
      continue;
    }
    if (cmd.show_topic) out << parts[0].to_string_view() << " ";
    out << parts[1].to_string_view() << std::endl;
    ++seen;
  }
  return 0;
}

}  // namespace warpwatch::cli
