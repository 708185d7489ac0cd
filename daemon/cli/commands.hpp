// The `warpwatch` verbs: each registers its options on a CLI11 subcommand
// and runs from the parsed values. run_* throw std::exception on bad input; cli.cpp turns
// that into a message naming the verb and a non-zero exit status.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "ingest_feedback.hpp"
#include "options.hpp"
#include "warpwatch/bench/bench.hpp"
#include "warpwatch/bench/e2e.hpp"
#include "warpwatch/bench/load_generator.hpp"
#include "warpwatch/stream/sources/curve.hpp"

namespace warpwatch::cli {

// `warpwatch backends`: what this build has and what can run here.
int run_backends(std::ostream& out);

struct DistanceCommand {
  MetricOptions metric;
  SeriesInputOptions input;
  std::string a_path, b_path;
  std::string output = "-";
  kernels::Backend backend = kernels::Backend::automatic;
  std::vector<int> devices{};  // cuda: empty = every usable device
  bool grad = false;
};
CLI::App* add_distance_command(CLI::App& app, DistanceCommand& cmd);
int run_distance(const DistanceCommand& cmd, std::ostream& out, std::ostream& err);

struct SearchCommand {
  MetricOptions metric;
  SeriesInputOptions input;
  std::string patterns_path, input_path;
  // --library: a configuration file's libraries, each pattern as configured (docs/cli.md §4).
  std::string library_path;
  std::vector<std::string> given;  // the options given on the command line, by name
  kernels::Mode mode = kernels::Mode::stream;
  std::optional<double> threshold;  // required unless --top or --profile
  std::size_t top = 0;              // the top K matches instead of events
  std::string profile_path;         // --profile: the distance profiles' CSV file
  std::size_t window = 0, hop = 1;
  bool znorm = false;
  double period_s = 1.0;  // spacing of samples (and patterns) given without timestamps
  std::size_t chunk = 0;  // feed the input in chunks of this many samples; 0 = whole
  kernels::Backend backend = kernels::Backend::automatic;
};
CLI::App* add_search_command(CLI::App& app, SearchCommand& cmd);
int run_search(const SearchCommand& cmd, std::ostream& out, std::ostream& err);

// `warpwatch cut`: samples [from, to) of a recording as a pattern file.
struct CutCommand {
  SeriesInputOptions input;
  std::string file, output;
  std::optional<std::size_t> from, to;            // sample indices, to exclusive
  std::optional<std::string> from_time, to_time;  // times, as the time column writes them
  std::optional<std::size_t> series;              // of a file of several series
};
CLI::App* add_cut_command(CLI::App& app, CutCommand& cmd);
int run_cut(const CutCommand& cmd, std::ostream& out, std::ostream& err);

// `warpwatch learn`: a library entry (template, mode, threshold) from examples
// (verbs/learn/, docs/cli.md §4.3).
struct LearnCommand {
  SeriesInputOptions input;
  std::string positives_path;       // --positives: series files (UCR rows with labels...)
  std::vector<std::string> labels;  // --label L (repeated; `all`: every label)
  std::string from_path;            // --from: a recording to cut positives from...
  std::string segments;             // ...at --segments START:END,... (samples or times)
  std::string segments_csv;         // ...or at the rows of --segments-csv (start,end[,label])
  std::vector<std::string> negatives_paths;
  std::vector<std::string> negative_labels;  // --negative-label: only these rows of them
  bool negatives_apart = false;  // --negatives-apart: untimed series not laid end to end
  std::string template_kind = "dba";
  std::string mode = "auto";   // stream | window | auto
  std::string znorm = "auto";  // on | off | auto
  std::optional<double> band;
  std::optional<double> target_recall, max_false_per_hour;
  std::size_t folds = 10;
  double gamma = 1.0;
  double period_s = 1.0;  // spacing of series without timestamps
  std::string out_path, name;
  std::string report_path;  // --report: the HTML page (verbs/learn/learn_report.hpp)
  kernels::Backend backend = kernels::Backend::automatic;
  std::vector<std::string> argv;  // the command line, for the library's header comment
};
CLI::App* add_learn_command(CLI::App& app, LearnCommand& cmd);
int run_learn(const LearnCommand& cmd, std::ostream& out, std::ostream& err);

// `warpwatch bench e2e`: the daemon driven end to end (daemon/bench/e2e.hpp).
struct BenchE2eCommand {
  bench::E2eOptions options;  // the options set the fields they name
  bool text = false, explicit_timestamps = false;
  std::string json_path, plot_path;
  std::string replot_path;  // plot this earlier --json report instead of running
};

struct BenchCommand {
  kernels::Backend backend =
      kernels::Backend::automatic;  // `auto` is resolved into options.backend
  bench::Options options;           // the options set the fields they name
  std::string json_path;
  BenchE2eCommand e2e;
  CLI::App* e2e_app = nullptr;  // parsed: run the e2e sub-mode instead
};
CLI::App* add_bench_command(CLI::App& app, BenchCommand& cmd);
// Exit status 1 when a case could not run on the backend (printed as an error line); for
// e2e, when a run failed or did not reconcile, or the plot could not be drawn.
int run_bench(const BenchCommand& cmd, std::ostream& out, std::ostream& err);
int run_bench_e2e(const BenchE2eCommand& cmd, std::ostream& out, std::ostream& err);

struct CheckConfigCommand {
  std::string path;
  bool reference = false;  // print the configuration reference instead
  std::string state_dir;   // the overlay's state directory; "" = the file's state.dir
};
CLI::App* add_check_config_command(CLI::App& app, CheckConfigCommand& cmd);
// Exit status 1 on a bad configuration, printed as file:line:column: message on `err`.
int run_check_config(const CheckConfigCommand& cmd, std::ostream& out, std::ostream& err);

// `warpwatch overlay fold`: the runtime changes of libraries (the overlay of a state
// directory) written into the configuration file, and the overlay cleared.
struct OverlayCommand {
  std::string config_path;
  std::string state_dir;  // "" = the file's state.dir
  bool dry_run = false;   // print the changes and the diff, write nothing
};
CLI::App* add_overlay_command(CLI::App& app, OverlayCommand& cmd);
int run_overlay_fold(const OverlayCommand& cmd, std::ostream& out, std::ostream& err);

struct ReplayCommand {
  SeriesInputOptions input;
  std::string file, endpoint, stream;
  double rate_hz = 0.0;
  double period_ms = 10.0;
  std::int64_t start_ns = 0;
  std::size_t chunk = 64;
  bool text = false;
  FeedbackOptions feedback;  // what the daemon accepted (ingest_feedback.hpp)
};
CLI::App* add_replay_command(CLI::App& app, ReplayCommand& cmd);
int run_replay(const ReplayCommand& cmd, std::ostream& out, std::ostream& err);

// The CURVE options of a client verb (tail, load): its own secret key file (the public key
// is derived from it) and the server's public key file; both or neither.
struct CurveClientFiles {
  std::string key_file, server_key_file;
};
void add_curve_client_options(CLI::App& sub, CurveClientFiles& files);
// The client's settings, the files read; nullopt when no file was named.
std::optional<stream::CurveSocketOptions> curve_client(const CurveClientFiles& files);

struct LoadCommand {
  bench::LoadOptions load;  // the options set the fields they name
  bench::ZmqSinkOptions sink;
  std::string mqtt;  // HOST:PORT: publish at an MQTT broker instead (mqtt_sink's other fields)
  bench::MqttSinkOptions mqtt_sink;
  std::vector<std::string> fault_kinds;  // bench::parse_load_fault names
  SeriesInputOptions input;
  std::string patterns_path;  // "" = built-in shapes
  std::size_t shapes = 1, pattern_length = 64;
  std::optional<std::uint64_t> jitter;
  std::optional<double> period_ms;
  bool text = false, explicit_timestamps = false;
  std::string json_path;
  std::string write_patterns;  // write the patterns to plant here and exit
  std::size_t list = 10;
  CurveClientFiles curve;            // connecting: a CURVE client
  std::string allowed_clients_file;  // --bind with --key: a CURVE server accepting these keys
  FeedbackOptions feedback;          // what the daemon accepted (ingest_feedback.hpp)
};
CLI::App* add_load_command(CLI::App& app, LoadCommand& cmd);
int run_load(const LoadCommand& cmd, std::ostream& out, std::ostream& err);

struct TailCommand {
  std::string endpoint = "tcp://127.0.0.1:5556";
  std::string topic;
  std::uint64_t count = 0;
  std::int64_t idle_exit_ms = 0;
  bool show_topic = false;
  CurveClientFiles curve;
};
CLI::App* add_tail_command(CLI::App& app, TailCommand& cmd);
int run_tail(const TailCommand& cmd, std::ostream& out, std::ostream& err);

// `warpwatch backtest`: a configuration over recordings through the daemon's Pipeline run
// offline (daemon/cli/backtest/). Exit status 1 on a bad configuration (file:line:column on
// `err`); other bad input throws (a recording that does not fit, an empty one); outputs are
// written whole or not at all.
struct BacktestCommand {
  std::string config_path;
  std::vector<std::string> inputs;  // ID=FILE or FILE
  std::string format = "auto";      // auto | series | line-protocol
  SeriesInputOptions input;
  std::string events_path = "-";
  std::string table_path;   // "" = stderr
  std::string report_path;  // "" = none
  std::optional<kernels::Backend> backend;
};
CLI::App* add_backtest_command(CLI::App& app, BacktestCommand& cmd);
int run_backtest(const BacktestCommand& cmd, std::ostream& out, std::ostream& err);

struct KeygenCommand {
  std::string prefix;
  bool force = false;
};
CLI::App* add_keygen_command(CLI::App& app, KeygenCommand& cmd);
int run_keygen(const KeygenCommand& cmd, std::ostream& out, std::ostream& err);

struct TokenCommand {
  std::string name, role;
};
CLI::App* add_token_command(CLI::App& app, TokenCommand& cmd);
int run_token(const TokenCommand& cmd, std::ostream& out, std::ostream& err);

struct ExplainCommand {
  std::string id, url, token_file, ca_file, plot;
};
CLI::App* add_explain_command(CLI::App& app, ExplainCommand& cmd);
int run_explain(const ExplainCommand& cmd, std::ostream& out, std::ostream& err);

}  // namespace warpwatch::cli
