// `warpwatch bench e2e`'s report: the table, the JSON document and the gnuplot PNG.
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <ostream>
#include <sstream>
#include <stdexcept>

#include "warpwatch/bench/e2e.hpp"

extern char** environ;

namespace warpwatch::bench {
namespace {

using json = nlohmann::ordered_json;

json to_json(const Percentiles& p) {
  return {{"count", p.count}, {"p50", p.p50}, {"p99", p.p99}, {"max", p.max}, {"mean", p.mean}};
}

json optional_number(const std::optional<double>& v) {
  return v ? json(*v) : json(nullptr);
}

json puts_json(const E2eRun& r) {
  json puts = json::array();
  for (const E2ePut& p : r.puts)
    puts.push_back({{"what", p.what},
                    {"pattern", p.pattern},
                    {"status", p.status},
                    {"at_s", p.at_s},
                    {"latency_ms", p.latency_ms},
                    {"round_asked", p.round_asked},
                    {"round_applied", p.round_applied},
                    {"rounds_between", p.rounds_between},
                    {"applied_ns", p.applied_ns},
                    {"samples_matched_before", p.samples_matched},
                    {"new_definition_events_before", p.new_before},
                    {"new_definition_events_after", p.new_after},
                    {"old_definition_events_after", p.old_after},
                    {"first_new_event_ms", optional_number(p.first_new_event_ms)},
                    {"ok", p.ok()}});
  return {{"changes", puts},
          {"counters_ok", r.counters_reconciled},
          {"pattern_samples", r.pattern_samples},
          {"counter_checks", r.counter_checks},
          {"boundary_missed", r.boundary_missed},
          {"pending_at_exit", r.pending_at_exit}};
}

json run_json(const E2eRun& r, bool overload) {
  json rejected = json::object();
  for (const auto& [reason, n] : r.rejected) rejected[reason] = n;
  json series = json::array();
  for (const auto& s : r.series)
    series.push_back({{"t_s", s.t_s},
                      {"accepted", s.accepted},
                      {"matched", s.matched},
                      {"rejected", s.rejected},
                      {"backlog_samples", optional_number(s.backlog_samples)},
                      {"backlog_oldest_age_s", optional_number(s.backlog_oldest_age_s)},
                      {"daemon_cpu_s", s.cpu_s},
                      {"daemon_rss_bytes", s.rss_bytes}});
  const LoadResult& g = r.load;
  return {
      {"backend", r.backend},
      {"streams", r.streams},
      {"frame", r.frame},
      {"ok", r.ok(overload)},
      {"error", r.error.empty() ? json(nullptr) : json(r.error)},
      {"generator",
       {{"samples", g.samples},
        {"messages", g.messages},
        {"bytes", g.payload_bytes + g.id_bytes},
        {"payload_bytes", g.payload_bytes},
        {"seconds", g.seconds},
        {"samples_per_s", g.samples_per_s()},
        {"target_samples_per_s", r.target_samples_per_s},
        {"cpu_s", g.cpu_seconds},
        {"bench_process_cpu_s", r.bench_process_cpu_s},
        {"blocked_s", g.blocked_seconds},
        {"blocked_sends", g.blocked_sends},
        {"unsent_messages", g.unsent_messages},
        {"stopped_by", g.stopped_by},
        {"planted", g.occurrences.size()},
        {"occurrences_cut", g.occurrences_cut},
        {"probe_samples", r.probe_samples}}},
      {"daemon",
       {{"start_s", r.start_s},
        {"accepted_samples", r.accepted},
        {"matched_samples", r.matched},
        {"messages", r.messages},
        {"rejected", rejected},
        {"rejected_total", r.rejected_total},
        {"events_total", r.events_total},
        {"events_published", r.events_published},
        {"events_dropped", r.events_dropped},
        {"backlog_samples_max", optional_number(r.backlog_samples_max)},
        {"backlog_oldest_age_max_s", optional_number(r.backlog_oldest_age_max_s)},
        {"batches", r.batches},
        {"batch_duration_s", r.batch_seconds},
        {"matcher_host_s", r.host_seconds},
        {"matcher_device_s", r.device_seconds},
        {"windows_evaluated", r.windows_evaluated},
        {"flat_windows_skipped", r.flat_windows},
        {"windows_pruned", r.windows_pruned},
        {"cpu_s", r.daemon_cpu_s},
        {"cpu_total_s", r.daemon_cpu_total_s},
        {"peak_rss_bytes", r.daemon_peak_rss_bytes},
        {"maxrss_bytes", r.daemon_maxrss_bytes},
        {"exit_s", r.exit_s},
        {"exit_status", r.exit_status},
        {"exit_signal", r.exit_signal},
        {"killed", r.killed}}},
      {"throughput",
       {{"settled", r.settled},
        {"measured_s", r.measured_s},
        {"sent_samples_per_s", g.samples_per_s()},
        {"sustained_samples_per_s", r.sustained_samples_per_s},
        {"matched_during_send_samples_per_s", r.matched_during_send_samples_per_s}}},
      {"latency_ms", to_json(r.latency_ms)},
      {"detect_latency_ms", to_json(r.detect_latency_ms)},
      {"reconciliation",
       {{"ok", r.reconciled()},
        {"sent_samples", g.samples + r.probe_samples},
        {"accepted_samples", r.accepted},
        {"rejected_total", r.rejected_total},
        {"unaccounted_samples", r.unaccounted_samples},
        {"planted", r.planted},
        {"found_once", r.found_once},
        {"missing", r.missing},
        {"duplicated", r.duplicated},
        {"unexpected", r.unexpected},
        {"probe_events", r.probe_events},
        {"events_after_sigterm", r.events_after_sigterm},
        {"problems", r.problems}}},
      {"api_put", puts_json(r)},
      {"series", series},
  };
}

std::string mega(double v) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(v >= 100e6 ? 0 : 2) << v / 1e6 << "M";
  return os.str();
}

std::string fixed(double v, int digits) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(digits) << v;
  return os.str();
}

bool executable_on_path(const std::string& program) {
  if (program.find('/') != std::string::npos) return ::access(program.c_str(), X_OK) == 0;
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path ? path : "/usr/bin:/bin");
  for (std::string dir; std::getline(dirs, dir, ':');) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        ::access(candidate.c_str(), X_OK) == 0)
      return true;
  }
  return false;
}

}  // namespace

std::string e2e_json(const E2eReport& report) {
  const E2eOptions& o = report.options;
  json patterns = json::array();
  for (const auto& p : report.patterns)
    patterns.push_back({{"name", p.name}, {"length", p.length()}, {"values", p.values}});
  json runs = json::array();
  for (const auto& r : report.runs) runs.push_back(run_json(r, o.overload));
  const json j = {
      {"date", report.date},
      {"machine",
       {{"cpu", report.cpu_model},
        {"hardware_threads", report.hardware_threads},
        {"os", report.os}}},
      {"options",
       {{"daemon", o.daemon},
        {"config_template", o.config_template},
        {"streams", o.streams},
        {"frames", o.frames},
        {"backends", o.backends},
        {"patterns", o.patterns},
        {"pattern_length", o.pattern_length},
        {"mode", kernels::to_string(report.params.mode)},
        {"band_percent", optional_number(o.band_percent)},
        {"band_cells", optional_number(report.params.distance.band)},
        {"znorm", report.params.normalize == kernels::Normalize::znorm},
        {"rate_per_stream", o.rate},
        {"duration_s", o.duration_s},
        {"samples_per_stream", o.samples},
        {"every", o.every},
        {"jitter", report.jitter},
        {"noise", report.noise},
        {"threshold", report.threshold},
        {"window_threshold", report.window_threshold
                                 ? json{{"copy", report.window_threshold->copy},
                                        {"decoy", report.window_threshold->decoy}}
                                 : json(nullptr)},
        {"seed", o.seed},
        {"encoding", to_string(o.encoding)},
        {"send_hwm", o.send_hwm},
        {"tick_ms", o.tick_ms ? json(*o.tick_ms) : json(nullptr)},
        {"batch_samples", o.batch_samples ? json(*o.batch_samples) : json(nullptr)},
        {"daemon_threads", o.daemon_threads ? json(*o.daemon_threads) : json(nullptr)},
        {"drain_grace_ms", o.drain_grace_ms ? json(*o.drain_grace_ms) : json(nullptr)},
        {"overload", o.overload}}},
      {"plan_check", report.plan_check},
      {"ok", report.ok()},
      {"patterns", patterns},
      {"runs", runs},
  };
  return j.dump(1) + "\n";
}

void print_e2e_table(const E2eReport& report, std::ostream& out) {
  const kernels::MatchParams& params = report.params;
  out << kernels::to_string(params.mode) << " mode, " << report.options.patterns
      << " patterns of m " << report.options.pattern_length << ", "
      << kernels::to_string(params.distance.metric) << " ("
      << kernels::to_string(params.distance.cost) << ")";
  if (params.distance.band) out << ", band " << *params.distance.band << " cells";
  if (params.normalize == kernels::Normalize::znorm) out << ", znorm";
  out << ", threshold " << report.threshold << "\n";
  out << "backend  streams  frame   sent/s  sustained/s  lat p50 ms  p99 ms  max ms  daemon cpu s"
         "  peak RSS MB  gen cpu s  blocked s  found/planted  unexp  rejected  exit s  ok\n";
  for (const auto& r : report.runs) {
    out << std::left << std::setw(9) << r.backend << std::right << std::setw(7) << r.streams
        << std::setw(7) << r.frame;
    if (!r.error.empty()) {
      out << "  error: " << r.error << "\n";
      continue;
    }
    out << std::setw(9) << mega(r.load.samples_per_s()) << std::setw(13)
        << mega(r.sustained_samples_per_s) << std::setw(12) << fixed(r.latency_ms.p50, 1)
        << std::setw(8) << fixed(r.latency_ms.p99, 1) << std::setw(8) << fixed(r.latency_ms.max, 1)
        << std::setw(14) << fixed(r.daemon_cpu_total_s, 2) << std::setw(13)
        << fixed(r.daemon_peak_rss_bytes / 1048576.0, 1) << std::setw(11)
        << fixed(r.load.cpu_seconds, 2) << std::setw(11) << fixed(r.load.blocked_seconds, 2)
        << std::setw(15) << (std::to_string(r.found_once) + "/" + std::to_string(r.planted))
        << std::setw(7) << r.unexpected << std::setw(10)
        << static_cast<std::uint64_t>(r.rejected_total) << std::setw(8) << fixed(r.exit_s, 2)
        << "  " << (r.ok(report.options.overload) ? "yes" : "NO") << "\n";
  }
  for (const auto& r : report.runs) {
    const std::string label =
        r.backend + ", " + std::to_string(r.streams) + " streams, frame " + std::to_string(r.frame);
    for (const E2ePut& p : r.puts) {
      out << label << ": PUT " << p.what << " " << p.pattern << ": " << p.status << " in "
          << fixed(p.latency_ms, 1) << " ms, sent at " << fixed(p.at_s, 2)
          << " s; applied in round " << p.round_applied << ", arrived in round " << p.round_asked
          << ": " << p.rounds_between << " round(s) between ("
          << (p.rounds_between <= 1 ? "within one round" : "LATER")
          << "); events of the new definition " << p.new_before << " before, " << p.new_after
          << " after";
      if (p.first_new_event_ms)
        out << " (the first " << fixed(*p.first_new_event_ms, 1) << " ms after)";
      out << "; of the old after: " << p.old_after << "  " << (p.ok() ? "ok" : "FAIL") << "\n";
    }
    if (!r.counter_checks.empty()) {
      out << label << ": counters " << (r.counters_reconciled ? "reconciled" : "NOT RECONCILED")
          << ": sent " << fixed(static_cast<double>(r.load.samples + r.probe_samples), 0)
          << " = accepted " << fixed(r.accepted, 0) << " + rejected " << fixed(r.rejected_total, 0)
          << (r.unaccounted_samples == 0 ? " (ok)" : " (FAIL)") << "\n";
      for (const auto& c : r.counter_checks) out << label << ":   " << c << "\n";
      if (r.boundary_missed > 0)
        out << label << ":   " << r.boundary_missed
            << " occurrence(s) of the changed pattern straddled the change (not reported)\n";
      if (r.pending_at_exit > 0)
        out << label << ":   " << r.pending_at_exit
            << " stream(s)' last occurrence pending at SIGTERM, kept in the checkpoint "
               "(state.dir) instead of reported\n";
    }
    for (const auto& p : r.problems) out << label << ": " << p << "\n";
  }
}

E2eReport e2e_report_from_json(const std::string& json_text) {
  E2eReport report;
  try {
    const auto j = nlohmann::json::parse(json_text);
    const auto& o = j.at("options");
    report.options.frames = o.at("frames").get<std::vector<std::size_t>>();
    report.options.patterns = o.at("patterns").get<std::size_t>();
    report.options.pattern_length = o.at("pattern_length").get<std::size_t>();
    if (o.contains("mode"))  // reports before window mode were all stream mode
      report.params.mode =
          kernels::parse_mode(o.at("mode").get<std::string>()).value_or(kernels::Mode::stream);
    for (const auto& r : j.at("runs")) {
      E2eRun run;
      run.backend = r.at("backend").get<std::string>();
      run.streams = r.at("streams").get<std::size_t>();
      run.frame = r.at("frame").get<std::size_t>();
      if (!r.at("error").is_null()) run.error = r.at("error").get<std::string>();
      if (run.error.empty()) {
        run.sustained_samples_per_s =
            r.at("throughput").at("sustained_samples_per_s").get<double>();
        run.latency_ms.p99 = r.at("latency_ms").at("p99").get<double>();
      }
      report.runs.push_back(std::move(run));
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("not a bench e2e JSON report: ") + e.what());
  }
  return report;
}

void write_e2e_plot(const E2eReport& report, const std::string& png_path,
                    const std::string& gnuplot_program) {
  if (!executable_on_path(gnuplot_program))
    throw std::runtime_error("--plot needs gnuplot ('" + gnuplot_program +
                             "' is not on PATH): install the Debian package gnuplot-nox "
                             "(make bench-deps)");
  // One curve per backend and frame size: streams, sustained samples/s, p99 latency.
  std::map<std::string, std::map<std::size_t, std::pair<double, double>>> curves;
  for (const auto& r : report.runs) {
    if (!r.error.empty()) continue;
    std::string name = r.backend;
    if (report.options.frames.size() > 1) name += ", frame " + std::to_string(r.frame);
    curves[name][r.streams] = {r.sustained_samples_per_s, r.latency_ms.p99};
  }
  if (curves.empty()) throw std::runtime_error("--plot: no run succeeded, nothing to draw");
  const auto base = std::filesystem::path(png_path).replace_extension();
  const std::string data_path = base.string() + ".dat", script_path = base.string() + ".gp";
  {
    std::ofstream data(data_path);
    for (const auto& [name, points] : curves) {
      data << "# " << name << "\n";
      for (const auto& [streams, v] : points)
        data << streams << " " << v.first << " " << v.second << "\n";
      data << "\n\n";
    }
    if (!data) throw std::runtime_error("cannot write " + data_path);
  }
  {
    std::ofstream gp(script_path);
    gp << "set terminal png size 900,900\n"
       << "set output '" << png_path << "'\n"
       << "set multiplot layout 2,1 title 'warpwatch bench e2e: "
       << kernels::to_string(report.params.mode) << " mode, " << report.options.patterns
       << " patterns, m " << report.options.pattern_length << "'\n"
       << "set logscale x\nset grid\nset key outside right\nset xlabel 'streams'\n"
       << "set ylabel 'samples/s (accepted and matched)'\nset format y '%.1s%c'\n";
    std::size_t index = 0;
    gp << "plot";
    for (const auto& [name, points] : curves) {
      gp << (index ? ", " : " ") << "'" << data_path << "' index " << index
         << " using 1:2 with linespoints title '" << name << "'";
      ++index;
    }
    gp << "\nset ylabel 'p99 detection latency (ms)'\nset format y '%g'\nplot";
    index = 0;
    for (const auto& [name, points] : curves) {
      gp << (index ? ", " : " ") << "'" << data_path << "' index " << index
         << " using 1:3 with linespoints title '" << name << "'";
      ++index;
    }
    gp << "\nunset multiplot\n";
    if (!gp) throw std::runtime_error("cannot write " + script_path);
  }
  std::vector<std::string> args = {gnuplot_program, script_path};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int error =
      ::posix_spawnp(&pid, gnuplot_program.c_str(), nullptr, nullptr, argv.data(), environ);
  if (error != 0) throw std::runtime_error("cannot run " + gnuplot_program);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw std::runtime_error(gnuplot_program + " failed on " + script_path);
  std::error_code ec;
  if (std::filesystem::file_size(png_path, ec) == 0 || ec)
    throw std::runtime_error(gnuplot_program + " wrote no " + png_path);
}

}  // namespace warpwatch::bench
