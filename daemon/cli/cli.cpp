#include "warpwatch/cli/cli.hpp"

#include <CLI/CLI.hpp>

#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "commands.hpp"

namespace warpwatch::cli {

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"warpwatch: elastic pattern matching on time series (DTW, DK, TWED, soft-DTW)"};
  app.set_version_flag("--version", WARPWATCH_VERSION);
  app.require_subcommand(1);
  auto* backends = app.add_subcommand("backends", "list the matching backends of this build");
  DistanceCommand distance;
  SearchCommand search;
  CutCommand cut;
  LearnCommand learn;
  learn.argv.assign(argv, argv + argc);
  BenchCommand bench;
  CheckConfigCommand check_config;
  OverlayCommand overlay;
  ReplayCommand replay;
  TailCommand tail;
  LoadCommand load;
  KeygenCommand keygen;
  TokenCommand token;
  ExplainCommand explain;
  BacktestCommand backtest;
  // Each verb: its subcommand and how to run it once parsed.
  const std::vector<std::pair<CLI::App*, std::function<int()>>> verbs = {
      {add_distance_command(app, distance), [&] { return run_distance(distance, out, err); }},
      {add_search_command(app, search), [&] { return run_search(search, out, err); }},
      {add_cut_command(app, cut), [&] { return run_cut(cut, out, err); }},
      {add_learn_command(app, learn), [&] { return run_learn(learn, out, err); }},
      {add_bench_command(app, bench), [&] { return run_bench(bench, out, err); }},
      {add_check_config_command(app, check_config),
       [&] { return run_check_config(check_config, out, err); }},
      {add_overlay_command(app, overlay), [&] { return run_overlay_fold(overlay, out, err); }},
      {add_replay_command(app, replay), [&] { return run_replay(replay, out, err); }},
      {add_tail_command(app, tail), [&] { return run_tail(tail, out, err); }},
      {add_load_command(app, load), [&] { return run_load(load, out, err); }},
      {add_keygen_command(app, keygen), [&] { return run_keygen(keygen, out, err); }},
      {add_token_command(app, token), [&] { return run_token(token, out, err); }},
      {add_explain_command(app, explain), [&] { return run_explain(explain, out, err); }},
      {add_backtest_command(app, backtest), [&] { return run_backtest(backtest, out, err); }}};
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e, out, err);
  }
  if (backends->parsed()) return run_backends(out);
  for (const auto& [sub, run] : verbs) {
    if (!sub->parsed()) continue;
    try {
      return run();
    } catch (const std::exception& e) {
      err << "warpwatch " << sub->get_name() << ": " << e.what() << "\n";
      return 1;
    }
  }
  return 2;  // unreachable: require_subcommand(1)
}

}  // namespace warpwatch::cli
