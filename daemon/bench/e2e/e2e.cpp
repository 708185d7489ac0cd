// `warpwatch bench e2e` (e2e.hpp): one daemon per point of the sweep, driven by the load
// generator and watched through /metrics, /proc and a SUB socket.
#include "warpwatch/bench/e2e.hpp"

#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>
#include <zmq.hpp>
#include <zmq_addon.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <csignal>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <limits>
#include <map>
#include <mutex>
#include <ostream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <tuple>

#include "warpwatch/base/timestamps.hpp"
#include "warpwatch/bench/loopback.hpp"
#include "warpwatch/stream/decode/frame.hpp"

namespace warpwatch::bench {
namespace {

using Steady = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr const char* probe_stream = "warpwatch-bench-probe";
constexpr const char* library_name = "load";
// --api-put-at's new pattern: shape0's values under another id (its events are shape0's
// planted spans from its application on).
constexpr const char* put_pattern = "bench-put";

// --api-put-at's threshold change: the pattern (shape1, or shape0 with one pattern) and its new
// threshold (1% above the library's: every planted copy still matches).
const LoadPattern& changed_pattern(const std::vector<LoadPattern>& patterns) {
  return patterns.size() > 1 ? patterns[1] : patterns[0];
}
double changed_threshold(double threshold) {
  return threshold * 1.01;
}

double seconds_between(Steady::time_point a, Steady::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

milliseconds ms(double seconds) {
  return milliseconds(static_cast<std::int64_t>(std::ceil(seconds * 1000.0)));
}

// What the sweep shares: the patterns, how they are matched (mode, band, znorm, threshold)
// and the planting plan.
struct Setup {
  std::vector<LoadPattern> patterns;
  kernels::MatchParams params = stream_match_params(builtin_threshold);
  double noise = 0;
  std::uint64_t jitter = 0;
};

LoadOptions load_options(const E2eOptions& o, const Setup& setup, std::size_t streams,
                         std::size_t frame) {
  LoadOptions lo;
  lo.streams = streams;
  lo.frame = frame;
  lo.rate_per_stream = o.rate;
  lo.encoding = o.encoding;
  lo.period_ns = o.rate > 0 ? static_cast<std::int64_t>(std::llround(1e9 / o.rate)) : 1'000'000;
  if (lo.period_ns <= 0) lo.period_ns = 1;
  lo.patterns = setup.patterns;
  lo.every = o.every;
  lo.jitter = setup.jitter;
  lo.noise = setup.noise;
  lo.seed = o.seed;
  lo.samples_per_stream = o.samples;
  lo.duration_s = o.duration_s;
  return lo;
}

// The daemon's configuration: the template (or nothing) with the bench's endpoints,
// backend and pattern library written over it.
std::string daemon_config(const E2eOptions& o, const Setup& setup, const std::string& backend,
                          std::size_t streams, int ingest_port, int publish_port, int metrics_port,
                          const std::string& state_dir) {
  YAML::Node root = o.config_template.empty() ? YAML::Node(YAML::NodeType::Map)
                                              : YAML::LoadFile(o.config_template);
  if (!root.IsMap()) throw std::invalid_argument(o.config_template + ": not a YAML map");
  const YAML::Node& read = root;  // looks up without creating keys
  if (!read["instance"]) root["instance"] = "warpwatch-bench";
  root["backend"] = backend;
  if (o.daemon_threads) root["cpu_threads"] = *o.daemon_threads;
  if (o.tick_ms) root["scheduler"]["tick_ms"] = *o.tick_ms;
  if (o.batch_samples) root["scheduler"]["batch_samples"] = *o.batch_samples;
  YAML::Node pull;
  pull["pull"] = "tcp://127.0.0.1:" + std::to_string(ingest_port);
  YAML::Node ingest(YAML::NodeType::Sequence);
  ingest.push_back(pull);
  root["ingest"] = ingest;
  root["streams"]["auto_create"] = true;
  root["streams"]["auto_dims"] = setup.patterns.front().dims;
  const std::size_t need = streams + 1;  // and the probe stream
  const bool has_max = read["limits"] && read["limits"]["max_streams"];
  if (has_max ? read["limits"]["max_streams"].as<std::size_t>() < need : need > 10000)
    root["limits"]["max_streams"] = need;
  root["publish"]["endpoint"] = "tcp://127.0.0.1:" + std::to_string(publish_port);
  if (!read["publish"]["send_hwm"]) root["publish"]["send_hwm"] = 0;  // count, never drop
  root["publish"].remove("events_file");
  root["metrics"]["listen"] = "127.0.0.1:" + std::to_string(metrics_port);
  if (o.drain_grace_ms)
    root["shutdown"]["drain_grace_ms"] = *o.drain_grace_ms;
  else if (!(read["shutdown"] && read["shutdown"]["drain_grace_ms"]))
    root["shutdown"]["drain_grace_ms"] = 60000;
  if (!state_dir.empty()) {  // library changes over the API persist there (they need it)
    root["state"]["dir"] = state_dir;
    root["state"]["checkpoint_ms"] = 0;
  }
  root.remove("rules");  // the implicit rule: one event per match
  YAML::Node library;
  library["name"] = library_name;
  const kernels::MatchParams& params = setup.params;
  library["defaults"]["metric"] = std::string(kernels::to_string(params.distance.metric));
  library["defaults"]["mode"] = std::string(kernels::to_string(params.mode));
  library["defaults"]["cost"] = std::string(kernels::to_string(params.distance.cost));
  library["defaults"]["threshold"] = params.threshold;
  if (params.mode == kernels::Mode::window)
    library["defaults"]["znorm"] = params.normalize == kernels::Normalize::znorm;
  if (params.distance.band) library["defaults"]["band"] = *params.distance.band;
  YAML::Node patterns(YAML::NodeType::Sequence);
  for (const auto& p : setup.patterns) {
    YAML::Node entry;
    entry["id"] = p.name;
    YAML::Node values(YAML::NodeType::Sequence);
    values.SetStyle(YAML::EmitterStyle::Flow);
    if (p.dims == 1) {
      for (float v : p.values) values.push_back(static_cast<double>(v));
    } else {
      for (std::size_t i = 0; i < p.length(); ++i) {
        YAML::Node sample(YAML::NodeType::Sequence);
        sample.SetStyle(YAML::EmitterStyle::Flow);
        for (std::size_t c = 0; c < p.dims; ++c)
          sample.push_back(static_cast<double>(p.values[i * p.dims + c]));
        values.push_back(sample);
      }
    }
    entry["values"] = values;
    patterns.push_back(entry);
  }
  library["patterns"] = patterns;
  YAML::Node libraries(YAML::NodeType::Sequence);
  libraries.push_back(library);
  root["libraries"] = libraries;
  YAML::Emitter out;
  out.SetDoublePrecision(17);
  out << root;
  return std::string(out.c_str()) + "\n";
}

struct ReceivedEvent {
  std::string stream, pattern;
  std::uint64_t start = 0, end = 0;
  std::int64_t detected_ns = 0, received_ns = 0;
  double threshold = 0;
};

// A SUB socket on a thread of its own, keeping every event with the time it arrived.
class EventListener {
 public:
  explicit EventListener(const std::string& endpoint)
      : thread_([this, endpoint] { loop(endpoint); }) {}
  ~EventListener() { stop(); }
  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  std::size_t probe_events() const { return probe_events_; }
  std::size_t count() const { return count_; }
  Steady::time_point last_arrival() {
    std::lock_guard lock(mutex_);
    return last_;
  }
  std::vector<ReceivedEvent> take() {
    std::lock_guard lock(mutex_);
    return std::move(events_);
  }
  std::string error() {
    std::lock_guard lock(mutex_);
    return error_;
  }

 private:
  void loop(const std::string& endpoint) {
    try {
      zmq::context_t context(1);
      zmq::socket_t socket(context, zmq::socket_type::sub);
      socket.set(zmq::sockopt::linger, 0);
      socket.set(zmq::sockopt::rcvhwm, 0);
      socket.set(zmq::sockopt::subscribe, "");
      socket.connect(endpoint);
      std::vector<zmq::message_t> parts;
      while (!stop_) {
        zmq::pollitem_t item{socket.handle(), 0, ZMQ_POLLIN, 0};
        zmq::poll(&item, 1, milliseconds(20));
        for (;;) {
          parts.clear();
          if (!zmq::recv_multipart(socket, std::back_inserter(parts), zmq::recv_flags::dontwait))
            break;
          const std::int64_t now = stream::wall_clock_ns();
          if (parts.size() != 2) continue;
          const auto j = nlohmann::json::parse(parts[1].to_string_view());
          ReceivedEvent e;
          e.stream = j.at("stream").get<std::string>();
          e.pattern = j.at("pattern").get<std::string>();
          e.start = j.at("start_index").get<std::uint64_t>();
          e.end = j.at("end_index").get<std::uint64_t>();
          e.detected_ns = j.at("detected_ns").get<std::int64_t>();
          e.threshold = j.value("threshold", 0.0);
          e.received_ns = now;
          if (e.stream == probe_stream) ++probe_events_;
          std::lock_guard lock(mutex_);
          events_.push_back(std::move(e));
          ++count_;
          last_ = Steady::now();
        }
      }
    } catch (const std::exception& e) {
      std::lock_guard lock(mutex_);
      error_ = e.what();
    }
  }

  std::atomic<bool> stop_{false};
  std::atomic<std::size_t> probe_events_{0}, count_{0};
  std::mutex mutex_;
  std::vector<ReceivedEvent> events_;
  Steady::time_point last_ = Steady::now();
  std::string error_;
  std::thread thread_;
};

std::optional<DaemonMetrics> scrape(int port) {
  const auto r = http_get(port, "/metrics", milliseconds(5000));
  if (!r || r->status != 200) return std::nullopt;
  return parse_metrics(r->body);
}

std::string iso_date() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(colon + 2);
    }
  return "unknown";
}

std::string os_name() {
  utsname u{};
  if (::uname(&u) != 0) return "unknown";
  return std::string(u.sysname) + " " + u.release + " " + u.machine;
}

// One point of the sweep.
class PointRun {
 public:
  PointRun(const E2eOptions& o, const Setup& setup, const std::filesystem::path& dir,
           std::ostream& log, E2eRun& run)
      : o_(o), setup_(setup), dir_(dir), log_(log), run_(run) {}

  void execute() {
    const std::string label = run_.backend + ", " + std::to_string(run_.streams) +
                              " streams, frame " + std::to_string(run_.frame);
    ports();
    const std::string config_path = (dir_ / "warpwatchd.yaml").string();
    {
      std::ofstream(config_path) << daemon_config(
          o_, setup_, run_.backend, run_.streams, ingest_port_, publish_port_, metrics_port_,
          o_.api_put_at_s ? (dir_ / "state").string() : std::string());
    }
    const LoadGenerator generator(load_options(o_, setup_, run_.streams, run_.frame));
    run_.target_samples_per_s = o_.rate * static_cast<double>(run_.streams);

    const std::string stderr_path = (dir_ / "warpwatchd.log").string();
    const auto spawned = Steady::now();
    ChildProcess daemon(o_.daemon, {"--config", config_path}, stderr_path);
    const auto daemon_log = [&] {  // (appended: GCC 12's -Wrestrict on "\n" + string)
      std::string text = "\n";
      text += file_tail(stderr_path, 2000);
      return text;
    };
    for (;;) {
      if (!daemon.running()) throw std::runtime_error("warpwatchd exited at start" + daemon_log());
      const auto r = http_get(metrics_port_, "/healthz", milliseconds(1000));
      if (r && r->status == 200) break;
      if (seconds_between(spawned, Steady::now()) > o_.start_timeout_s)
        throw std::runtime_error("warpwatchd did not answer /healthz with 200 within " +
                                 std::to_string(o_.start_timeout_s) + " s" + daemon_log());
      std::this_thread::sleep_for(milliseconds(20));
    }
    run_.start_s = seconds_between(spawned, Steady::now());
    log_ << "e2e: " << label << ": warpwatchd ready in " << run_.start_s << " s\n";

    EventListener listener("tcp://127.0.0.1:" + std::to_string(publish_port_));
    probe(listener, daemon_log);

    // The generator on a thread of its own; this thread scrapes meanwhile.
    const auto baseline = scrape(metrics_port_);
    if (!baseline) throw std::runtime_error("no /metrics" + daemon_log());
    const double matched0 = baseline->matched;
    std::atomic<bool> generating{true};
    std::string generator_error;
    const double process_cpu0 = process_cpu_seconds();
    const auto gen_start = Steady::now();
    std::thread sender;
    struct Join {  // an exception below must not leave the thread joinable
      std::thread& t;
      ~Join() {
        if (t.joinable()) t.join();
      }
    } join{sender};
    sender = std::thread([&] {
      try {
        ZmqSinkOptions so;
        so.endpoint = "tcp://127.0.0.1:" + std::to_string(ingest_port_);
        so.send_hwm = o_.send_hwm;
        ZmqSink sink(so);
        run_.load = generator.run(sink);
      } catch (const std::exception& e) {
        generator_error = e.what();
      }
      generating = false;
    });
    // The API client (api_poll_hz), on a thread of its own while the generator runs.
    std::thread poller;
    struct StopPoller {  // an exception below: the poller stops and is joined
      std::atomic<bool>& polling;
      std::thread& t;
      ~StopPoller() {
        polling = false;
        if (t.joinable()) t.join();
      }
    } stop_poller{generating, poller};
    if (o_.api_poll_hz > 0)
      poller = std::thread([&] {
        const auto period = ms(1.0 / o_.api_poll_hz);
        auto next = Steady::now();
        while (generating) {
          auto t0 = Steady::now();
          const auto list = http_get(metrics_port_, "/api/v1/events?limit=100", milliseconds(5000));
          run_.api_events_ms.push_back(seconds_between(t0, Steady::now()) * 1e3);
          if (!list || list->status != 200) ++run_.api_failures;
          // The newest event's plot (the list is newest first).
          std::string id;
          if (list && list->status == 200) {
            const auto events = nlohmann::json::parse(list->body, nullptr, false);
            if (events.contains("events") && !events["events"].empty())
              id = events["events"][0].value("id", "");
          }
          if (!id.empty()) {
            std::string target = "/api/v1/events/";  // (appended: GCC 12's -Wrestrict)
            target += id;
            target += "/plot.svg";
            t0 = Steady::now();
            const auto plot = http_get(metrics_port_, target, milliseconds(5000));
            run_.api_plot_ms.push_back(seconds_between(t0, Steady::now()) * 1e3);
            if (!plot || plot->status != 200) ++run_.api_failures;
          }
          next += period;
          std::this_thread::sleep_until(next);
        }
      });
    // The library change (api_put_at_s), on a thread of its own.
    std::thread putter;
    const Join join_putter{putter};
    if (o_.api_put_at_s) putter = std::thread([&] { put_changes(gen_start, generating); });
    auto next_sample = gen_start;
    while (generating) {
      std::this_thread::sleep_for(milliseconds(10));
      if (Steady::now() >= next_sample) {
        record(daemon.pid(), gen_start);
        next_sample += ms(o_.scrape_interval_s);
      }
    }
    sender.join();
    if (poller.joinable()) poller.join();
    if (putter.joinable()) putter.join();
    if (!put_error_.empty()) run_.problems.push_back(put_error_);
    if (o_.api_poll_hz > 0) {
      const auto ev = percentiles(run_.api_events_ms), pl = percentiles(run_.api_plot_ms);
      log_ << "e2e: " << label << ": API at " << o_.api_poll_hz
           << " Hz: GET /api/v1/events?limit=100 p50 " << ev.p50 << " ms, p99 " << ev.p99
           << " ms, max " << ev.max << " ms (" << ev.count << "); plot.svg p50 " << pl.p50
           << " ms, p99 " << pl.p99 << " ms, max " << pl.max << " ms (" << pl.count << "); "
           << run_.api_failures << " answers not 200\n";
    }
    run_.bench_process_cpu_s = process_cpu_seconds() - process_cpu0;
    if (!generator_error.empty()) throw std::runtime_error("generator: " + generator_error);
    const auto gen_end = Steady::now();
    const auto at_end = scrape(metrics_port_);
    const double gen_s = seconds_between(gen_start, gen_end);
    if (at_end && gen_s > 0)
      run_.matched_during_send_samples_per_s = (at_end->matched - matched0) / gen_s;
    log_ << "e2e: " << label << ": sent " << run_.load.samples << " samples in " << gen_s << " s ("
         << run_.load.samples_per_s() << " samples/s, blocked " << run_.load.blocked_seconds
         << " s)\n";

    settle(daemon, gen_start, daemon_log);
    const double sent = static_cast<double>(run_.load.samples + run_.probe_samples);
    run_.unaccounted_samples = sent - run_.accepted - run_.rejected_total;
    if (!run_.puts.empty()) read_changes();
    check_counters();
    run_.sustained_samples_per_s =
        run_.measured_s > 0 ? (run_.matched - matched0) / run_.measured_s : 0.0;

    const ProcReading before_term = read_proc(daemon.pid());
    if (before_term.ok) {
      run_.daemon_cpu_s = before_term.cpu_s;
      run_.daemon_peak_rss_bytes = before_term.peak_rss_bytes;
    }
    const std::int64_t term_ns = stream::wall_clock_ns();
    const auto term = Steady::now();
    daemon.signal(SIGTERM);
    const auto status = daemon.wait_exit(ms(o_.exit_timeout_s));
    if (!status) {
      run_.killed = true;
      daemon.signal(SIGKILL);
      daemon.wait_exit(milliseconds(10000));
    }
    run_.exit_s = seconds_between(term, Steady::now());
    if (const auto st = daemon.wait_exit(milliseconds(0))) {
      run_.exit_status = WIFEXITED(*st) ? WEXITSTATUS(*st) : -1;
      run_.exit_signal = WIFSIGNALED(*st) ? WTERMSIG(*st) : 0;
    }
    const rusage& ru = daemon.usage();
    run_.daemon_cpu_total_s = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                              static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
    run_.daemon_maxrss_bytes = static_cast<double>(ru.ru_maxrss) * 1024.0;
    // Events published in the drain: wait until none has come for half a second.
    const auto listen_until = Steady::now() + milliseconds(5000);
    while (Steady::now() < listen_until &&
           Steady::now() - listener.last_arrival() < milliseconds(500))
      std::this_thread::sleep_for(milliseconds(20));
    listener.stop();
    if (!listener.error().empty())
      throw std::runtime_error("event subscriber: " + listener.error());
    log_ << "e2e: " << label << ": SIGTERM to exit " << run_.exit_s << " s, status "
         << run_.exit_status << (run_.killed ? " (killed)" : "") << "\n";
    reconcile(listener.take(), generator, term_ns);
    if (run_.exit_status != 0 || run_.killed)
      run_.problems.insert(run_.problems.begin(),
                           "warpwatchd did not exit with status 0" + daemon_log());
  }

 private:
  // api_put_at_s: at that time (while the generator sends), the changes, each PUT timed.
  void put_changes(Steady::time_point gen_start, const std::atomic<bool>& generating) {
    const auto at = gen_start + ms(*o_.api_put_at_s);
    while (generating && Steady::now() < at) std::this_thread::sleep_for(milliseconds(5));
    if (!generating) {
      put_error_ = "--api-put-at: the generator stopped before it (no change made)";
      run_.puts.emplace_back();  // status 0: not ok, the run fails
      run_.puts.back().what = "none";
      return;
    }
    std::string prefix = "/api/v1/libraries/";  // (appended: GCC 12's -Wrestrict)
    prefix += library_name;
    prefix += "/patterns/";
    if (o_.api_put != "pattern") {
      const std::string path = prefix + changed_pattern(setup_.patterns).name;
      std::string etag;  // If-Match: the pattern's ETag, from a GET
      if (const auto got = http_get(metrics_port_, path, milliseconds(5000));
          got && got->status == 200)
        etag = nlohmann::json::parse(got->body, nullptr, false).value("etag", "");
      const nlohmann::json body = {{"threshold", changed_threshold(setup_.params.threshold)}};
      timed_put(gen_start, "threshold", changed_pattern(setup_.patterns).name, path + "/threshold",
                body.dump(), etag);
    }
    if (o_.api_put != "threshold") {
      const LoadPattern& p = setup_.patterns.front();
      nlohmann::json values = nlohmann::json::array();
      for (std::size_t i = 0; i < p.length(); ++i)
        values.push_back(
            std::vector<float>(p.values.begin() + static_cast<std::ptrdiff_t>(i * p.dims),
                               p.values.begin() + static_cast<std::ptrdiff_t>((i + 1) * p.dims)));
      timed_put(gen_start, "pattern", put_pattern, prefix + put_pattern,
                nlohmann::json{{"values", values}}.dump(), "");
    }
  }

  void timed_put(Steady::time_point gen_start, const std::string& what, const std::string& pattern,
                 const std::string& target, const std::string& body, const std::string& etag) {
    E2ePut put;
    put.what = what;
    put.pattern = pattern;
    const auto sent = Steady::now();
    put.at_s = seconds_between(gen_start, sent);
    std::vector<std::pair<std::string, std::string>> headers;
    if (!etag.empty()) headers.emplace_back("If-Match", etag);
    std::string why;
    const auto r = http_request("127.0.0.1", metrics_port_, "PUT", target, body,
                                milliseconds(20000), &why, headers);
    put.latency_ms = seconds_between(sent, Steady::now()) * 1e3;
    put.status = r ? r->status : 0;
    if (!r || r->status >= 300) {
      std::string text = "--api-put-at: PUT ";  // (appended: GCC 12's -Wrestrict)
      text += target;
      if (r) {
        text += " answered ";
        text += std::to_string(r->status);
        text += ": ";
        text += r->body;
      } else {
        text += " failed: ";
        text += why;
      }
      put_error_ = text;
    }
    run_.puts.push_back(std::move(put));
  }

  // Each change's rounds, from the daemon's history of changes (GET /api/v1/changes).
  void read_changes() {
    const auto r = http_get(metrics_port_, "/api/v1/changes", milliseconds(5000));
    const auto history =
        r && r->status == 200 ? nlohmann::json::parse(r->body, nullptr, false) : nlohmann::json();
    for (E2ePut& put : run_.puts) {
      if (put.status < 200 || put.status >= 300) continue;
      const std::string what = put.what == "pattern" ? "put" : put.what;
      bool found = false;
      if (history.is_object() && history.contains("changes"))
        for (const auto& c : history["changes"])
          if (c.value("pattern", "") == put.pattern && c.value("what", "") == what &&
              c.contains("applied")) {
            const auto& a = c["applied"];
            put.round_asked = a.at("round_asked").get<std::uint64_t>();
            put.round_applied = a.at("round_applied").get<std::uint64_t>();
            put.rounds_between = a.at("rounds_between").get<std::uint64_t>();
            put.applied_ns = a.at("time_ns").get<std::int64_t>();
            put.samples_matched = a.at("samples_matched").get<double>();
            found = true;
            break;
          }
      if (!found)
        run_.problems.push_back("--api-put-at: no applied change of " + put.pattern +
                                " in GET /api/v1/changes");
    }
  }

  const E2ePut* applied_put(const std::string& what) const {
    for (const E2ePut& p : run_.puts)
      if (p.what == what && p.applied_ns != 0) return &p;
    return nullptr;
  }

  // At the end: each pattern's samples matched (by every definition it had) against the samples
  // accepted since it was configured: all of them for the library's patterns (every stream has
  // their dims), those after its application for the one put. One line each; a mismatch fails.
  void check_counters() {
    if (run_.pattern_samples.empty()) return;  // a daemon without warpwatch_pattern_samples_total
    const auto check = [&](const std::string& pattern, double want, const std::string& what) {
      const auto it = run_.pattern_samples.find(pattern);
      const double got = it == run_.pattern_samples.end() ? -1 : it->second;
      const bool ok = got == want;
      std::ostringstream line;
      line << std::fixed << std::setprecision(0) << (ok ? "ok: " : "FAIL: ") << pattern
           << " matched " << got << (ok ? " == " : " != ") << what << " " << want;
      run_.counter_checks.push_back(line.str());
      if (!ok) {
        run_.counters_reconciled = false;
        run_.problems.push_back("counters: " + line.str());
      }
    };
    for (const LoadPattern& p : setup_.patterns) check(p.name, run_.accepted, "accepted");
    if (const E2ePut* put = applied_put("pattern"))
      check(put_pattern, run_.accepted - put->samples_matched, "accepted after its application");
    std::ostringstream sent;
    sent << std::fixed << std::setprecision(0) << "e2e: counters: sent "
         << static_cast<double>(run_.load.samples + run_.probe_samples) << " == accepted "
         << run_.accepted << " + rejected " << run_.rejected_total << ": "
         << (run_.unaccounted_samples == 0 ? "ok" : "FAIL") << "\n";
    log_ << sent.str();
    for (const auto& line : run_.counter_checks) log_ << "e2e: counters: " << line << "\n";
  }

  void ports() {
    ingest_port_ = free_loopback_port();  // three distinct ports, reserved (loopback.hpp)
    publish_port_ = free_loopback_port();
    metrics_port_ = free_loopback_port();
  }

  // A subscriber only gets what is published after its subscription reached the
  // publisher, which nothing announces: send a planted copy on the probe stream until its
  // event arrives.
  template <class Log>
  void probe(EventListener& listener, const Log& daemon_log) {
    ZmqSinkOptions so;
    so.endpoint = "tcp://127.0.0.1:" + std::to_string(ingest_port_);
    so.linger_ms = 2000;
    ZmqSink sink(so);
    const LoadPattern& p = setup_.patterns.front();
    const auto deadline = Steady::now() + milliseconds(20000);
    std::uint64_t next = 0;
    while (listener.probe_events() == 0) {
      if (Steady::now() > deadline)
        throw std::runtime_error("no event arrived on the SUB socket within 20 s" + daemon_log());
      stream::Samples s;
      s.dims = p.dims;
      s.values = p.values;
      s.values.resize(2 * p.values.size(), 0.0f);  // the copy, then as many zeros
      for (std::size_t i = 0; i < 2 * p.length(); ++i)
        s.times_ns.push_back(1'000'000'000 + static_cast<std::int64_t>(next + i) * 1'000'000);
      const auto frame = stream::encode_frame(s, false);
      while (!sink.try_send(probe_stream, frame)) sink.wait_writable(milliseconds(50));
      next += s.size();
      const auto wait_until = Steady::now() + milliseconds(200);
      while (listener.probe_events() == 0 && Steady::now() < wait_until)
        std::this_thread::sleep_for(milliseconds(5));
    }
    run_.probe_samples = next;
  }

  void record(pid_t pid, Steady::time_point gen_start) {
    if (const auto m = scrape(metrics_port_)) record(pid, gen_start, *m);
  }
  void record(pid_t pid, Steady::time_point gen_start, const DaemonMetrics& metrics) {
    const DaemonMetrics* m = &metrics;
    E2eSample s;
    s.t_s = seconds_between(gen_start, Steady::now());
    s.accepted = m->accepted;
    s.matched = m->matched;
    s.rejected = m->rejected_total;
    s.backlog_samples = m->backlog_samples;
    s.backlog_oldest_age_s = m->backlog_oldest_age_s;
    const ProcReading p = read_proc(pid);
    s.cpu_s = p.cpu_s;
    s.rss_bytes = p.rss_bytes;
    run_.series.push_back(s);
    take(*m);
  }

  void take(const DaemonMetrics& m) {
    run_.accepted = m.accepted;
    run_.matched = m.matched;
    run_.messages = m.messages;
    run_.rejected = m.rejected;
    run_.rejected_total = m.rejected_total;
    run_.events_total = m.events_total;
    run_.events_published = m.events_published;
    run_.events_dropped = m.events_dropped;
    run_.batches = m.batches;
    run_.batch_seconds = m.batch_seconds;
    run_.device_seconds = m.device_seconds;
    run_.host_seconds = m.host_seconds;
    run_.windows_evaluated = m.windows_evaluated;
    run_.flat_windows = m.flat_windows;
    run_.windows_pruned = m.windows_pruned;
    run_.pattern_samples = m.pattern_samples;
    if (m.backlog_samples)
      run_.backlog_samples_max = std::max(run_.backlog_samples_max.value_or(0), *m.backlog_samples);
    if (m.backlog_oldest_age_s)
      run_.backlog_oldest_age_max_s =
          std::max(run_.backlog_oldest_age_max_s.value_or(0), *m.backlog_oldest_age_s);
  }

  // Waits until every sample sent is accepted or rejected and every accepted one matched
  // ("accounted"), or the counters stop moving for 3 s with everything accepted matched
  // ("stable": rejections counted per message), or the settle timeout.
  template <class Log>
  void settle(ChildProcess& daemon, Steady::time_point gen_start, const Log& daemon_log) {
    const double sent = static_cast<double>(run_.load.samples + run_.probe_samples);
    const auto begin = Steady::now();
    auto next_sample = begin;
    std::tuple<double, double, double> last{-1, -1, -1};
    auto last_change = begin;
    for (;;) {
      if (!daemon.running()) throw std::runtime_error("warpwatchd exited" + daemon_log());
      const auto m = scrape(metrics_port_);
      const auto now = Steady::now();
      if (m) {
        take(*m);
        if (now >= next_sample) {
          record(daemon.pid(), gen_start, *m);
          next_sample = now + ms(o_.scrape_interval_s);
        }
        const bool drained = !m->backlog_samples || *m->backlog_samples == 0;
        if (o_.overload) {
          run_.settled = "overload";
          run_.measured_s = seconds_between(gen_start, now);
          return;
        }
        if (m->accepted + m->rejected_total >= sent && m->matched >= m->accepted && drained) {
          run_.settled = "accounted";
          run_.measured_s = seconds_between(gen_start, now);
          return;
        }
        const std::tuple<double, double, double> current{m->accepted, m->rejected_total,
                                                         m->matched};
        if (current != last) {
          last = current;
          last_change = now;
        } else if (seconds_between(last_change, now) >= 3.0 && m->matched >= m->accepted &&
                   drained) {
          run_.settled = "stable";
          run_.measured_s = seconds_between(gen_start, last_change);
          return;
        }
      }
      if (seconds_between(begin, now) > o_.settle_timeout_s) {
        run_.settled = "timeout";
        run_.measured_s = seconds_between(gen_start, now);
        run_.problems.push_back("not every sample was accounted for and matched within " +
                                std::to_string(o_.settle_timeout_s) + " s");
        return;
      }
      std::this_thread::sleep_for(milliseconds(50));
    }
  }

  void reconcile(std::vector<ReceivedEvent> events, const LoadGenerator& generator,
                 std::int64_t term_ns) {
    const LoadOptions& lo = generator.options();
    using Key = std::tuple<std::string, std::string, std::uint64_t, std::uint64_t>;
    std::map<Key, std::size_t> index;  // -> position in run_.load.occurrences
    const auto& occurrences = run_.load.occurrences;
    for (std::size_t i = 0; i < occurrences.size(); ++i) {
      const auto& p = occurrences[i];
      index[{generator.stream_id(p.stream), lo.patterns[p.pattern].name, p.start_index,
             p.end_index}] = i;
    }
    std::vector<std::uint32_t> seen(occurrences.size(), 0);
    std::vector<double> latency, detect;
    const auto problem = [&](std::string text) {
      if (run_.problems.size() < 12) run_.problems.push_back(std::move(text));
    };
    // api_put_at_s's changes: the new pattern's events are the copied shape's planted spans
    // (seen_put), each stream's from some occurrence on; the changed pattern's, old threshold
    // then new, an occurrence cut by the change allowed missing (one a stream, between them).
    E2ePut* threshold_put = nullptr;
    E2ePut* pattern_put = nullptr;
    for (E2ePut& p : run_.puts)
      if (p.applied_ns != 0) (p.what == "threshold" ? threshold_put : pattern_put) = &p;
    const std::string changed = changed_pattern(lo.patterns).name;
    const double new_threshold = changed_threshold(setup_.params.threshold);
    std::vector<std::uint32_t> seen_put(occurrences.size(), 0);
    std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> cut;  // last old end, first new
    const auto after_change = [](E2ePut& put, const ReceivedEvent& e) {
      if (e.detected_ns < put.applied_ns) {
        ++put.new_before;
        return;
      }
      ++put.new_after;
      const double ms = static_cast<double>(e.detected_ns - put.applied_ns) * 1e-6;
      if (!put.first_new_event_ms || ms < *put.first_new_event_ms) put.first_new_event_ms = ms;
    };
    for (const auto& e : events) {
      if (e.stream == probe_stream) {
        ++run_.probe_events;
        continue;
      }
      if (e.received_ns >= term_ns) ++run_.events_after_sigterm;
      if (pattern_put && e.pattern == put_pattern) {
        const auto it = index.find({e.stream, lo.patterns.front().name, e.start, e.end});
        if (it == index.end()) {
          ++run_.unexpected;
          problem("unexpected event " + e.stream + "/" + e.pattern + " [" +
                  std::to_string(e.start) + ", " + std::to_string(e.end) + "]");
        } else if (++seen_put[it->second] > 1) {
          ++run_.duplicated;
          problem("reported again: " + e.stream + "/" + e.pattern + " [" + std::to_string(e.start) +
                  ", " + std::to_string(e.end) + "]");
        } else {
          after_change(*pattern_put, e);
        }
        continue;
      }
      if (threshold_put && e.pattern == changed) {
        auto& [last_old_end, first_new_start] =
            cut.try_emplace(e.stream, 0, std::numeric_limits<std::uint64_t>::max()).first->second;
        if (std::abs(e.threshold - new_threshold) <= 1e-9 * new_threshold) {
          after_change(*threshold_put, e);
          first_new_start = std::min(first_new_start, e.start);
        } else {
          if (e.detected_ns >= threshold_put->applied_ns) ++threshold_put->old_after;
          last_old_end = std::max(last_old_end, e.end);
        }
      }
      const auto it = index.find({e.stream, e.pattern, e.start, e.end});
      if (it == index.end()) {
        ++run_.unexpected;
        problem("unexpected event " + e.stream + "/" + e.pattern + " [" + std::to_string(e.start) +
                ", " + std::to_string(e.end) + "]");
        continue;
      }
      if (++seen[it->second] > 1) {
        problem("reported again: " + e.stream + "/" + e.pattern + " [" + std::to_string(e.start) +
                ", " + std::to_string(e.end) + "]");
        continue;
      }
      const std::int64_t sent = occurrences[it->second].sent_ns;
      if (e.received_ns < term_ns) {
        latency.push_back(static_cast<double>(e.received_ns - sent) * 1e-6);
        detect.push_back(static_cast<double>(e.detected_ns - sent) * 1e-6);
      }
    }
    run_.planted = occurrences.size();
    std::map<std::string, bool> put_reporting;  // the new pattern began reporting the stream
    std::set<std::string> cut_streams;
    // With state.dir (api_put_at_s) the shutdown checkpoints the pending candidates instead of
    // reporting them (docs/spec.md §3.1): a stream's last occurrence may be one.
    std::map<std::size_t, std::size_t> last_of_stream;
    for (std::size_t i = 0; i < occurrences.size(); ++i) last_of_stream[occurrences[i].stream] = i;
    for (std::size_t i = 0; i < occurrences.size(); ++i) {  // (in send order: by index a stream)
      const auto& p = occurrences[i];
      const std::string stream = generator.stream_id(p.stream);
      if (o_.api_put_at_s && last_of_stream[p.stream] == i && seen[i] == 0 &&
          (p.pattern != 0 || !pattern_put || seen_put[i] == 0)) {
        ++run_.pending_at_exit;
        continue;
      }
      if (pattern_put && p.pattern == 0) {
        bool& reporting = put_reporting[stream];
        if (seen_put[i] > 0) {
          reporting = true;
        } else if (reporting) {
          ++run_.missing;
          problem("not reported by the new pattern after it applied: " + stream + "/" +
                  put_pattern + " [" + std::to_string(p.start_index) + ", " +
                  std::to_string(p.end_index) + "]");
        }
      }
      if (seen[i] == 0 && threshold_put && lo.patterns[p.pattern].name == changed) {
        const auto c = cut.find(stream);
        const bool between =
            c == cut.end() || (p.start_index > c->second.first && p.end_index < c->second.second);
        if (between && cut_streams.insert(stream).second) {
          ++run_.boundary_missed;  // its samples straddled the change: old pair, then fresh
          continue;
        }
      }
      if (seen[i] == 1) ++run_.found_once;
      if (seen[i] > 1) ++run_.duplicated;
      if (seen[i] == 0) {
        ++run_.missing;
        const auto& p = occurrences[i];
        problem("not reported: " + generator.stream_id(p.stream) + "/" +
                lo.patterns[p.pattern].name + " [" + std::to_string(p.start_index) + ", " +
                std::to_string(p.end_index) + "]");
      }
    }
    if (run_.unaccounted_samples != 0)
      problem("samples sent " + std::to_string(run_.load.samples + run_.probe_samples) +
              " != accepted " + std::to_string(static_cast<std::uint64_t>(run_.accepted)) +
              " + rejected " + std::to_string(static_cast<std::uint64_t>(run_.rejected_total)));
    if (run_.events_dropped > 0)
      problem(std::to_string(static_cast<std::uint64_t>(run_.events_dropped)) +
              " events dropped at the publisher");
    run_.latency_ms = percentiles(std::move(latency));
    run_.detect_latency_ms = percentiles(std::move(detect));
  }

  const E2eOptions& o_;
  const Setup& setup_;
  std::filesystem::path dir_;
  std::ostream& log_;
  E2eRun& run_;
  int ingest_port_ = 0, publish_port_ = 0, metrics_port_ = 0;
  std::string put_error_;  // the putter thread's; read once it is joined
};

std::filesystem::path make_work_dir(const E2eOptions& o, bool& remove) {
  if (!o.work_dir.empty()) {
    std::filesystem::create_directories(o.work_dir);
    remove = false;
    return o.work_dir;
  }
  std::string pattern = (std::filesystem::temp_directory_path() / "warpwatch-e2e-XXXXXX").string();
  if (!::mkdtemp(pattern.data()))
    throw std::runtime_error("cannot create a temporary directory under " +
                             std::filesystem::temp_directory_path().string());
  remove = true;
  return pattern;
}

}  // namespace

Percentiles percentiles(std::vector<double> values) {
  Percentiles p;
  p.count = values.size();
  if (values.empty()) return p;
  std::sort(values.begin(), values.end());
  // Nearest rank: the smallest value with at least q of the values at or below it.
  const auto rank = [&](double q) {
    const auto r = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
    return values[std::clamp<std::size_t>(r, 1, values.size()) - 1];
  };
  p.p50 = rank(0.50);
  p.p99 = rank(0.99);
  p.max = values.back();
  double sum = 0;
  for (double v : values) sum += v;
  p.mean = sum / static_cast<double>(values.size());
  return p;
}

bool E2ePut::ok() const {
  return status >= 200 && status < 300 && applied_ns != 0 && new_before == 0 && old_after == 0 &&
         new_after > 0;
}

bool E2eRun::reconciled() const {
  return error.empty() && unaccounted_samples == 0 && missing == 0 && duplicated == 0 &&
         unexpected == 0 && events_dropped == 0 && matched >= accepted && settled != "timeout" &&
         counters_reconciled &&
         std::all_of(puts.begin(), puts.end(), [](const E2ePut& p) { return p.ok(); });
}

bool E2eRun::ok(bool overload) const {
  const bool clean_exit = error.empty() && exit_status == 0 && !killed;
  return overload ? clean_exit : clean_exit && reconciled();
}

bool E2eReport::ok() const {
  return std::all_of(runs.begin(), runs.end(),
                     [&](const E2eRun& r) { return r.ok(options.overload); });
}

std::string daemon_beside_self() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  const auto candidate = self.parent_path() / "warpwatchd";
  return std::filesystem::exists(candidate, ec) ? candidate.string() : "";
}

E2eReport run_e2e(const E2eOptions& options, std::ostream& log) {
  const E2eOptions& o = options;
  if (o.daemon.empty() || ::access(o.daemon.c_str(), X_OK) != 0)
    throw std::invalid_argument("no warpwatchd executable at '" + o.daemon +
                                "' (--daemon PATH names one)");
  if (o.streams.empty() || o.frames.empty() || o.backends.empty())
    throw std::invalid_argument("--streams, --frame and --backend need at least one value");
  if (o.patterns < 1) throw std::invalid_argument("--patterns must be >= 1");
  if (o.duration_s <= 0 && o.samples == 0)
    throw std::invalid_argument("bound the load: --duration-s or --samples");
  if (!o.config_template.empty() && !std::filesystem::exists(o.config_template))
    throw std::invalid_argument("no configuration template " + o.config_template);
  const bool window = o.mode == kernels::Mode::window;
  if (!window && (o.band_percent || o.znorm))
    throw std::invalid_argument("--band-percent and --znorm are window mode's: add --mode window");
  if (o.band_percent && !(*o.band_percent >= 0 && std::isfinite(*o.band_percent)))
    throw std::invalid_argument("--band-percent must be a number >= 0");

  E2eReport report;
  report.options = o;
  report.date = iso_date();
  report.cpu_model = cpu_model();
  report.os = os_name();
  report.hardware_threads = std::thread::hardware_concurrency();
  Setup setup;
  setup.patterns = builtin_patterns(o.patterns, o.pattern_length, o.seed);
  setup.noise = std::min(o.noise, builtin_max_noise(o.pattern_length));
  setup.jitter =
      o.jitter.value_or(o.every > o.pattern_length + 1 ? (o.every - o.pattern_length - 1) / 4 : 0);
  if (window) {
    kernels::MatchParams& params = setup.params;
    params.mode = kernels::Mode::window;
    if (o.band_percent)
      params.distance.band = static_cast<double>(o.pattern_length) * *o.band_percent / 100.0;
    if (o.znorm) params.normalize = kernels::Normalize::znorm;
    // Not a fixed number like stream mode's: z-normalization scales distances by the
    // window's variance, and the band changes what a decoy costs (window_threshold).
    report.window_threshold = window_threshold(setup.patterns, setup.noise, params, o.seed);
    params.threshold = report.window_threshold->threshold;
    log << "e2e: window-mode threshold " << params.threshold << " = sqrt(copy "
        << report.window_threshold->copy << " x decoy " << report.window_threshold->decoy << ")\n";
  }
  report.params = setup.params;
  report.patterns = setup.patterns;
  report.threshold = setup.params.threshold;
  report.noise = setup.noise;
  report.jitter = setup.jitter;

  if (o.check_plan && o.every > 0) {
    // The planted data as the smallest point of the sweep sends it, checked by the reference.
    // Its cells: m a sample and pattern in stream mode, m x m a window in window mode (the
    // reference fills the whole table, band or not), where 2 streams are checked, long enough
    // for every shape to be planted (stream k's occurrence j plants shape (k + j) mod Q).
    const std::size_t smallest = *std::min_element(o.streams.begin(), o.streams.end());
    const std::size_t streams = std::min<std::size_t>(window ? 2 : 4, smallest);
    const LoadGenerator generator(load_options(o, setup, streams, o.frames.front()));
    const double m = static_cast<double>(o.pattern_length);
    const double cells_per_sample =
        static_cast<double>(streams * o.patterns) * (window ? m * m : m);
    const std::size_t everys = window ? std::max<std::size_t>(3, o.patterns + 2 - streams) : 3;
    const double least = static_cast<double>(everys * o.every);
    const auto samples = static_cast<std::uint64_t>(
        std::clamp(5e7 / cells_per_sample, least, std::max(least, 20000.0 + 3.0 * o.every)));
    const PlanCheck check = check_plan_with_reference(generator, setup.params, streams, samples);
    if (!check.ok()) {
      std::string text = "the planted data is not matched exactly by the reference (" +
                         std::to_string(check.exact) + " of " + std::to_string(check.planted) +
                         " planted spans reported, " + std::to_string(check.reported) +
                         " reports):";
      for (const auto& p : check.problems) text += "\n  " + p;
      throw std::invalid_argument(text);
    }
    report.plan_check = "ok: the reference reports exactly the " + std::to_string(check.planted) +
                        " planted spans of " + std::to_string(streams) + " streams x " +
                        std::to_string(samples) + " samples";
    log << "e2e: plan " << report.plan_check << "\n";
  }

  bool remove = false;
  const auto dir = make_work_dir(o, remove);
  for (const auto& backend : o.backends)
    for (const std::size_t frame : o.frames)
      for (const std::size_t streams : o.streams) {
        E2eRun run;
        run.backend = backend;
        run.streams = streams;
        run.frame = frame;
        const auto point_dir =
            dir / (backend + "-s" + std::to_string(streams) + "-f" + std::to_string(frame));
        std::filesystem::create_directories(point_dir);
        try {
          PointRun(o, setup, point_dir, log, run).execute();
        } catch (const std::exception& e) {
          run.error = e.what();
          log << "e2e: " << backend << ", " << streams << " streams, frame " << frame
              << ": error: " << e.what() << "\n";
        }
        report.runs.push_back(std::move(run));
      }
  if (remove) {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
  return report;
}

}  // namespace warpwatch::bench
