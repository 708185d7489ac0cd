// `warpwatch load`: the load generator (daemon/bench/load_generator.hpp) on a ZeroMQ socket.
#include <signal.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <fstream>
#include <memory>
#include <ostream>
#include <set>
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

// The patterns as a series file of rows (one pattern a row), each float written in its
// shortest form that reads back to the same bits.
void write_pattern_rows(const std::vector<bench::LoadPattern>& patterns, const std::string& path) {
  if (patterns.empty()) throw std::runtime_error("--write-patterns: no patterns to plant");
  std::ofstream file(path);
  if (!file) throw std::runtime_error("cannot write " + path);
  for (const bench::LoadPattern& p : patterns) {
    if (p.dims != 1)
      throw std::runtime_error("--write-patterns writes patterns of 1 dimension, not " +
                               std::to_string(p.dims));
    for (std::size_t i = 0; i < p.values.size(); ++i) {
      char buf[32];
      const auto end = std::to_chars(buf, buf + sizeof buf, p.values[i]).ptr;
      file << (i ? "," : "") << std::string_view(buf, static_cast<std::size_t>(end - buf));
    }
    file << "\n";
  }
  if (!file.flush()) throw std::runtime_error("cannot write " + path);
}

// CURVE: connecting, a client (--key, --server-key); binding, a server (--key,
// --allowed-clients) whose refusals go to `err`.
void sink_security(const LoadCommand& cmd, bench::ZmqSinkOptions& sink, std::ostream& err) {
  if (!cmd.sink.bind) {
    if (!cmd.allowed_clients_file.empty())
      throw std::runtime_error("--allowed-clients goes with --bind (a CURVE server)");
    sink.curve = curve_client(cmd.curve);
    return;
  }
  if (cmd.curve.key_file.empty() && cmd.allowed_clients_file.empty()) return;
  if (cmd.curve.key_file.empty() || cmd.allowed_clients_file.empty() ||
      !cmd.curve.server_key_file.empty())
    throw std::runtime_error(
        "CURVE with --bind: --key (the server's secret key) and --allowed-clients, no "
        "--server-key");
  sink.curve = stream::CurveSocketOptions{
      .keys = stream::key_pair_of(stream::read_key_file(cmd.curve.key_file, true)),
      .server_public_key = {},
      .zap_domain = "load"};
  sink.allowed_clients = stream::read_key_list_file(cmd.allowed_clients_file);
  sink.auth_log = [&err](std::string_view line) { err << "warpwatch load: " << line << "\n"; };
}

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
  sub->add_option("--mqtt", cmd.mqtt,
                  "HOST:PORT of an MQTT broker to publish at instead (topic <prefix><stream id>; "
                  "pace it with --rate: a broker does not push back)");
  sub->add_option("--mqtt-topic-prefix", cmd.mqtt_sink.topic_prefix,
                  "with --mqtt: what each message's topic starts with, before the stream id")
      ->capture_default_str();
  sub->add_option("--mqtt-qos", cmd.mqtt_sink.qos, "with --mqtt: 0 or 1")
      ->check(CLI::Range(0, 1))
      ->capture_default_str();
  sub->add_option("--faults-every", o.faults.every,
                  "after every N-th message, a fault message the daemon must refuse whole "
                  "(0 = none; the good messages stay as without faults)")
      ->capture_default_str();
  sub->add_option("--faults", cmd.fault_kinds,
                  "the faults, in turn: malformed (a frame cut short), invalid-id, unknown-id "
                  "(<prefix>unknown-<k>), oversized (--oversized-bytes of zeros)")
      ->delimiter(',');
  sub->add_option("--oversized-bytes", o.faults.oversized_bytes,
                  "the payload size of an oversized fault")
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
  sub->add_option("--write-patterns", cmd.write_patterns,
                  "write the patterns it would plant to this CSV file (one per row, in planting "
                  "order, each value exact) for a daemon's library, and exit without sending");
  add_curve_client_options(*sub, cmd.curve);
  sub->add_option("--allowed-clients", cmd.allowed_clients_file,
                  "CURVE with --bind: the public keys (one per line) of the clients accepted; "
                  "--key is then the server's secret key")
      ->check(CLI::ExistingFile);
  add_series_input_options(*sub, cmd.input);
  add_feedback_options(*sub, cmd.feedback);
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

  if (!cmd.write_patterns.empty()) {
    write_pattern_rows(o.patterns, cmd.write_patterns);
    out << "wrote " << o.patterns.size() << " patterns to " << cmd.write_patterns << "\n";
    return 0;
  }
  for (const std::string& name : cmd.fault_kinds) {
    const auto kind = bench::parse_load_fault(name);
    if (!kind) throw std::runtime_error("--faults: unknown fault '" + name + "'");
    o.faults.kinds.push_back(*kind);
  }
  if (o.faults.every > 0 && o.faults.kinds.empty())
    throw std::runtime_error("--faults-every needs --faults");
  bench::ZmqSinkOptions zmq_sink = cmd.sink;
  sink_security(cmd, zmq_sink, err);
  if (!cmd.mqtt.empty() && zmq_sink.curve)
    throw std::runtime_error("--key and --server-key are for ZeroMQ; --mqtt sends without CURVE");
  std::unique_ptr<bench::MessageSink> sink;  // made inside the run's interrupt scope
  const auto make_sink = [&]() -> std::unique_ptr<bench::MessageSink> {
    if (cmd.mqtt.empty()) return std::make_unique<bench::ZmqSink>(zmq_sink);
    bench::MqttSinkOptions mqtt = cmd.mqtt_sink;
    const auto colon = cmd.mqtt.rfind(':');
    if (colon == std::string::npos || colon == 0)
      throw std::runtime_error("--mqtt wants HOST:PORT, not '" + cmd.mqtt + "'");
    mqtt.host = cmd.mqtt.substr(0, colon);
    mqtt.port = std::stoi(cmd.mqtt.substr(colon + 1));
    mqtt.linger_ms = cmd.sink.linger_ms;
    return std::make_unique<bench::MqttSink>(mqtt);
  };

  std::ofstream json;  // opened first: a bad path fails before the run
  if (!cmd.json_path.empty()) {
    json.open(cmd.json_path);
    if (!json) throw std::runtime_error("cannot write " + cmd.json_path);
  }
  const bench::LoadGenerator generator(std::move(o));
  std::set<std::string> streams;
  for (std::size_t k = 0; k < generator.options().streams; ++k)
    streams.insert(generator.stream_id(k));
  IngestFeedback feedback(cmd.feedback, std::move(streams));  // the counters before
  bench::LoadResult result;
  {
    InterruptScope interrupts;
    sink = make_sink();  // closing it waits up to --linger-ms for delivery
    result = generator.run(*sink, &interrupted);
    sink.reset();
  }
  const double cpu = bench::process_cpu_seconds();
  bench::print_load_result(generator, result, out, cmd.list);
  if (json.is_open()) {
    json << bench::load_result_json(generator, result, cpu);
    if (!json.flush()) throw std::runtime_error("cannot write " + cmd.json_path);
  }
  return feedback.report(result.samples, out, err);
}

}  // namespace warpwatch::cli
