#include "warpwatch/daemon/cli.hpp"

#include <CLI/CLI.hpp>

#include <ostream>
#include <string>
#include <thread>
#include <vector>

#include "cli_verbs.hpp"
#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/cpu.hpp"

namespace warpwatch::daemon {
namespace {

int print_backends(std::ostream& out) {
  const kernels::CudaStatus cuda = kernels::cuda_status();
  out << "reference: available (scalar, the oracle)\n";
  out << "cpu: available, " << kernels::cpu::simd_target() << ", " << std::thread::hardware_concurrency()
      << " hardware threads\n";
  out << "cuda: " << (cuda.device_count > 0 ? "device present, " : "unavailable, ") << cuda.detail
      << (cuda.compiled ? " (matching backend not implemented yet)" : "") << "\n";
  return 0;
}

}  // namespace

int run_cli(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"warpwatch: elastic pattern matching on time series (DTW, DK, TWED, soft-DTW)"};
  app.set_version_flag("--version", WARPWATCH_VERSION);
  app.require_subcommand(1);
  auto* backends = app.add_subcommand("backends", "list the matching backends of this build");
  DistanceCommand distance;
  auto* distance_cmd = add_distance_command(app, distance);
  SearchCommand search;
  add_search_command(app, search);
  BenchCommand bench;
  auto* bench_cmd = add_bench_command(app, bench);
  // Verbs whose issues have not landed yet are declared so --help shows them, and refuse
  // to run rather than pretend.
  const std::vector<std::pair<std::string, std::string>> pending = {
      {"replay", "send a series file to a daemon as frames"},
      {"tail", "print events published by a daemon"},
      {"check-config", "validate a configuration file"}};
  std::vector<CLI::App*> pending_cmds;
  for (const auto& [name, help] : pending) {
    auto* sub = app.add_subcommand(name, help + " (not implemented yet)");
    sub->allow_extras();
    pending_cmds.push_back(sub);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e, out, err);
  }
  if (backends->parsed()) return print_backends(out);
  for (auto* sub : pending_cmds) {
    if (sub->parsed()) {
      err << "warpwatch " << sub->get_name() << ": not implemented yet\n";
      return 2;
    }
  }
  // require_subcommand(1): what is left is distance, search or bench.
  const bool is_distance = distance_cmd->parsed();
  const bool is_bench = bench_cmd->parsed();
  const std::string verb = is_bench ? "bench" : is_distance ? "distance" : "search";
  try {
    if (is_bench) return run_bench(bench, out, err);
    return is_distance ? run_distance(distance, out, err) : run_search(search, out, err);
  } catch (const std::exception& e) {
    err << "warpwatch " << verb << ": " << e.what() << "\n";
    return 1;
  }
}

}  // namespace warpwatch::daemon
