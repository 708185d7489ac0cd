// `warpwatch bench` output: the aligned table on stdout and the --json document.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include "bench_internal.hpp"
#include "warpwatch/bench/bench.hpp"

namespace warpwatch::bench {
namespace {

// 3 significant digits with an SI prefix: 1.23G, 456M, 7.89k.
std::string si(double v, const char* unit = "") {
  static constexpr const char* prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  int p = 0;
  while (v >= 999.5 && p < 6) {
    v /= 1000.0;
    ++p;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.3g%s%s", v, prefixes[p], unit);
  return text;
}

std::string fixed(double v, const char* format) {
  char text[32];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

std::string extra_text(const Measurement& m) {
  std::string text;
  bool memory_bound = false;
  for (const auto& [name, value] : m.extra)
    if (name == "bound_is_memory") memory_bound = value != 0.0;
  for (const auto& [name, value] : m.extra) {
    if (name == "bound_is_memory") continue;
    if (!text.empty()) text += ", ";
    if (name == "memory_bound_cells_per_s")
      text += "memory bound " + si(value);
    else if (name == "bound_cells_per_s")
      text += std::string("bound ") + si(value) + (memory_bound ? " (memory)" : " (compute)");
    else if (name == "fraction_of_bound")
      text += fixed(100.0 * value, "%.1f") + "% of bound";
    else if (name == "samples_per_match")
      text += "a match per " + fixed(value, "%.0f") + " samples";
    else if (name == "state_bytes_per_s")
      text += "state " + si(value, "B/s");
    else if (name == "matches")
      text += fixed(value, "%.0f") + " matches";
    else if (name == "speedup_vs_1_thread")
      text += "speed-up " + fixed(value, "%.2f") + "x";
    else if (name.ends_with("_us"))
      text += name + " " + fixed(value, "%.0f");
    else if (name == "backend_counted_cells")
      text += "backend counted " + si(value) + " cells";
    else
      text += name + " " + si(value);
  }
  return text;
}

const char* const header[] = {"case",        "shape", "backend", "thr",     "cells",
                              "median s",    "min s", "max s",   "cells/s", "cells/s/core",
                              "ref cells/s", "ratio", "ceiling", "% ceil",  "extra"};
constexpr std::size_t columns = std::size(header);
// Text columns are aligned left, numbers right.
bool left_aligned(std::size_t c) {
  return c <= 2 || c == columns - 1;
}

std::vector<std::string> cells_of(const Row& r) {
  const Measurement& m = r.result;
  std::vector<std::string> c(columns, "-");
  c[0] = r.case_name;
  c[1] = r.shape;
  c[2] = r.backend;
  if (r.threads) c[3] = std::to_string(r.threads);
  c[4] = si(static_cast<double>(m.cells()));
  c[5] = fixed(m.median_s(), "%.4g");
  c[6] = fixed(m.min_s(), "%.4g");
  c[7] = fixed(m.max_s(), "%.4g");
  c[8] = si(m.cells_per_s());
  if (r.threads) c[9] = si(m.cells_per_s() / r.threads);
  if (r.reference)
    c[10] = si(r.reference->cells_per_s());
  else if (!r.reference_error.empty())
    c[10] = "error";
  if (auto ratio = r.ratio()) c[11] = fixed(*ratio, "%.3g") + "x";
  if (r.ceiling_cells_per_s) {
    c[12] = si(*r.ceiling_cells_per_s);
    c[13] = fixed(100.0 * m.cells_per_s() / *r.ceiling_cells_per_s, "%.1f") + "%";
  } else {
    c[12] = "n/a";
  }
  c[14] = extra_text(m);
  if (!r.auto_picks.empty())
    c[14] += (c[14].empty() ? "auto picks " : ", auto picks ") + r.auto_picks;
  return c;
}

nlohmann::ordered_json measurement_json(const Measurement& m) {
  nlohmann::ordered_json dims = nlohmann::ordered_json::object();
  for (const auto& [name, value] : m.dims) dims[name] = value;
  nlohmann::ordered_json extra = nlohmann::ordered_json::object();
  for (const auto& [name, value] : m.extra) extra[name] = value;
  return {{"shape", m.shape},
          {"dims", dims},
          {"cells_per_run", m.cells_per_run},
          {"runs", m.runs()},
          {"cells", m.cells()},
          {"seconds",
           {{"median", m.median_s()}, {"min", m.min_s()}, {"max", m.max_s()}, {"runs", m.seconds}}},
          {"cells_per_s", m.cells_per_s()},
          {"extra", extra}};
}

template <class T>
nlohmann::ordered_json or_null(const std::optional<T>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

}  // namespace

void print_table(const Report& report, std::ostream& out) {
  std::vector<std::vector<std::string>> lines{{std::begin(header), std::end(header)}};
  for (const Row& r : report.rows)
    if (r.error.empty() && r.trimmed.empty()) lines.push_back(cells_of(r));
  std::vector<std::size_t> width(columns, 0);
  for (const auto& line : lines)
    for (std::size_t c = 0; c < columns; ++c) width[c] = std::max(width[c], line[c].size());
  if (lines.size() == 1) lines.clear();  // no row was measured: the error lines say why
  for (const auto& line : lines) {
    std::string text;
    for (std::size_t c = 0; c < columns; ++c) {
      const std::string pad(width[c] - line[c].size(), ' ');
      if (c) text += "  ";
      text += left_aligned(c) ? line[c] + (c + 1 < columns ? pad : "") : pad + line[c];
    }
    out << text << "\n";
  }
  for (const Row& r : report.rows)
    if (!r.error.empty())
      out << r.case_name << " (" << r.shape << ") on " << r.backend << ": error: " << r.error
          << "\n";
  for (const Row& r : report.rows)
    if (!r.trimmed.empty())
      out << r.case_name << " (" << r.shape << ") on " << r.backend << ": " << r.trimmed << "\n";
  if (report.copy_bytes_per_s)
    out << "memory bound (stream_matrix): " << si(*report.copy_bytes_per_s, "B/s")
        << " read + written by "
        << (report.backend == "cuda" ? "a device-to-device copy"
                                     : "each thread updating 64 MiB in place")
        << "; a batch reads and writes each pair's column once (8 bytes a row), so "
           "16 / chunk bytes a cell: bound = that rate x chunk / 16; the compute ceiling of a "
           "stream_matrix row counts 3 more ops a cell for each dimension past the first; "
           "bound = the lower of the two\n";

  // What the columns mean, and where the reference and ceiling numbers come from.
  out << "\ntimes are per run (stream_dtw/threads: one batch; others: one distance_matrix call); "
         "cells = cells per run x runs; cells/s = cells per run / median\n";
  // One line per reference subset (the threads rows share stream_dtw's): its cases, its
  // shape and its measured rate.
  std::vector<std::pair<std::string, std::string>> subsets;  // cases, "shape -> rate"
  for (const Row& r : report.rows) {
    if (!r.reference && r.reference_error.empty()) continue;
    const std::string what =
        r.reference ? r.reference->shape + " -> " + si(r.reference->cells_per_s()) + " cells/s"
                    : "error: " + r.reference_error;
    auto same = std::find_if(subsets.begin(), subsets.end(),
                             [&](const auto& s) { return s.second == what; });
    if (same == subsets.end())
      subsets.emplace_back(r.case_name, what);
    else if (same->first.find(r.case_name) == std::string::npos)
      same->first += ", " + r.case_name;
  }
  if (!subsets.empty()) {
    out << "ref cells/s: the reference backend on a subset of each case; ratio = cells/s / ref "
           "cells/s\n";
    for (const auto& [cases, what] : subsets) out << "  " << cases << ": " << what << "\n";
  }
  if (report.float_ops_per_s || report.float_ops_per_s_1_thread) {
    out << "ceiling: a calibration loop of independent float32 add+min ran at ";
    if (report.float_ops_per_s)
      out << si(*report.float_ops_per_s) << " ops/s on " << report.threads << " thread(s)";
    if (report.float_ops_per_s && report.float_ops_per_s_1_thread) out << " and ";
    if (report.float_ops_per_s_1_thread)
      out << si(*report.float_ops_per_s_1_thread) << " ops/s on 1 thread";
    out << "; ceiling cells/s = that / " << dtw_ops_per_cell << " ops per dtw cell, / "
        << twed_ops_per_cell << " per twed cell\n";
  }
  if (report.device_float_ops_per_s) {
    out << "ceiling (cuda): a device loop of independent float32 add+min ran at "
        << si(*report.device_float_ops_per_s)
        << " ops/s (adds alone: " << si(report.device_add_ops_per_s.value_or(0.0))
        << " ops/s; SMs x FP32 lanes x clock = "
        << si(report.device_nominal_float_ops_per_s.value_or(0.0)) << "); ceiling cells/s = that / "
        << dtw_ops_per_cell << " per dtw cell, / " << twed_ops_per_cell << " per twed cell\n";
    // The ceiling keeps docs/architecture.md's 4 operations a dtw cell on every backend; say where
    // the cuda kernels' own instruction counts differ, and what they would allow.
    const double rate = *report.device_float_ops_per_s;
    out << "  (the cuda dtw kernels do not spend 4: the min of three is one instruction on sm_90 "
           "(VIMNMX3), so a whole-series dtw cell is 3 (issue limit that / 3 = "
        << si(rate / 3.0) << " cells/s) and a stream-mode cell, which also tracks its start, is 8 ("
        << si(rate / 8.0) << " cells/s))\n";
    out << "cuda times are kernel times from CUDA events after a warm-up; wall_cells_per_s "
           "(extra) counts the whole call with its copies (stream_dtw: batches pipelined, "
           "submit(b) then collect(b-1), as the daemon runs them); *_us: host microseconds a "
           "batch (prepare: checks and histories; start: packing, copies, launches; collect: "
           "with wait, the time blocked on the device; trim: history trims)\n";
  }
  for (const Row& r : report.rows)
    if (!r.ceiling_cells_per_s && !r.ceiling_note.empty()) {
      out << "ceiling: " << r.ceiling_note << "\n";
      break;
    }
  for (const std::string& w : report.warnings) out << "warning: " << w << "\n";
  out << "machine: " << report.cpu_model << ", " << report.hardware_threads
      << " hardware threads, SIMD target " << report.simd_target << "; cuda: " << report.cuda
      << "\n";
}

std::string to_json(const Report& report) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const Row& r : report.rows) {
    nlohmann::ordered_json row = {
        {"case", r.case_name},
        {"backend", r.backend},
        {"threads", r.threads ? nlohmann::ordered_json(r.threads) : nullptr},
        {"shape", r.shape},
        {"error",
         r.error.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.error)}};
    if (!r.trimmed.empty()) row["trimmed"] = r.trimmed;
    if (r.error.empty() && r.trimmed.empty()) {
      row.update(measurement_json(r.result));
      row["cells_per_s_per_core"] =
          r.threads ? nlohmann::ordered_json(r.result.cells_per_s() / r.threads) : nullptr;
      row["reference"] =
          r.reference ? measurement_json(*r.reference) : nlohmann::ordered_json(nullptr);
      if (!r.reference_error.empty()) row["reference_error"] = r.reference_error;
      row["ratio"] = or_null(r.ratio());
      row["ceiling_cells_per_s"] = or_null(r.ceiling_cells_per_s);
      row["ceiling_fraction"] =
          r.ceiling_cells_per_s
              ? nlohmann::ordered_json(r.result.cells_per_s() / *r.ceiling_cells_per_s)
              : nlohmann::ordered_json(nullptr);
      if (!r.ceiling_note.empty()) row["ceiling_note"] = r.ceiling_note;
      if (!r.auto_picks.empty()) row["auto_picks"] = r.auto_picks;
    }
    rows.push_back(std::move(row));
  }
  const nlohmann::ordered_json doc = {
      {"tool", "warpwatch bench"},
      {"date", report.date},
      {"machine",
       {{"cpu", report.cpu_model},
        {"hardware_threads", report.hardware_threads},
        {"os", report.os},
        {"hostname", report.hostname},
        {"cuda", report.cuda}}},
      {"backend", report.backend},
      {"devices", report.devices},
      {"device_count", report.devices.size()},
      {"simd_target", report.simd_target},
      {"threads", report.threads ? nlohmann::ordered_json(report.threads) : nullptr},
      {"quick", report.quick},
      {"repeat", report.repeat},
      {"seed", report.seed},
      {"calibration",
       {{"float_ops_per_s", or_null(report.float_ops_per_s)},
        {"float_ops_per_s_1_thread", or_null(report.float_ops_per_s_1_thread)},
        {"device_float_ops_per_s", or_null(report.device_float_ops_per_s)},
        {"device_add_ops_per_s", or_null(report.device_add_ops_per_s)},
        {"device_nominal_float_ops_per_s", or_null(report.device_nominal_float_ops_per_s)},
        {"copy_bytes_per_s", or_null(report.copy_bytes_per_s)},
        {"ops_per_cell", {{"dtw", dtw_ops_per_cell}, {"twed", twed_ops_per_cell}}}}},
      {"warnings", report.warnings},
      {"failed", report.failed()},
      {"rows", rows}};
  return doc.dump(2) + "\n";
}

}  // namespace warpwatch::bench
