// `warpwatch bench`: which cases run at which sizes, and the run that measures them.
#include "warpwatch/bench/bench.hpp"

#include <sys/utsname.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <map>
#include <ostream>
#include <stdexcept>
#include <thread>

#include "bench_internal.hpp"
#include "warpwatch/kernels/cpu.hpp"

namespace warpwatch::bench {
namespace {

using kernels::Backend;

// Default sizes per backend (the workloads). The reference's own defaults are the
// subsets it is measured on next to a fast backend, so that `--backend reference` takes
// seconds, not hours.
struct Sizes {
  std::size_t pairs, patterns, m;
  std::vector<std::size_t> chunks;
  std::size_t batches;
  std::size_t whole_series;
  std::vector<std::size_t> whole_lengths;
  std::size_t allpairs_series, allpairs_length, long_length;
};

Sizes default_sizes(Backend backend) {
  switch (backend) {
    case Backend::cuda:  // 1024 streams x 16 patterns; small chunks stress the state traffic
      return {16384, 16, 256, {512, 8}, 20, 1'000'000, {1023, 1000, 1500}, 1024, 256, 65536};
    case Backend::cpu:
      return {1024, 16, 256, {512}, 20, 10'000, {256}, 256, 256, 16384};
    default:
      return {16, 4, 256, {512}, 10, 200, {256}, 16, 256, 2048};
  }
}

// --quick: every case ~100x less work, so CI and tests run the whole bench in seconds.
Sizes quick_sizes(Sizes s) {
  s.patterns = std::max<std::size_t>(1, s.patterns / 2);  // 16x fewer pairs, a multiple of
  s.pairs = std::max(s.patterns, s.pairs / 16 / s.patterns * s.patterns);  // the patterns
  for (auto& c : s.chunks) c = std::max<std::size_t>(1, c / 8);            // 8x shorter batches
  s.whole_series = std::max<std::size_t>(1, s.whole_series / 100);         // 100x fewer series
  s.allpairs_series = std::max<std::size_t>(1, s.allpairs_series / 10);    // 100x fewer pairs
  s.long_length = std::max<std::size_t>(2, s.long_length / 10);            // 100x fewer cells
  return s;
}

// The reference measured next to a fast backend: the same kind of work on a subset sized
// to take a second or two per case (the reference does 10^7-10^8 cells/s), so the ratio
// compares rates, not sizes. The subset's shape is reported with it.
Shape reference_subset(Shape s, bool quick) {
  const double cells_per_run = quick ? 2e5 : 2e7;
  const auto fit = [](double v, std::size_t hi) {
    return std::clamp<std::size_t>(static_cast<std::size_t>(v), 1, hi);
  };
  switch (s.kind) {
    case Kind::stream_dtw:
      s.patterns = std::min<std::size_t>(s.patterns, 4);
      s.streams = fit(cells_per_run / static_cast<double>(s.patterns * s.chunk * s.m), s.streams);
      s.batches = std::min<std::size_t>(s.batches, 10);
      break;
    case Kind::whole_dtw:
      s.cols = fit(cells_per_run / (static_cast<double>(s.length) * s.length), s.cols);
      break;
    case Kind::twed_allpairs:
      s.rows = s.cols = fit(std::sqrt(cells_per_run) / static_cast<double>(s.length), s.rows);
      break;
    case Kind::twed_long:  // the reference keeps the whole (L+1)^2 float64 table
      s.length = std::min<std::size_t>(s.length, quick ? 256 : 2048);
      break;
    case Kind::window_search:  // a prefix of the series: the reference aligns every window
      s.length = std::min(
          s.length,
          s.m + fit(cells_per_run / static_cast<double>(window_search_cells(s.m, s.metric)),
                    s.length));
      break;
  }
  s.repeat = std::min<std::size_t>(s.repeat, 3);
  return s;
}

void require_positive(std::size_t v, const char* what) {
  if (v == 0) throw std::invalid_argument(std::string(what) + " must be at least 1");
}

// stream_matrix's reference: one pair with the row's m, d and data, at most 2e7 cells
// (--quick: 2e5) a row; the reference's rate hardly depends on the other axes.
Shape matrix_reference_subset(Shape s, bool quick) {
  const double cells = quick ? 2e5 : 2e7;
  s.streams = s.patterns = 1;
  s.batches = std::min<std::size_t>(s.batches, 8);
  const auto most = static_cast<std::size_t>(cells / static_cast<double>(s.m * (s.batches + 2)));
  s.chunk = std::clamp<std::size_t>(most, 1, s.chunk);
  return s;
}

struct Plan {
  std::string case_name;
  Shape shape;
  unsigned threads;
  std::string trimmed;  // stream_matrix: why the row is not run (empty: it is)
};

// stream_matrix: the axes, each narrowed by its option when given. A row runs
// enough batches for its time to be measured (at most 1000, at least 3) and is trimmed when
// they would be more cells than the backend's budget (a few seconds at its best rates).
std::vector<Plan> matrix_plans(const Options& o, unsigned own_threads) {
  const bool cuda = o.backend == Backend::cuda;
  const auto axis = [](std::vector<std::size_t> all, const std::vector<std::size_t>& given) {
    return given.empty() ? all : given;
  };
  const auto one = [](std::optional<std::size_t> v) {
    return v ? std::vector<std::size_t>{*v} : std::vector<std::size_t>{};
  };
  const std::vector<std::size_t> pairs =
      axis(o.quick ? std::vector<std::size_t>{1, 64} : std::vector<std::size_t>{1, 64, 16384},
           one(o.pairs));
  const std::vector<std::size_t> chunks = axis(
      o.quick ? std::vector<std::size_t>{8, 512} : std::vector<std::size_t>{1, 8, 64, 512, 65536},
      o.chunks);
  const std::vector<std::size_t> ms = axis(
      o.quick ? std::vector<std::size_t>{64} : std::vector<std::size_t>{64, 256, 1024}, one(o.m));
  const std::vector<std::size_t> dims = axis({1, 3}, o.dims);
  std::vector<bool> dense{false, true};
  if (o.matches == "none") dense = {false};
  if (o.matches == "dense") dense = {true};
  if (!o.matches.empty() && o.matches != "none" && o.matches != "dense")
    throw std::invalid_argument("--matches must be none or dense");
  const double target = o.quick ? 2e6 : cuda ? 4e11 : 1e9;   // cells measured a row
  const double budget = o.quick ? 2e8 : cuda ? 3e12 : 1e10;  // most cells a row may cost
  for (std::size_t p : pairs) require_positive(p, "--pairs");
  for (std::size_t d : dims) require_positive(d, "--dims");
  for (std::size_t c : chunks) require_positive(c, "--chunk");
  for (std::size_t m : ms)
    if (m < 2) throw std::invalid_argument("--m must be at least 2");
  std::vector<Plan> plans;
  for (bool d_dense : dense)
    for (std::size_t d : dims)
      for (std::size_t m : ms)
        for (std::size_t p : pairs)
          for (std::size_t chunk : chunks) {
            Shape s{.kind = Kind::stream_dtw, .m = m, .chunk = chunk};
            s.patterns = p >= 256 && p % 16 == 0 ? 16 : p;  // 16384: 1024 streams x 16
            s.streams = p / s.patterns;
            s.dims = d;
            s.dense = d_dense;
            s.data_dir = o.data_dir.c_str();  // o outlives the plans
            s.max_seconds = o.quick ? 0.5 : cuda ? 2.0 : 3.0;
            const double batch_cells = static_cast<double>(p) * chunk * m;
            s.batches = std::clamp<std::size_t>(static_cast<std::size_t>(target / batch_cells), 3,
                                                o.batches.value_or(1000));
            Plan plan{"stream_matrix", s, own_threads, ""};
            const double cells = batch_cells * static_cast<double>(s.batches + 2);
            const double bytes = static_cast<double>(s.streams * chunk * d) * 4.0;
            if (cells > budget)
              plan.trimmed = "trimmed: " + std::to_string(s.batches + 2) + " batches of " +
                             std::to_string(static_cast<std::uint64_t>(batch_cells)) +
                             " cells exceed the row budget of " +
                             std::to_string(static_cast<std::uint64_t>(budget));
            else if (bytes > 1e9)
              plan.trimmed = "trimmed: a batch's samples exceed 1 GB";
            plans.push_back(std::move(plan));
          }
  return plans;
}

// window_search: query m {128, 1023} x band {none, 5%; ed: none} x top-1 / threshold x data
// {random walk, ECG} over a series of 10^6 samples (--length: others; --m, --matches narrow;
// --metric: dtw or ed).
std::vector<Plan> window_search_plans(const Options& o, unsigned own_threads) {
  const std::vector<std::size_t> ms =
      o.m ? std::vector<std::size_t>{*o.m}
          : (o.quick ? std::vector<std::size_t>{64} : std::vector<std::size_t>{128, 1023});
  const std::vector<std::size_t> lengths =
      !o.lengths.empty() ? o.lengths
                         : std::vector<std::size_t>{o.quick ? std::size_t{20'000} : 1'000'000};
  std::vector<bool> dense{false, true};
  if (o.matches == "none") dense = {false};
  if (o.matches == "dense") dense = {true};
  std::vector<bool> tops{true, false};
  if (o.search == "top") tops = {true};
  if (o.search == "threshold") tops = {false};
  // (ECG, unrelated query): false, false = the series' middle; true, false = ECG; false,
  // true = an unrelated walk.
  std::vector<std::pair<bool, bool>> data;
  for (bool ecg : dense) {
    if (ecg || o.query != "unrelated") data.emplace_back(ecg, false);
    if (!ecg && (o.query == "unrelated" || o.query == "both")) data.emplace_back(false, true);
  }
  if (o.metric != kernels::Metric::dtw && o.metric != kernels::Metric::ed)
    throw std::invalid_argument("window_search: --metric must be dtw or ed");
  const bool ed = o.metric == kernels::Metric::ed;
  std::vector<Plan> plans;
  for (std::size_t m : ms) {
    if (m < 2) throw std::invalid_argument("--m must be at least 2");
    for (std::size_t length : lengths)
      for (const auto& [ecg, unrelated] : data)
        for (std::size_t band : ed ? std::vector<std::size_t>{0} : std::vector<std::size_t>{0, 5})
          for (bool top : tops)
            plans.push_back({"window_search",
                             {.kind = Kind::window_search,
                              .m = m,
                              .dense = ecg,
                              .data_dir = o.data_dir.c_str(),
                              .length = length,
                              .repeat = std::min<std::size_t>(o.repeat, 3),
                              .band_percent = band,
                              .top = top,
                              .independent_query = unrelated,
                              .metric = o.metric},
                             own_threads,
                             ""});
  }
  return plans;
}

std::vector<Plan> make_plans(const Options& o, unsigned threads) {
  Sizes s = default_sizes(o.backend);
  if (o.quick) s = quick_sizes(s);
  if (o.pairs) s.pairs = *o.pairs;
  if (o.patterns) s.patterns = *o.patterns;
  if (o.m) s.m = *o.m;
  if (o.batches) s.batches = *o.batches;
  if (!o.chunks.empty()) s.chunks = o.chunks;
  if (o.series) s.whole_series = s.allpairs_series = *o.series;
  if (!o.lengths.empty()) s.whole_lengths = o.lengths;
  require_positive(s.pairs, "--pairs");
  require_positive(s.patterns, "--patterns");
  require_positive(s.batches, "--batches");
  require_positive(s.whole_series, "--series");
  require_positive(o.repeat, "--repeat");
  for (std::size_t c : s.chunks) require_positive(c, "--chunk");
  for (std::size_t l : s.whole_lengths) require_positive(l, "--length");
  if (s.m < 2)
    throw std::invalid_argument("--m must be at least 2 (docs/spec.md: patterns have m >= 2)");
  const bool stream_cases =
      o.cases.empty() || std::any_of(o.cases.begin(), o.cases.end(), [](const std::string& c) {
        return c == "stream_dtw" || c == "threads";
      });
  if (stream_cases && s.pairs % s.patterns != 0)
    throw std::invalid_argument("--pairs (" + std::to_string(s.pairs) +
                                ") must be a multiple of --patterns (" +
                                std::to_string(s.patterns) + ")");
  const std::vector<std::size_t> allpairs_lengths =
      o.lengths.empty() ? std::vector{s.allpairs_length} : o.lengths;
  const std::vector<std::size_t> long_lengths =
      o.lengths.empty() ? std::vector{s.long_length} : o.lengths;

  std::vector<std::string> cases;  // in the order given, each once
  for (const std::string& name : o.cases)
    if (std::find(cases.begin(), cases.end(), name) == cases.end()) cases.push_back(name);
  if (cases.empty()) {
    cases = {"stream_dtw", "whole_dtw", "twed_allpairs", "twed_long"};
    if (o.backend == Backend::cpu) cases.push_back("threads");
  }
  const unsigned own_threads = o.backend == Backend::cpu         ? threads
                               : o.backend == Backend::reference ? 1
                                                                 : 0;
  std::vector<Plan> plans;
  for (const std::string& name : cases) {
    if (name == "stream_matrix") {
      for (Plan& p : matrix_plans(o, own_threads)) plans.push_back(std::move(p));
      continue;
    }
    if (name == "window_search") {
      for (Plan& p : window_search_plans(o, own_threads)) plans.push_back(std::move(p));
      continue;
    }
    Shape stream{.kind = Kind::stream_dtw,
                 .streams = s.pairs / s.patterns,
                 .patterns = s.patterns,
                 .m = s.m,
                 .batches = s.batches};
    if (name == "stream_dtw" || name == "threads") {
      if (name == "threads" && o.backend != Backend::cpu)
        throw std::invalid_argument(
            "the threads case measures the cpu backend's thread pool; use --backend cpu");
      for (std::size_t chunk : s.chunks) {
        stream.chunk = chunk;
        if (name == "threads") plans.push_back({name, stream, 1, ""});
        plans.push_back({name, stream, own_threads, ""});
      }
    } else if (name == "whole_dtw") {
      for (std::size_t l : s.whole_lengths)
        plans.push_back({name,
                         {.kind = Kind::whole_dtw,
                          .rows = 1,
                          .cols = s.whole_series,
                          .length = l,
                          .repeat = o.repeat},
                         own_threads,
                         ""});
    } else if (name == "twed_allpairs") {
      for (std::size_t l : allpairs_lengths)
        plans.push_back({name,
                         {.kind = Kind::twed_allpairs,
                          .rows = s.allpairs_series,
                          .cols = s.allpairs_series,
                          .length = l,
                          .repeat = o.repeat},
                         own_threads,
                         ""});
    } else if (name == "twed_long") {
      for (std::size_t l : long_lengths)
        plans.push_back(
            {name,
             {.kind = Kind::twed_long, .rows = 1, .cols = 1, .length = l, .repeat = o.repeat},
             own_threads,
             ""});
    } else {
      throw std::invalid_argument("unknown case '" + name + "'");
    }
  }
  return plans;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

void describe_machine(Report& report) {
  report.date = utc_now();
  report.cpu_model = cpu_model();
  report.hardware_threads = std::thread::hardware_concurrency();
  utsname u{};
  if (uname(&u) == 0) {
    report.os = std::string(u.sysname) + " " + u.release + " " + u.machine;
    report.hostname = u.nodename;
  }
  report.cuda = kernels::cuda_status().detail;
  // Benchmarks on a busy machine measure the machine's other work too: say so.
  double load = 0.0;
  if (std::ifstream("/proc/loadavg") >> load; load >= 1.0)
    report.warnings.push_back(
        "the 1-minute load average was " + std::to_string(load).substr(0, 4) +
        " when the bench started: other work shares the CPU and lowers the numbers");
  report.simd_target = kernels::cpu::simd_target();
}

// The device's nominal peak rate of simple float32 operations: one per FP32 lane per clock.
double device_nominal_float_ops_per_s() {
  const kernels::CudaStatus cuda = kernels::cuda_status();
  return static_cast<double>(cuda.sm_count) * cuda.fp32_lanes_per_sm * cuda.clock_khz * 1e3;
}

// stream_matrix's bound: the lower of the compute ceiling and the memory bound, where each
// pair's column (8 bytes a row: D and the start) is read and written once a batch, so a
// cell moves 16 / chunk bytes (the samples are d x 4 bytes a column, shared by the rows).
void add_bound(Row& row, const Shape& shape, std::optional<double> copy_bytes_per_s) {
  std::optional<double> bound = row.ceiling_cells_per_s;
  bool memory = false;
  if (copy_bytes_per_s) {
    const double bytes_per_cell = 16.0 / static_cast<double>(shape.chunk);
    const double memory_bound = *copy_bytes_per_s / bytes_per_cell;
    row.result.extra.emplace_back("memory_bound_cells_per_s", memory_bound);
    memory = !bound || memory_bound < *bound;
    if (memory) bound = memory_bound;
  }
  if (!bound) return;
  row.result.extra.emplace_back("bound_cells_per_s", *bound);
  row.result.extra.emplace_back("bound_is_memory", memory ? 1.0 : 0.0);
  row.result.extra.emplace_back("fraction_of_bound", row.result.cells_per_s() / *bound);
}

}  // namespace

Report run(const Options& o, std::ostream& log) {
  if (o.backend == Backend::automatic)
    throw std::invalid_argument("resolve the backend before running the bench");
  if (o.backend == Backend::cuda) {
    const kernels::CudaStatus cuda = kernels::cuda_status();
    if (!cuda.compiled || cuda.device_count == 0)
      throw std::runtime_error("the cuda backend cannot run on this machine: " + cuda.detail);
  }
  const unsigned threads =
      o.threads ? o.threads : std::max(1u, std::thread::hardware_concurrency());
  const std::vector<Plan> plans = make_plans(o, threads);

  Report report;
  describe_machine(report);
  report.backend = std::string(kernels::to_string(o.backend));
  if (o.backend == Backend::cuda)
    report.devices = kernels::cuda_device_list(o.devices, kernels::cuda_status().device_count);
  report.threads = o.backend == Backend::cpu ? threads : o.backend == Backend::reference ? 1 : 0;
  report.quick = o.quick;
  report.repeat = o.repeat;
  report.seed = o.seed;

  // The CPU ceiling for each thread count a row uses, measured before the cases.
  std::map<unsigned, double> float_ops;
  if (o.backend != Backend::cuda) {
    std::vector<unsigned> counts{1};  // one thread always: the scaling check below needs it
    for (const Plan& p : plans) counts.push_back(p.threads);
    for (unsigned n : counts) {
      if (float_ops.count(n)) continue;
      log << "bench: calibrating the float32 op rate on " << n << " thread(s)\n";
      float_ops[n] = calibrate_float_ops(n, o.quick ? 0.02 : 0.2);
    }
    if (float_ops.count(threads)) report.float_ops_per_s = float_ops[threads];
    if (float_ops.count(1)) report.float_ops_per_s_1_thread = float_ops[1];
    // Independent arithmetic scales with the cores; when it does not, the CPU is shared
    // (or --threads exceeds the cores) and the multi-thread rows understate the backend.
    if (threads > 1 && float_ops.count(1) && float_ops.count(threads) &&
        float_ops[threads] < 1.25 * float_ops[1])
      report.warnings.push_back(
          "the calibration loop ran only " +
          std::to_string(float_ops[threads] / float_ops[1]).substr(0, 4) + "x faster on " +
          std::to_string(threads) +
          " threads than on 1: the CPU is shared with other work or has fewer cores "
          "than threads, and the multi-thread rows understate the backend");
  }

  if (o.backend == Backend::cuda) {
    // As on the CPU, the ceiling is a measured add+min rate, not a data-sheet number: the
    // DP cells' min/compare/select operations may issue slower than adds.
    log << "bench: calibrating the device's float32 op rates\n";
    report.device_nominal_float_ops_per_s = device_nominal_float_ops_per_s();
    if (const auto rates = kernels::cuda_float_op_rates()) {
      report.device_float_ops_per_s = rates->add_min_per_s;
      report.device_add_ops_per_s = rates->add_per_s;
      report.copy_bytes_per_s = rates->copy_bytes_per_s;
    }
  }
  const bool matrix = std::any_of(plans.begin(), plans.end(),
                                  [](const Plan& p) { return p.case_name == "stream_matrix"; });
  if (matrix && o.backend != Backend::cuda) {
    log << "bench: measuring the memory bandwidth on " << threads << " thread(s)\n";
    report.copy_bytes_per_s = calibrate_copy_bandwidth(threads);
  }
  // One reference measurement per subset shape: the threads rows share stream_dtw's.
  std::map<std::string, std::pair<std::optional<Measurement>, std::string>> reference_cache;
  for (const Plan& p : plans) {
    Row row;
    row.case_name = p.case_name;
    row.backend = report.backend;
    row.threads = p.threads;
    row.shape = describe(p.shape);
    if (!p.trimmed.empty()) {
      row.trimmed = p.trimmed;
      report.rows.push_back(std::move(row));
      continue;
    }
    log << "bench: " << row.case_name << " (" << row.shape << ") on " << row.backend;
    if (p.threads) log << ", " << p.threads << " thread(s)";
    log << std::endl;
    try {
      Shape shape = p.shape;
      shape.devices = report.devices;
      row.result = measure(shape, o.backend, p.threads, o.seed, log);
    } catch (const std::exception& e) {
      row.error = e.what();
    }
    if (row.error.empty() && o.reference && o.backend != Backend::reference) {
      const Shape subset = p.case_name == "stream_matrix"
                               ? matrix_reference_subset(p.shape, o.quick)
                               : reference_subset(p.shape, o.quick);
      auto& cached = reference_cache[describe(subset)];
      if (!cached.first && cached.second.empty()) {
        log << "bench:   reference on " << describe(subset) << std::endl;
        try {
          cached.first = measure(subset, Backend::reference, 1, o.seed, log);
        } catch (const std::exception& e) {
          cached.second = e.what();
        }
      }
      row.reference = cached.first;
      row.reference_error = cached.second;
    }
    const double ops = ops_per_cell(p.shape);
    if (p.case_name == "window_search")
      row.ceiling_note = "n/a: effective cells (a pruned window counts its m x m all the same)";
    else if (o.backend == Backend::cuda && report.device_float_ops_per_s)
      row.ceiling_cells_per_s =  // each device's (device 0's measured rate)
          *report.device_float_ops_per_s * static_cast<double>(report.devices.size()) / ops;
    else if (o.backend == Backend::cuda)
      row.ceiling_note = "n/a: the device calibration did not run";
    else
      row.ceiling_cells_per_s = float_ops.at(p.threads) / ops;
    if (p.case_name == "stream_matrix" && row.error.empty()) {
      add_bound(row, p.shape, report.copy_bytes_per_s);
      row.auto_picks = std::string(kernels::to_string(
          kernels::resolve_backend(Backend::automatic, {.pairs = p.shape.streams * p.shape.patterns,
                                                        .cpu_threads = threads,
                                                        .longest_pattern = p.shape.m,
                                                        .widest_dims = p.shape.dims,
                                                        .chunk = p.shape.chunk})));
    }
    report.rows.push_back(std::move(row));
  }
  // The threads case: the speed-up of all threads over one, on the same shape.
  for (std::size_t i = 1; i < report.rows.size(); ++i) {
    Row& many = report.rows[i];
    const Row& one = report.rows[i - 1];
    if (many.case_name == "threads" && one.case_name == "threads" && one.threads == 1 &&
        many.threads != 1 && many.error.empty() && one.error.empty())
      many.result.extra.emplace_back("speedup_vs_1_thread",
                                     many.result.cells_per_s() / one.result.cells_per_s());
  }
  return report;
}

double median_of(std::vector<double> values) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

double Measurement::median_s() const {
  return median_of(seconds);
}
double Measurement::min_s() const {
  return seconds.empty() ? 0.0 : *std::min_element(seconds.begin(), seconds.end());
}
double Measurement::max_s() const {
  return seconds.empty() ? 0.0 : *std::max_element(seconds.begin(), seconds.end());
}
double Measurement::cells_per_s() const {
  const double m = median_s();
  return m > 0.0 ? static_cast<double>(cells_per_run) / m : 0.0;
}

std::optional<double> Row::ratio() const {
  if (!error.empty() || !reference || reference->cells_per_s() <= 0.0) return std::nullopt;
  return result.cells_per_s() / reference->cells_per_s();
}

std::size_t Report::failed() const {
  return static_cast<std::size_t>(
      std::count_if(rows.begin(), rows.end(), [](const Row& r) { return !r.error.empty(); }));
}

}  // namespace warpwatch::bench
