// `warpwatch load`: the load generator (daemon/bench/load_generator.hpp) on a ZeroMQ socket.
#include <signal.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <ostream>
#include <stdexcept>

#include "commands.hpp"
#include "warpwatch/bench/load_generator.hpp"

namespace warpwatch::cli {
namespace {

std::atomic<bool> interrupted{false};
extern "C" void on_interrupt(int) {
  interrupted = true;
}

// SIGINT and SIGTERM end the run (the report is still printed) while it lives.
class InterruptScope {
 public:
  InterruptScope() {
    interrupted = false;
    struct sigaction action {};
    action.sa_handler = on_interrupt;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGINT, &action, &old_int_);
    ::sigaction(SIGTERM, &action, &old_term_);
  }
  ~InterruptScope() {
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
  }
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

}  // namespace

CLI::App* add_load_command(CLI::App& app, LoadCommand& cmd) {
  auto* sub = app.add_subcommand(
      "load", "send generated streams with planted patterns to a daemon, and say what was sent");
  bench::LoadOptions& o = cmd.load;
  sub->add_option("--endpoint", cmd.sink.endpoint, "where to send")->capture_default_str();
  sub->add_flag("--bind", cmd.sink.bind, "bind the endpoint instead of connecting to it");
  sub->add_flag("--pub", cmd.sink.pub,
                "a PUB socket (for a daemon's `sub` source) instead of PUSH; it waits at the "
                "high-water mark instead of dropping");
  sub->add_option("--hwm", cmd.sink.send_hwm,
                  "messages queued on the socket before a send waits (backpressure)")
      ->capture_default_str();
  sub->add_option("--linger-ms", cmd.sink.linger_ms,
                  "at exit, how long to wait for queued messages to be delivered")
      ->capture_default_str();
  sub->add_option("--streams", o.streams, "number of streams")->capture_default_str();
  sub->add_option("--prefix", o.stream_prefix, "stream ids are <prefix><k>, k from 0")
      ->capture_default_str();
  sub->add_option("--rate", o.rate_per_stream,
                  "samples per second per stream; 0 = as fast as possible")
      ->capture_default_str();
  sub->add_option("--frame", o.frame, "samples per message")->capture_default_str();
  sub->add_flag("--text", cmd.text, "text lines (t_ns,v1,...) instead of binary frames");
  sub->add_flag("--explicit-timestamps", cmd.explicit_timestamps,
                "binary frames with one timestamp per sample instead of t0 and a period");
  sub->add_option("--period-ms", cmd.period_ms,
                  "timestamp spacing of the samples (default: 1000 / rate, or 1 ms)");
  sub->add_option("--start-ns", o.t0_ns, "timestamp of sample 0 (default: now)");
  sub->add_option("--patterns", cmd.patterns_path,
                  "series file (as `warpwatch search --patterns` reads) whose series are planted "
                  "in turn; default: built-in shapes");
  sub->add_option("--shapes", cmd.shapes, "built-in shapes to plant (without --patterns)")
      ->capture_default_str();
  sub->add_option("--pattern-length", cmd.pattern_length, "length of the built-in shapes")
      ->capture_default_str();
  sub->add_option("--every", o.every,
                  "an occurrence every this many samples per stream (0 = plant nothing)")
      ->capture_default_str();
  sub->add_option("--jitter", cmd.jitter,
                  "each occurrence moves later by 0..J samples (default: (every - longest "
                  "pattern - 1) / 4)");
  sub->add_option("--noise", o.noise, "noise amplitude: uniform in [-A, A]")->capture_default_str();
  sub->add_option("--seed", o.seed, "seed of the noise, phases and jitters")->capture_default_str();
  sub->add_option("--samples", o.samples_per_stream, "stop after this many samples per stream")
      ->capture_default_str();
  sub->add_option("--total", o.total_samples, "stop after this many samples in all")
      ->capture_default_str();
  sub->add_option("--duration-s", o.duration_s,
                  "stop after this many seconds (without any bound: at SIGINT or SIGTERM)")
      ->capture_default_str();
  sub->add_option("--json", cmd.json_path,
                  "also write what was sent, every planted occurrence included, as JSON");
  sub->add_option("--list", cmd.list, "planted occurrences to print")->capture_default_str();
  add_series_input_options(*sub, cmd.input);
  return sub;
}

int run_load(const LoadCommand& cmd, std::ostream& out, std::ostream& err) {
  bench::LoadOptions o = cmd.load;
  if (cmd.text && cmd.explicit_timestamps)
    throw std::runtime_error("--text and --explicit-timestamps exclude each other");
  o.encoding = cmd.text                  ? bench::LoadEncoding::text
               : cmd.explicit_timestamps ? bench::LoadEncoding::binary_explicit
                                         : bench::LoadEncoding::binary;
  const double period_ms =
      cmd.period_ms.value_or(o.rate_per_stream > 0 ? 1000.0 / o.rate_per_stream : 1.0);
  o.period_ns = period_ms_to_ns(period_ms);
  if (!cmd.patterns_path.empty()) {
    for (const auto& s : load_series_for_cli(cmd.patterns_path, cmd.input, err))
      o.patterns.push_back({s.name, s.dims, s.values});
  } else if (o.every > 0) {
    o.patterns = bench::builtin_patterns(cmd.shapes, cmd.pattern_length, o.seed);
  }
  std::size_t longest = 0;
  for (const auto& p : o.patterns) longest = std::max(longest, p.length());
  o.jitter = cmd.jitter.value_or(o.every > longest + 1 ? (o.every - longest - 1) / 4 : 0);

  std::ofstream json;  // opened first: a bad path fails before the run
  if (!cmd.json_path.empty()) {
    json.open(cmd.json_path);
    if (!json) throw std::runtime_error("cannot write " + cmd.json_path);
  }
  const bench::LoadGenerator generator(std::move(o));
  bench::LoadResult result;
  {
    InterruptScope interrupts;
    bench::ZmqSink sink(cmd.sink);  // closing it waits up to --linger-ms for delivery
    result = generator.run(sink, &interrupted);
  }
  const double cpu = bench::process_cpu_seconds();
  bench::print_load_result(generator, result, out, cmd.list);
  if (json.is_open()) {
    json << bench::load_result_json(generator, result, cpu);
    if (!json.flush()) throw std::runtime_error("cannot write " + cmd.json_path);
  }
  return 0;
}

}  // namespace warpwatch::cli
