// The load generator's plan checked by the scalar reference, and `warpwatch load`'s report.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <map>
#include <ostream>
#include <tuple>

#include "warpwatch/bench/load_generator.hpp"
#include "warpwatch/kernels/reference.hpp"

namespace warpwatch::bench {

PlanCheck check_plan_with_reference(const LoadGenerator& generator, double threshold,
                                    std::size_t streams, std::uint64_t samples) {
  const LoadOptions& o = generator.options();
  PlanCheck check;
  const auto problem = [&](std::string text) {
    if (check.problems.size() < 10) check.problems.push_back(std::move(text));
  };
  auto matcher = kernels::reference::make_matcher();
  streams = std::min(streams, o.streams);
  for (std::size_t k = 0; k < streams; ++k)
    matcher->add_stream({generator.stream_id(k), generator.dims(), o.period_ns});
  for (const auto& p : o.patterns) {
    kernels::PatternDef def;
    def.id = p.name;
    def.dims = p.dims;
    def.values = p.values;
    def.params.distance.metric = kernels::Metric::dtw;
    def.params.distance.cost = kernels::Cost::sq;
    def.params.mode = kernels::Mode::stream;
    def.params.threshold = threshold;
    matcher->add_pattern(def);
  }
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
        {"noise_length", generator.noise_length()}}},
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
      {"occurrences_cut", r.occurrences_cut},
      {"occurrences", occurrences},
  };
  return j.dump(1) + "\n";
}

}  // namespace warpwatch::bench
