// `warpwatch replay`: a series file -> frames on a daemon's PULL socket.
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include <chrono>
#include <ostream>
#include <stdexcept>
#include <vector>

#include "commands.hpp"
#include "ingest_feedback.hpp"
#include "warpwatch/stream/decode/frame.hpp"
#include "warpwatch/stream/sources/replay.hpp"

namespace warpwatch::cli {

CLI::App* add_replay_command(CLI::App& app, ReplayCommand& cmd) {
  auto* sub = app.add_subcommand("replay", "send a series file to a daemon as frames");
  sub->add_option("FILE", cmd.file, "series file (CSV, TSV, .npy); its first series is sent")
      ->required();
  sub->add_option("--endpoint", cmd.endpoint, "the daemon's PULL endpoint")->required();
  sub->add_option("--stream", cmd.stream, "stream id")->required();
  sub->add_option("--rate", cmd.rate_hz, "samples per second; 0 = as fast as possible")
      ->capture_default_str();
  sub->add_option("--period-ms", cmd.period_ms, "timestamp spacing of the samples")
      ->capture_default_str();
  sub->add_option("--start-ns", cmd.start_ns, "timestamp of the first sample")
      ->capture_default_str();
  sub->add_option("--chunk", cmd.chunk, "samples per message")->capture_default_str();
  sub->add_flag("--text", cmd.text, "send text lines (t_ns,v1,...) instead of binary frames");
  add_series_input_options(*sub, cmd.input);
  add_feedback_options(*sub, cmd.feedback);
  return sub;
}

int run_replay(const ReplayCommand& cmd, std::ostream& out, std::ostream& err) {
  if (cmd.chunk == 0) throw std::runtime_error("--chunk must be >= 1");
  const auto series = load_series_for_cli(cmd.file, cmd.input, err);
  const config::LoadedSeries& s = series.front();
  IngestFeedback feedback(cmd.feedback, {cmd.stream});  // the counters before
  zmq::context_t context;
  zmq::socket_t socket(context, zmq::socket_type::push);
  socket.set(zmq::sockopt::linger, 10000);  // deliver what is queued before exiting
  socket.connect(cmd.endpoint);
  const std::int64_t period_ns = period_ms_to_ns(cmd.period_ms);
  stream::Samples all;
  all.dims = s.dims;
  all.values = s.values;
  try {
    all.times_ns = stream::evenly_spaced_times(s.length(), cmd.start_ns, period_ns);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(std::string("--period-ms and --start-ns: ") + e.what());
  }
  const std::size_t messages =
      stream::replay_paced(all, cmd.chunk, cmd.rate_hz, [&](const stream::Samples& part) {
        const std::string text = cmd.text ? stream::encode_text(part) : std::string();
        const std::vector<std::byte> frame =
            cmd.text ? std::vector<std::byte>() : stream::encode_frame(part, false);
        const std::array<zmq::const_buffer, 2> parts = {
            zmq::buffer(cmd.stream),
            cmd.text ? zmq::buffer(text) : zmq::buffer(frame.data(), frame.size())};
        zmq::send_multipart(socket, parts);
        return true;
      });
  socket.close();
  context.close();  // waits up to the linger for what is queued to be delivered
  out << "sent " << s.length() << " samples of " << s.name << " as stream '" << cmd.stream
      << "' in " << messages << " messages to " << cmd.endpoint << "\n";
  return feedback.report(s.length(), out, err);
}

}  // namespace warpwatch::cli
