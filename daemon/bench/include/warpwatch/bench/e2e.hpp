// `warpwatch bench e2e`: the daemon measured from the outside. For each point of a sweep
// (streams x frame size x backend) it starts the real warpwatchd on loopback ports with a
// configuration it writes, drives it with the load generator (a thread of this process)
// and listens to its events with a SUB socket, waits until every sample sent is accounted
// for (accepted or rejected, read from /metrics) and matched, stops it with SIGTERM, and
// reconciles: samples sent = accepted + rejected, every planted occurrence reported once
// at its planted indices, no other event (in window mode too: an occurrence's event is its
// best window, which the threshold makes the planted span; the plan check verifies it).
// It records the detection latency (event received minus the wall time the occurrence's
// last sample was sent), the sustained samples/s, the daemon's CPU time and peak RSS, and
// the generator's CPU time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "warpwatch/bench/load_generator.hpp"

namespace warpwatch::bench {

struct E2eOptions {
  std::string daemon;           // the warpwatchd executable
  std::string config_template;  // a daemon configuration to start from; "" = defaults
  std::vector<std::size_t> streams = {100};
  std::vector<std::size_t> frames = {100};
  std::vector<std::string> backends = {"cpu"};
  std::size_t patterns = 8;
  std::size_t pattern_length = 64;
  // The library's mode: stream (SPRING, dtw, sq cost, at builtin_threshold) or window
  // (windows of m samples ending at every sample, dtw, sq cost, at the threshold that
  // window_threshold derives), and window mode's Sakoe-Chiba band, band_percent % of m in
  // cells (none: unconstrained), and z-normalization.
  kernels::Mode mode = kernels::Mode::stream;
  std::optional<double> band_percent;
  bool znorm = false;
  double rate = 0.0;                    // samples/s per stream; 0 = as fast as possible
  double duration_s = 10.0;             // how long the generator sends
  std::uint64_t samples = 0;            // per stream; 0 = bounded by duration only
  std::uint64_t every = 1000;           // an occurrence every this many samples per stream
  std::optional<std::uint64_t> jitter;  // default: (every - pattern_length - 1) / 4
  double noise = 0.05;                  // capped at builtin_max_noise(pattern_length)
  std::uint64_t seed = 1;
  LoadEncoding encoding = LoadEncoding::binary;
  int send_hwm = 1000;  // the generator's PUSH high-water mark, messages
  // Daemon settings written into the configuration when set (else the template's or the
  // daemon's defaults): scheduler.tick_ms, scheduler.batch_samples, cpu_threads,
  // shutdown.drain_grace_ms (the bench's default is 60000).
  std::optional<int> tick_ms;
  std::optional<int> batch_samples;
  std::optional<int> daemon_threads;
  std::optional<int> drain_grace_ms;
  double start_timeout_s = 30.0;    // until /healthz answers 200
  double settle_timeout_s = 120.0;  // after the generator stops, until all is accounted
  double exit_timeout_s = 120.0;    // after SIGTERM, until the daemon exits (then SIGKILL)
  double scrape_interval_s = 0.25;  // /metrics, /proc while running
  // The API under load (issue 38's targets): while the generator runs, a client polls
  // GET /api/v1/events?limit=100 and the newest event's plot.svg this many times a second
  // (0: no client), timing each answer.
  double api_poll_hz = 0.0;
  // A library change over the API mid-run (issue 38): this many seconds after the generator
  // starts, the client PUTs (If-Match from a GET) a new threshold of one pattern (shape1, or
  // shape0 with one pattern; 1% above the library's), a new pattern (`bench-put`: shape0's
  // values), or both; state.dir is then set (changes need it). Measured: each PUT's latency,
  // the rounds between its arrival and its application (the daemon's history), the events
  // before and after it, and the reconciled counters across it (E2ePut, E2eRun).
  std::optional<double> api_put_at_s;
  std::string api_put = "both";  // threshold | pattern | both
  bool overload = false;         // SIGTERM as soon as the generator stops; mismatches are reported
                                 // but do not fail the run
  bool check_plan = true;        // check the planted data with the reference before the sweep
  std::string work_dir;          // keep configurations and daemon logs here; "" = a temp dir
};

struct Percentiles {
  std::size_t count = 0;
  double p50 = 0, p99 = 0, max = 0, mean = 0;
};
Percentiles percentiles(std::vector<double> values);

// One library change of api_put_at_s, measured.
struct E2ePut {
  std::string what;       // threshold | pattern
  std::string pattern;    // the pattern changed or added
  int status = 0;         // the PUT's answer (200 / 201; else the change failed)
  double at_s = 0;        // sent, since the generator started
  double latency_ms = 0;  // request to answer
  // From GET /api/v1/changes (the daemon's history): the rounds begun before the PUT reached
  // the scheduler and before it applied, their difference (0: the first round to begin after
  // it arrived matched with the new definition), when it applied, and the samples the daemon
  // had matched then (every later one is matched with the new definition).
  std::uint64_t round_asked = 0, round_applied = 0, rounds_between = 0;
  std::int64_t applied_ns = 0;
  double samples_matched = 0;
  // The events of the new definition (the new threshold, the new pattern): detected before it
  // applied (must be 0), after it; the old threshold's detected after it (must be 0); and the
  // first event of the new definition, ms after it applied.
  std::uint64_t new_before = 0, new_after = 0, old_after = 0;
  std::optional<double> first_new_event_ms;
  // Answered 2xx, found applied in the history, no event of the new definition before it nor
  // of the old after it, and some of the new after it.
  bool ok() const;
};

// One scrape of the daemon during a run.
struct E2eSample {
  double t_s = 0;  // since the generator started (negative before)
  double accepted = 0, matched = 0, rejected = 0;
  std::optional<double> backlog_samples, backlog_oldest_age_s;
  double cpu_s = 0, rss_bytes = 0;
};

struct E2eRun {
  std::string backend;
  std::size_t streams = 0, frame = 0;
  std::string error;  // non-empty: the run failed (the daemon did not start, ...)
  // The generator.
  LoadResult load;
  double target_samples_per_s = 0;  // rate x streams; 0 = as fast as possible
  std::uint64_t probe_samples = 0;  // sent on the probe stream to check the subscription
  // This process's CPU time while the generator ran: the generating thread, ZeroMQ's I/O
  // thread that writes its messages, the subscriber and the scrapes.
  double bench_process_cpu_s = 0;
  // The daemon's counters at the end (the last scrape before SIGTERM).
  double accepted = 0, matched = 0, messages = 0;
  std::map<std::string, double> rejected;  // by reason, as /metrics names them
  double rejected_total = 0;
  double events_total = 0, events_published = 0, events_dropped = 0;
  std::optional<double> backlog_samples_max, backlog_oldest_age_max_s;
  double batches = 0, batch_seconds = 0, device_seconds = 0;  // as DaemonMetrics, at the end
  std::map<std::string, double> host_seconds;
  double windows_evaluated = 0, flat_windows = 0;  // window mode, as DaemonMetrics, at the end
  std::map<std::string, double> windows_pruned;
  std::string settled;                 // accounted | stable | timeout | overload
  double start_s = 0;                  // spawn to /healthz 200
  double measured_s = 0;               // generator start to everything accepted and matched
  double sustained_samples_per_s = 0;  // samples matched / measured_s
  double matched_during_send_samples_per_s = 0;  // matched while the generator ran / its time
  double daemon_cpu_s = 0;                       // /proc/<pid>/stat utime + stime before SIGTERM
  double daemon_cpu_total_s = 0;                 // with the drain (the child's rusage at exit)
  double daemon_peak_rss_bytes = 0;              // VmHWM before SIGTERM
  double daemon_maxrss_bytes = 0;                // the child's rusage at exit
  double exit_s = 0;                             // SIGTERM to exit
  // api_poll_hz: each answer's time, ms (events list; plot.svg), and answers not 200.
  std::vector<double> api_events_ms, api_plot_ms;
  std::uint64_t api_failures = 0;
  // api_put_at_s: the changes, and the counters reconciled across them at the end (each
  // pattern's samples matched, warpwatch_pattern_samples_total, against the samples accepted
  // since it was configured): one line each, "ok" or "FAIL".
  std::vector<E2ePut> puts;
  std::map<std::string, double> pattern_samples;
  std::vector<std::string> counter_checks;
  bool counters_reconciled = true;
  std::uint64_t boundary_missed = 0;  // occurrences of a changed pattern cut by the change
  // api_put_at_s sets state.dir, whose shutdown checkpoints pending candidates instead of
  // reporting them: streams' last occurrences not reported, not counted missing.
  std::uint64_t pending_at_exit = 0;
  int exit_status = -1;  // the exit code; -1 when killed by a signal
  int exit_signal = 0;
  bool killed = false;  // still running exit_timeout_s after SIGTERM: SIGKILLed
  // Reconciliation.
  std::uint64_t planted = 0, found_once = 0, missing = 0, duplicated = 0, unexpected = 0;
  std::uint64_t probe_events = 0, events_after_sigterm = 0;
  double unaccounted_samples = 0;     // sent - accepted - rejected
  std::vector<std::string> problems;  // the first few mismatches, described
  Percentiles latency_ms;             // event received - last sample sent, events before SIGTERM
  Percentiles detect_latency_ms;      // the event's detected_ns - last sample sent
  std::vector<E2eSample> series;
  bool reconciled() const;
  bool ok(bool overload) const;
};

struct E2eReport {
  E2eOptions options;
  kernels::MatchParams params;  // the library's defaults: mode, metric, band, znorm, threshold
  double threshold = 0;
  std::optional<WindowThreshold> window_threshold;  // window mode: how threshold was derived
  double noise = 0;
  std::uint64_t jitter = 0;
  std::vector<LoadPattern> patterns;
  std::string plan_check;  // "ok: ...", or what the reference found
  std::string date, cpu_model, os;
  unsigned hardware_threads = 0;
  std::vector<E2eRun> runs;
  bool ok() const;
};

// Runs the sweep: every backend, every frame size, every stream count, one daemon each.
// Progress goes to `log`. Throws std::invalid_argument for bad options, and when the
// planted data fails the reference check.
E2eReport run_e2e(const E2eOptions& options, std::ostream& log);

void print_e2e_table(const E2eReport& report, std::ostream& out);
std::string e2e_json(const E2eReport& report);
// What write_e2e_plot draws, read back from e2e_json's text (a sweep run on a machine
// without gnuplot is plotted elsewhere: `bench e2e --replot FILE --plot PNG`): the options'
// frames, patterns and pattern length, and per run its backend, streams, frame, error,
// sustained samples/s and p99 latency. Throws std::runtime_error naming what is missing.
E2eReport e2e_report_from_json(const std::string& json_text);
// A PNG: samples/s and p99 latency against streams, one curve per backend (and frame
// size), drawn by `gnuplot_program` from a generated script. Throws std::runtime_error
// when gnuplot is missing (naming the Debian package, gnuplot-nox) or fails.
void write_e2e_plot(const E2eReport& report, const std::string& png_path,
                    const std::string& gnuplot_program = "gnuplot");

// The counters of warpwatchd's /metrics that the bench reads. Rejection reasons are taken
// from the `reason` label as they come, so that new ones are counted too; the backlog
// gauges are optional (a daemon without bounded ingest queues has none).
struct DaemonMetrics {
  double accepted = 0, matched = 0, messages = 0;
  std::map<std::string, double> rejected;  // by reason
  double rejected_total = 0;
  double events_total = 0, events_published = 0, events_dropped = 0;
  std::optional<double> backlog_samples, backlog_oldest_age_s;
  // Where the rounds' time went: batches, their summed duration, the matcher's host time by
  // phase (prepare, start, collect, trim, wait) and its device time (cuda).
  double batches = 0, batch_seconds = 0, device_seconds = 0;
  std::map<std::string, double> host_seconds;  // by phase
  // Window mode: the windows compared (not flat), skipped as flat, and of the compared ones
  // those the cpu backend's lower bounds pruned, by stage (lb_kim, ..., abandoned).
  double windows_evaluated = 0, flat_windows = 0;
  std::map<std::string, double> windows_pruned;
  std::map<std::string, double> pattern_samples;  // warpwatch_pattern_samples_total by pattern
  double rounds = 0;                              // warpwatch_rounds_total
};
DaemonMetrics parse_metrics(const std::string& prometheus_text);

// The warpwatchd beside the running executable (/proc/self/exe); "" when there is none.
std::string daemon_beside_self();

}  // namespace warpwatch::bench
