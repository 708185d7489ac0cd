// The load generator's plan checked by the scalar reference, and `warpwatch load`'s report.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <ostream>
#include <random>
#include <stdexcept>
#include <tuple>

#include "warpwatch/bench/load_generator.hpp"
#include "warpwatch/kernels/reference.hpp"

namespace warpwatch::bench {
namespace {

kernels::PatternDef pattern_def(const LoadPattern& p, const kernels::MatchParams& params) {
  kernels::PatternDef def;
  def.id = p.name;
  def.dims = p.dims;
  def.values = p.values;
  def.params = params;
  return def;
}

// The smallest distance of a window of each series to `pattern` in window mode (+inf when
// no window has one: all flat, or none aligns within the band), from the reference Matcher
// with every window qualifying: each window is offered to the exclusion zone and the best of
// every run is reported, so the smallest report is the smallest window.
std::vector<double> smallest_windows(const LoadPattern& pattern, kernels::MatchParams params,
                                     const std::vector<std::vector<float>>& series) {
  params.threshold = std::numeric_limits<double>::max();
  auto matcher = kernels::reference::make_matcher();
  matcher->add_pattern(pattern_def(pattern, params));
  std::vector<std::string> ids;
  std::vector<std::vector<std::int64_t>> times(series.size());
  std::vector<kernels::StreamChunk> batch;
  for (std::size_t k = 0; k < series.size(); ++k) ids.push_back(std::to_string(k));
  for (std::size_t k = 0; k < series.size(); ++k) {
    matcher->add_stream({ids[k], pattern.dims, 1'000'000});
    for (std::size_t i = 0; i < series[k].size() / pattern.dims; ++i)
      times[k].push_back(static_cast<std::int64_t>(i + 1) * 1'000'000);
    batch.push_back({ids[k], series[k], times[k]});
  }
  auto reports = matcher->process(batch);
  auto flushed = matcher->flush();
  reports.insert(reports.end(), flushed.begin(), flushed.end());
  std::vector<double> smallest(series.size(), std::numeric_limits<double>::infinity());
  for (const auto& r : reports) {
    const auto k = static_cast<std::size_t>(std::stoul(r.stream_id()));
    smallest[k] = std::min(smallest[k], r.distance);
  }
  return smallest;
}

}  // namespace

kernels::MatchParams stream_match_params(double threshold) {
  kernels::MatchParams params;
  params.distance.metric = kernels::Metric::dtw;
  params.distance.cost = kernels::Cost::sq;
  params.mode = kernels::Mode::stream;
  params.threshold = threshold;
  return params;
}

WindowThreshold window_threshold(const std::vector<LoadPattern>& patterns, double noise,
                                 const kernels::MatchParams& params, std::uint64_t seed) {
  constexpr std::size_t draws = 8;
  WindowThreshold t;
  t.decoy = std::numeric_limits<double>::infinity();
  std::mt19937_64 rng(seed);
  for (const LoadPattern& p : patterns) {
    const std::size_t m = p.length(), d = p.dims, half = m / 2;
    // Copies with noise of +-noise, one window each, then the decoys.
    std::vector<std::vector<float>> series;
    for (std::size_t k = 0; k < draws; ++k) {
      series.push_back(p.values);
      for (float& v : series.back()) v += static_cast<float>((rng() >> 63) ? noise : -noise);
    }
    for (const LoadPattern& q : patterns) {
      const std::vector<float> zeros(half * q.dims, 0.0f);
      if (&q != &p) {  // another shape's copy, and its shifts: zeros, the copy, zeros
        std::vector<float> s = zeros;
        s.insert(s.end(), q.values.begin(), q.values.end());
        s.insert(s.end(), zeros.begin(), zeros.end());
        series.push_back(std::move(s));
        continue;
      }
      // Its own copy shifted by 1..m/2 either way, without the copy itself: zeros and all
      // but its last sample, then all but its first sample and zeros.
      std::vector<float> early = zeros,
                         late(p.values.begin() + static_cast<std::ptrdiff_t>(d), p.values.end());
      early.insert(early.end(), p.values.begin(), p.values.end() - static_cast<std::ptrdiff_t>(d));
      late.insert(late.end(), zeros.begin(), zeros.end());
      series.push_back(std::move(early));
      series.push_back(std::move(late));
    }
    const std::vector<double> smallest = smallest_windows(p, params, series);
    for (std::size_t k = 0; k < smallest.size(); ++k) {
      if (k < draws)
        t.copy = std::max(t.copy, smallest[k]);  // +inf when a copy does not align: refused below
      else
        t.decoy = std::min(t.decoy, smallest[k]);
    }
  }
  if (!(t.decoy >= 4.0 * t.copy) || !std::isfinite(t.copy) || !std::isfinite(t.decoy))
    throw std::invalid_argument("window mode cannot tell the planted shapes apart at noise " +
                                std::to_string(noise) +
                                ": a copy with noise is at distance up to " +
                                std::to_string(t.copy) + ", another window as close as " +
                                std::to_string(t.decoy) + " (less noise, or other shapes: --seed)");
  // Without noise a copy is at 0, and a threshold of 0 would leave a planted window to the
  // float32 rounding of the fast backends: the threshold stays at least decoy / 100.
  t.threshold = std::sqrt(std::max(t.copy, t.decoy * 1e-4) * t.decoy);
  return t;
}

PlanCheck check_plan_with_reference(const LoadGenerator& generator, double threshold,
                                    std::size_t streams, std::uint64_t samples) {
  return check_plan_with_reference(generator, stream_match_params(threshold), streams, samples);
}

PlanCheck check_plan_with_reference(const LoadGenerator& generator,
                                    const kernels::MatchParams& params, std::size_t streams,
                                    std::uint64_t samples) {
  const LoadOptions& o = generator.options();
  PlanCheck check;
  const auto problem = [&](std::string text) {
    if (check.problems.size() < 10) check.problems.push_back(std::move(text));
  };
  auto matcher = kernels::reference::make_matcher();
  streams = std::min(streams, o.streams);
  for (std::size_t k = 0; k < streams; ++k)
    matcher->add_stream({generator.stream_id(k), generator.dims(), o.period_ns});
  for (const auto& p : o.patterns) matcher->add_pattern(pattern_def(p, params));
  std::vector<kernels::RawMatch> reports;
  constexpr std::uint64_t chunk = 4096;
  std::vector<std::vector<float>> values(streams);
  std::vector<std::int64_t> times;
  std::vector<std::string> ids;
  for (std::size_t k = 0; k < streams; ++k) ids.push_back(generator.stream_id(k));
  for (std::uint64_t first = 0; first < samples; first += chunk) {
    const auto count = static_cast<std::size_t>(std::min(chunk, samples - first));
    times.resize(count);
    for (std::size_t i = 0; i < count; ++i) times[i] = generator.timestamp(first + i);
    std::vector<kernels::StreamChunk> batch;
    for (std::size_t k = 0; k < streams; ++k) {
      values[k] = generator.values(k, first, count);
      batch.push_back({ids[k], values[k], times});
    }
    auto m = matcher->process(batch);
    reports.insert(reports.end(), m.begin(), m.end());
  }
  auto flushed = matcher->flush();
  reports.insert(reports.end(), flushed.begin(), flushed.end());

  using Key = std::tuple<std::string, std::string, std::uint64_t, std::uint64_t>;
  std::map<Key, int> planted;
  for (std::size_t k = 0; k < streams; ++k)
    for (const auto& p : generator.planned_within(k, samples))
      planted[{ids[k], o.patterns[p.pattern].name, p.start_index, p.end_index}] = 0;
  check.planted = planted.size();
  check.reported = reports.size();
  for (const auto& r : reports) {
    const Key key{r.stream_id(), r.pattern_id(), r.start_index, r.end_index};
    const auto it = planted.find(key);
    if (it == planted.end()) {
      problem("unexpected report " + r.stream_id() + "/" + r.pattern_id() + " [" +
              std::to_string(r.start_index) + ", " + std::to_string(r.end_index) + "] distance " +
              std::to_string(r.distance));
    } else if (++it->second == 1) {
      ++check.exact;
    } else {
      problem("reported twice: " + r.stream_id() + "/" + r.pattern_id() + " [" +
              std::to_string(r.start_index) + ", " + std::to_string(r.end_index) + "]");
    }
  }
  for (const auto& [key, n] : planted)
    if (n == 0)
      problem("not reported: " + std::get<0>(key) + "/" + std::get<1>(key) + " [" +
              std::to_string(std::get<2>(key)) + ", " + std::to_string(std::get<3>(key)) + "]");
  return check;
}

void print_load_result(const LoadGenerator& generator, const LoadResult& r, std::ostream& out,
                       std::size_t list) {
  const LoadOptions& o = generator.options();
  out << "sent " << r.samples << " samples in " << r.messages << " messages (" << r.payload_bytes
      << " payload bytes, " << r.payload_bytes + r.id_bytes << " with stream ids) on " << o.streams
      << " streams (" << r.samples_per_stream_min;
  if (r.samples_per_stream_max != r.samples_per_stream_min)
    out << " to " << r.samples_per_stream_max;
  out << " samples each) in " << r.seconds << " s: " << r.samples_per_s() << " samples/s";
  if (o.rate_per_stream > 0)
    out << " (target " << o.rate_per_stream * static_cast<double>(o.streams) << ")";
  out << "\n";
  out << "stopped by: " << r.stopped_by << "; generator CPU " << r.cpu_seconds << " s; blocked "
      << r.blocked_seconds << " s in " << r.blocked_sends << " sends";
  if (r.unsent_messages) out << " (the last message was not sent: the run ended while it waited)";
  out << "\n";
  if (o.faults.every > 0) {
    out << "faults (messages the daemon refuses whole):";
    for (const LoadFault kind : o.faults.kinds)
      out << " " << to_string(kind) << " " << r.faults[static_cast<std::size_t>(kind)];
    out << "\n";
  }
  out << "planted " << r.occurrences.size() << " occurrences";
  if (r.occurrences_cut) out << " (" << r.occurrences_cut << " more cut off by the end)";
  out << (r.occurrences.empty() ? "\n" : ":\n");
  for (std::size_t i = 0; i < r.occurrences.size() && i < list; ++i) {
    const auto& p = r.occurrences[i];
    out << "  " << generator.stream_id(p.stream) << " " << o.patterns[p.pattern].name << " ["
        << p.start_index << ", " << p.end_index << "] sent_ns " << p.sent_ns << "\n";
  }
  if (r.occurrences.size() > list)
    out << "  ... " << r.occurrences.size() - list << " more (all of them in --json)\n";
}

std::string load_result_json(const LoadGenerator& generator, const LoadResult& r,
                             double process_cpu) {
  const LoadOptions& o = generator.options();
  nlohmann::ordered_json patterns = nlohmann::ordered_json::array();
  for (const auto& p : o.patterns)
    patterns.push_back({{"name", p.name}, {"dims", p.dims}, {"length", p.length()}});
  nlohmann::ordered_json occurrences = nlohmann::ordered_json::array();
  for (const auto& p : r.occurrences)
    occurrences.push_back({{"stream", generator.stream_id(p.stream)},
                           {"pattern", o.patterns[p.pattern].name},
                           {"start_index", p.start_index},
                           {"end_index", p.end_index},
                           {"sent_ns", p.sent_ns}});
  nlohmann::ordered_json faults = nlohmann::ordered_json::object();
  for (std::size_t k = 0; k < load_fault_kinds; ++k)
    faults[std::string(to_string(static_cast<LoadFault>(k)))] = r.faults[k];
  const nlohmann::ordered_json j = {
      {"options",
       {{"streams", o.streams},
        {"stream_prefix", o.stream_prefix},
        {"frame", o.frame},
        {"rate_per_stream", o.rate_per_stream},
        {"encoding", to_string(o.encoding)},
        {"t0_ns", o.t0_ns},
        {"period_ns", o.period_ns},
        {"every", o.every},
        {"jitter", o.jitter},
        {"noise", o.noise},
        {"seed", o.seed},
        {"dims", generator.dims()},
        {"samples_per_stream", o.samples_per_stream},
        {"total_samples", o.total_samples},
        {"duration_s", o.duration_s},
        {"noise_length", generator.noise_length()},
        {"fault_every", o.faults.every},
        {"oversized_bytes", o.faults.oversized_bytes}}},
      {"patterns", patterns},
      {"samples", r.samples},
      {"messages", r.messages},
      {"bytes", r.payload_bytes + r.id_bytes},
      {"payload_bytes", r.payload_bytes},
      {"samples_per_stream_min", r.samples_per_stream_min},
      {"samples_per_stream_max", r.samples_per_stream_max},
      {"seconds", r.seconds},
      {"samples_per_s", r.samples_per_s()},
      {"target_samples_per_s", o.rate_per_stream * static_cast<double>(o.streams)},
      {"started_ns", r.started_ns},
      {"finished_ns", r.finished_ns},
      {"cpu_s", r.cpu_seconds},
      {"process_cpu_s", process_cpu},
      {"blocked_s", r.blocked_seconds},
      {"blocked_sends", r.blocked_sends},
      {"unsent_messages", r.unsent_messages},
      {"stopped_by", r.stopped_by},
      {"faults", faults},
      {"occurrences_cut", r.occurrences_cut},
      {"occurrences", occurrences},
  };
  return j.dump(1) + "\n";
}

}  // namespace warpwatch::bench
