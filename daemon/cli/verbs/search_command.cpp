// `warpwatch search`: a pattern library matched against series files, events as JSON lines.
#include <nlohmann/json.hpp>

#include <cmath>
#include <functional>
#include <future>
#include <ostream>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "commands.hpp"
#include "search_profile.hpp"
#include "verb_clock.hpp"
#include "warpwatch/alerting/nearest_template.hpp"
#include "warpwatch/config/config_reader.hpp"
#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/plugins/registry.hpp"
#include "warpwatch/stream/sources/replay.hpp"
#include "warpwatch/stream/validator.hpp"

namespace warpwatch::cli {
namespace {

struct InputStream {
  kernels::StreamDef def;
  std::vector<float> values;
  std::vector<std::int64_t> times_ns;
  bool has_times = false;  // the file gave them (else: --period apart)
};

// The series as streams, checked by the stream layer's validator (the one check of docs/spec.md
// 1 that the daemon's ingest applies too): a series whose timestamps, once in whole
// nanoseconds, do not strictly increase is refused with the sample that breaks them.
std::vector<InputStream> to_streams(const std::vector<config::LoadedSeries>& series,
                                    double period_s) {
  std::vector<InputStream> streams;
  const auto period_ns = static_cast<std::int64_t>(std::llround(period_s * 1e9));
  for (const auto& s : series) {
    stream::Samples samples;
    samples.dims = s.dims;
    samples.values = s.values;
    if (s.times.empty()) {
      samples.times_ns = stream::evenly_spaced_times(s.length(), 0, period_ns);
    } else {
      samples.times_ns.resize(s.length());
      for (std::size_t i = 0; i < s.length(); ++i)
        samples.times_ns[i] = static_cast<std::int64_t>(std::llround(s.times[i] * 1e9));
    }
    stream::RejectCounts rejected;
    stream::Accepted valid = stream::StreamValidator(s.dims).accept(samples, rejected);
    if (!valid.dropped.empty())
      throw std::runtime_error(s.name + ": " + valid.dropped.front().first + " (" +
                               std::string(stream::to_string(valid.dropped.front().reason)) + ")");
    streams.push_back({{s.name, s.dims, period_ns},
                       std::move(samples.values),
                       std::move(samples.times_ns),
                       !s.times.empty()});
  }
  return streams;
}

std::size_t total_samples(const std::vector<InputStream>& streams) {
  std::size_t samples = 0;
  for (const auto& s : streams) samples += s.times_ns.size();
  return samples;
}

// The events as JSON lines: what each match's pattern was matched with (its measure, mode
// and threshold: null when none was given, --top alone), and with --library its library.
void print_events(const std::vector<kernels::RawMatch>& matches, const SearchCommand& cmd,
                  std::ostream& out) {
  const bool library = !cmd.library_path.empty();
  for (const auto& m : matches) {
    const kernels::MatchParams& params = m.pattern->params;
    nlohmann::ordered_json event = {{"stream", m.stream_id()}, {"pattern", m.pattern_id()}};
    if (library) event["library"] = m.pattern->library;
    event["metric"] = kernels::to_string(params.distance.metric);
    event["mode"] = kernels::to_string(params.mode);
    event["distance"] = m.distance;
    event["threshold"] = library || cmd.threshold ? nlohmann::ordered_json(params.threshold)
                                                  : nlohmann::ordered_json(nullptr);
    event["start_index"] = m.start_index;
    event["end_index"] = m.end_index;
    event["start_ns"] = m.start_ns;
    event["end_ns"] = m.end_ns;
    out << event.dump() << "\n";
  }
}

// --top K: per stream and pattern of its dims, the K best windows (stream mode: subsequences,
// docs/spec.md §3.3), as events in increasing distance.
void run_top(const SearchCommand& cmd, kernels::Backend backend,
             const std::vector<kernels::PatternDef>& patterns,
             const std::vector<InputStream>& streams, std::ostream& out) {
  for (const auto& s : streams) {
    const auto stream_def = std::make_shared<const kernels::StreamDef>(s.def);
    for (const auto& p : patterns) {
      if (p.dims != s.def.dims) continue;
      const kernels::TopWindowsRequest request{
          s.def, s.values, s.times_ns, p, cmd.threshold.has_value(), cmd.top, nullptr};
      std::vector<kernels::RawMatch> matches;
      const auto pattern_def = std::make_shared<const kernels::PatternDef>(p);
      for (const auto& t : kernels::top_windows(backend, request))
        matches.push_back({stream_def, pattern_def, t.distance, t.start_index, t.end_index,
                           t.start_ns, t.end_ns});
      print_events(matches, cmd, out);
    }
  }
}

// A pattern is searched in the series of its dims only: one that fits none is said on `err`,
// and when no pattern fits any series the search is an error (it would print nothing).
void check_dims(const std::vector<kernels::PatternDef>& patterns,
                const std::vector<InputStream>& streams, std::ostream& err) {
  const auto list = [](const std::set<std::size_t>& dims) {
    std::string s;
    for (const std::size_t d : dims) s += (s.empty() ? "" : ", ") + std::to_string(d);
    return s;
  };
  std::set<std::size_t> input_dims, pattern_dims;
  for (const auto& s : streams) input_dims.insert(s.def.dims);
  std::vector<const kernels::PatternDef*> unfit;
  for (const auto& p : patterns) {
    pattern_dims.insert(p.dims);
    if (!input_dims.count(p.dims)) unfit.push_back(&p);
  }
  const std::string input = "input series dims: " + list(input_dims);
  if (unfit.empty() || streams.empty()) return;
  if (unfit.size() < patterns.size()) {
    for (const auto* p : unfit)
      err << "warning: pattern '" << p->id << "' has " << p->dims
          << " dims, which no input series has (" << input << "): not searched\n";
    return;
  }
  throw std::runtime_error(
      "no pattern has the dims of an input series (pattern dims: " + list(pattern_dims) + "; " +
      input +
      "): nothing to search; --layout columns reads a file as one series with a dimension per "
      "column, --value-columns picks its columns");
}

}  // namespace

CLI::App* add_search_command(CLI::App& app, SearchCommand& cmd) {
  auto* sub = app.add_subcommand("search",
                                 "find a pattern library's matches in series files; "
                                 "prints events as JSON lines");
  auto* patterns = sub->add_option("--patterns", cmd.patterns_path,
                                   "pattern file or directory (each series is a pattern)");
  auto* library = sub->add_option(
      "--library", cmd.library_path,
      "a configuration file whose `libraries:` are searched as the daemon matches them: each "
      "pattern with its own measure, mode, parameters and threshold, `exclusive` applied "
      "(docs/cli.md §4); instead of --patterns and the matching flags");
  patterns->excludes(library);
  sub->parse_complete_callback([sub, &cmd] {
    cmd.given.clear();
    for (const CLI::Option* option : sub->get_options())
      if (option->count() > 0) cmd.given.push_back(option->get_name());
  });
  sub->add_option("--input", cmd.input_path, "series file or directory (each series is a stream)")
      ->required();
  add_choice(*sub, "--mode", cmd.mode, {kernels::Mode::stream, kernels::Mode::window},
             "stream = SPRING subsequence matching, window = sliding windows");
  sub->add_option("--threshold", cmd.threshold,
                  "report distances <= threshold (required, unless --top or --profile is given)");
  sub->add_option("--top", cmd.top,
                  "finite input: the K best matches of each (stream, pattern) in increasing "
                  "distance; window mode: windows no two overlapping by more than w/2 samples, "
                  "stream mode: SPRING's best subsequences, no two sharing a sample (with "
                  "--threshold: only those at or under it)");
  sub->add_option("--profile", cmd.profile_path,
                  "write each (stream, pattern)'s distance profile to this CSV file: stream "
                  "mode the best distance of a subsequence ending at each sample, window mode "
                  "each window's distance");
  sub->add_option("--w", cmd.window, "window mode: window length (default: pattern length)");
  sub->add_option("--hop", cmd.hop, "window mode: a window ends every hop samples")
      ->capture_default_str();
  sub->add_flag("--znorm", cmd.znorm, "window mode: z-normalize each window and the pattern");
  sub->add_option("--period", cmd.period_s, "seconds between samples of series without timestamps")
      ->capture_default_str();
  sub->add_option("--chunk", cmd.chunk,
                  "feed the input in batches of this many samples (0 = all at once)")
      ->capture_default_str();
  add_backend_option(*sub, cmd.backend);
  add_metric_options(*sub, cmd.metric);
  add_series_input_options(*sub, cmd.input);
  return sub;
}

// What the search's timing line (VerbClock) says it searched: "2 stream(s) of 2000 samples,
// 1 pattern(s), dtw window mode, top 3".
std::string search_summary(const SearchCommand& cmd, const std::vector<InputStream>& streams,
                           std::size_t patterns) {
  return std::to_string(streams.size()) + " stream(s) of " +
         std::to_string(total_samples(streams)) + " samples, " + std::to_string(patterns) +
         " pattern(s), " + std::string(kernels::to_string(cmd.metric.metric)) + " " +
         std::string(kernels::to_string(cmd.mode)) + " mode" +
         (cmd.top ? ", top " + std::to_string(cmd.top) : "") +
         (cmd.profile_path.empty() ? "" : ", profile");
}

namespace {
// The checks a configuration's pattern gets (docs/configuration.md §4), on the flags given:
// a setting the mode never reads, or a threshold no distance of the measure can reach (or
// that every distance passes), is an error; one the measure does not read a warning.
void check_settings(const SearchCommand& cmd, const kernels::MatchParams& params,
                    std::ostream& err) {
  std::vector<std::string_view> given;
  if (cmd.metric.band) given.emplace_back("band");
  if (cmd.window != 0) given.emplace_back("w");
  if (cmd.hop != 1) given.emplace_back("hop");
  if (cmd.znorm) given.emplace_back("znorm");
  for (const std::string_view flag : given) {
    const std::string_view key = flag == "w" ? "window" : flag;
    if (const auto unread = config::unread_setting(key, params)) {
      if (unread->error) throw std::runtime_error("--" + std::string(flag) + ": " + unread->why);
      err << "warning: --" << flag << ": " << unread->why << "\n";
    }
  }
  if (cmd.threshold)
    if (const auto problem = config::threshold_problem(params))
      throw std::runtime_error("--threshold: " + *problem);
}
}  // namespace

namespace {

// The options that say how to match: with --library each pattern's own settings are used.
constexpr std::string_view matching_flags[] = {"--patterns", "--mode", "--threshold", "--top",
                                               "--profile",  "--w",    "--hop",       "--znorm",
                                               "--metric",   "--cost", "--band"};

bool is_matching_flag(std::string_view name) {
  for (const std::string_view flag : matching_flags)
    if (name == flag) return true;
      // The measures' parameters (--gamma, --nu, ...), one flag each (add_metric_options).
#define WW_PARAM_NAME(field, which, kind, def, lower, open, help) \
  if (name == "--" #field) return true;
  WARPWATCH_MEASURE_PARAMS(WW_PARAM_NAME)
#undef WW_PARAM_NAME
  return false;
}

std::size_t longest_stream(const std::vector<InputStream>& streams) {
  std::size_t longest = 0;
  for (const auto& s : streams) longest = std::max(longest, s.times_ns.size());
  return longest;
}

// The Matcher of a search in chunks of `step` samples (auto's rule counts the pairs a batch
// runs: every stream with every pattern of its dims), the patterns and streams added.
std::unique_ptr<kernels::Matcher> search_matcher(kernels::Backend backend,
                                                 const std::vector<kernels::PatternDef>& patterns,
                                                 const std::vector<InputStream>& streams,
                                                 std::size_t step, std::ostream& err) {
  kernels::WorkShape shape{.pairs = 0, .chunk = step};
  for (const auto& s : streams)
    for (const auto& p : patterns) kernels::count_pair(shape, p, s.def.dims);
  resolve_cli_backend(backend, err, shape);  // says what auto starts on
  auto matcher = kernels::make_matcher(backend, {.shape = shape});
  for (const auto& def : patterns) matcher->add_pattern(def);
  for (const auto& s : streams) matcher->add_stream(s.def);
  return matcher;
}

// Feeds the streams to the Matcher in chunks of `step` samples, handing `matched` each
// chunk's matches, then (end = true) those of the end of input (pending candidates).
void feed_chunks(kernels::Matcher& matcher, const std::vector<InputStream>& streams,
                 std::size_t step,
                 const std::function<void(std::vector<kernels::RawMatch>, bool end)>& matched) {
  const std::size_t longest = longest_stream(streams);
  for (std::size_t offset = 0; offset < longest; offset += step) {
    std::vector<kernels::StreamChunk> batch;
    for (const auto& s : streams) {
      const std::size_t begin = std::min(offset, s.times_ns.size());
      const std::size_t count = std::min(step, s.times_ns.size() - begin);
      batch.push_back(
          {s.def.id,
           std::span<const float>(s.values).subspan(begin * s.def.dims, count * s.def.dims),
           std::span<const std::int64_t>(s.times_ns).subspan(begin, count)});
    }
    matched(matcher.process(batch), false);
  }
  matched(matcher.flush(), true);
}

// Prints the events of a library search: matches of exclusive libraries through the
// nearest-template filter (docs/spec.md §5.1), settled after each chunk as the daemon
// settles after each round.
void search_library_streams(kernels::Matcher& matcher, alerting::NearestTemplate& nearest,
                            const std::vector<InputStream>& streams, std::size_t step,
                            const SearchCommand& cmd, std::ostream& out) {
  feed_chunks(matcher, streams, step, [&](std::vector<kernels::RawMatch> matches, bool end) {
    std::vector<kernels::RawMatch> passed;
    nearest.offer(std::move(matches), passed);
    if (end) {
      nearest.flush(passed);
    } else {
      const std::vector<std::string> holding = nearest.holding();
      const std::vector<std::uint64_t> settled = matcher.settled_before(holding);
      for (std::size_t k = 0; k < holding.size(); ++k)
        nearest.settle(holding[k], settled[k], passed);
    }
    kernels::sort_matches(passed);
    print_events(passed, cmd, out);
  });
}

// `search --library FILE`: the file read as the daemon reads its configuration (errors name
// file:line:column), every pattern of its libraries matched as configured.
int run_search_library(const SearchCommand& cmd, std::ostream& out, std::ostream& err) {
  VerbClock clock;
  std::string refused;
  for (const std::string& name : cmd.given)
    if (is_matching_flag(name)) refused += (refused.empty() ? "" : ", ") + name;
  if (!refused.empty())
    throw std::runtime_error(
        "--library matches each pattern with its own measure, mode, parameters and threshold "
        "from the file: " +
        refused + " cannot be given with it");
  if (!(cmd.period_s * 1e9 >= 1.0 && cmd.period_s * 1e9 < 9.2e18))
    throw std::runtime_error("--period must be from 1e-9 s (1 ns) to 9.2e9 s");
  const config::DaemonConfig config =
      plugins::load_daemon_config(cmd.library_path, {.patterns_of_any_dims = true});
  std::vector<kernels::PatternDef> patterns;
  std::set<std::string, std::less<>> exclusive;
  for (const config::Library& library : config.live.libraries) {
    patterns.insert(patterns.end(), library.patterns.begin(), library.patterns.end());
    if (library.exclusive) exclusive.insert(library.name);
  }
  if (patterns.empty())
    throw std::runtime_error(cmd.library_path + ": no pattern in its `libraries:`");
  const auto streams =
      to_streams(load_series_for_cli(cmd.input_path, cmd.input, err), cmd.period_s);
  check_dims(patterns, streams, err);
  clock.read();
  const std::size_t step =
      cmd.chunk ? cmd.chunk : std::max<std::size_t>(longest_stream(streams), 1);
  auto matcher = search_matcher(cmd.backend, patterns, streams, step, err);
  alerting::NearestTemplate nearest;
  std::vector<kernels::RawMatch> none;
  nearest.set_exclusive(std::move(exclusive), none);
  search_library_streams(*matcher, nearest, streams, step, cmd, out);
  clock.computed();
  clock.report(err, {.verb = "search",
                     .what = std::to_string(streams.size()) + " stream(s) of " +
                             std::to_string(total_samples(streams)) + " samples, " +
                             std::to_string(patterns.size()) + " pattern(s) of " + cmd.library_path,
                     .backend = matcher->running_backend(),
                     .done = "searched",
                     .amount = static_cast<double>(total_samples(streams)),
                     .unit = "samples",
                     .tail = ""});
  return 0;
}

}  // namespace

int run_search(const SearchCommand& cmd, std::ostream& out, std::ostream& err) {
  if (!cmd.library_path.empty()) return run_search_library(cmd, out, err);
  if (cmd.patterns_path.empty()) throw std::runtime_error("--patterns or --library is required");
  VerbClock clock;
  // In whole nanoseconds of int64, as the timestamps are: at least 1 ns (a period that
  // rounds to 0 would make every sample as old as the first).
  if (!(cmd.period_s * 1e9 >= 1.0 && cmd.period_s * 1e9 < 9.2e18))
    throw std::runtime_error("--period must be from 1e-9 s (1 ns) to 9.2e9 s");
  if (!cmd.threshold && !cmd.top && cmd.profile_path.empty())
    throw std::runtime_error("--threshold is required (or --top K, or --profile OUT.csv)");
  if (cmd.top && cmd.chunk)
    throw std::runtime_error(
        "--chunk does not apply to --top (a top-K search reads the whole "
        "series at once)");
  // The device starts (its context: a few hundred ms) while the files are read.
  std::future<void> device_ready;
  if (cmd.backend == kernels::Backend::cuda)
    device_ready =
        std::async(std::launch::async, [] { kernels::prepare_backend(kernels::Backend::cuda); });
  kernels::MatchParams params;
  params.distance = to_distance_params(cmd.metric);
  params.mode = cmd.mode;
  params.threshold = cmd.threshold.value_or(0.0);
  params.window = cmd.window;
  params.hop = cmd.hop;
  params.normalize = cmd.znorm ? kernels::Normalize::znorm : kernels::Normalize::none;
  kernels::validate(params);
  check_settings(cmd, params, err);

  std::vector<kernels::PatternDef> patterns;
  for (const auto& p : load_series_for_cli(cmd.patterns_path, cmd.input, err)) {
    kernels::PatternDef def;
    def.id = p.name;
    def.dims = p.dims;
    def.values = p.values;
    def.params = params;
    for (double t : p.times) def.times.push_back(t - p.times.front());  // relative to its start
    patterns.push_back(std::move(def));
  }
  const auto streams =
      to_streams(load_series_for_cli(cmd.input_path, cmd.input, err), cmd.period_s);
  check_dims(patterns, streams, err);
  clock.read();
  if (device_ready.valid()) device_ready.get();  // rethrows what starting it threw
  const auto report = [&](std::string_view backend) {
    clock.computed();
    clock.report(err, {.verb = "search",
                       .what = search_summary(cmd, streams, patterns.size()),
                       .backend = backend,
                       .done = "searched",
                       .amount = static_cast<double>(total_samples(streams)),
                       .unit = "samples",
                       .tail = ""});
  };
  if (!cmd.profile_path.empty()) {
    std::vector<ProfileSeries> series;
    for (const auto& s : streams) series.push_back({&s.def, s.values, s.times_ns, s.has_times});
    write_profiles(cmd.profile_path, series, patterns);
  }
  if (cmd.top) {  // every backend has a top-K window search (auto takes the cpu's)...
    const kernels::Backend backend =
        cmd.mode == kernels::Mode::stream ? kernels::Backend::reference  // ...stream: one
        : cmd.backend == kernels::Backend::automatic ? kernels::Backend::cpu
                                                     : cmd.backend;
    run_top(cmd, backend, patterns, streams, out);
    report(kernels::to_string(backend));
    return 0;
  }
  if (!cmd.threshold) {  // --profile alone: computed on the reference, no events
    report(kernels::to_string(kernels::Backend::reference));
    return 0;
  }
  const std::size_t step =
      cmd.chunk ? cmd.chunk : std::max<std::size_t>(longest_stream(streams), 1);
  auto matcher = search_matcher(cmd.backend, patterns, streams, step, err);
  // Each chunk's events, then the end of input's: pending candidates too.
  feed_chunks(*matcher, streams, step, [&](std::vector<kernels::RawMatch> matches, bool) {
    print_events(matches, cmd, out);
  });
  report(matcher->running_backend());  // auto: the backend of the last batch
  return 0;
}

}  // namespace warpwatch::cli
