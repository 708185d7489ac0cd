// `warpwatch distance`: the pairwise distance matrix between the series of two files.
#include <ostream>
#include <stdexcept>
#include <vector>

#include "commands.hpp"
#include "verb_clock.hpp"
#include "warpwatch/config/array_writer.hpp"
#include "warpwatch/kernels/backends.hpp"

namespace warpwatch::cli {

CLI::App* add_distance_command(CLI::App& app, DistanceCommand& cmd) {
  auto* sub = app.add_subcommand(
      "distance", "pairwise distance matrix between the series of A (rows) and of B (columns)");
  add_metric_options(*sub, cmd.metric);
  add_series_input_options(*sub, cmd.input);
  sub->add_option("A", cmd.a_path, "series file or directory (CSV, TSV, .npy)")->required();
  sub->add_option("B", cmd.b_path, "series file or directory (CSV, TSV, .npy)")->required();
  sub->add_option("-o,--output", cmd.output, "out.csv or out.npy; - for CSV on stdout")
      ->capture_default_str();
  add_backend_option(*sub, cmd.backend);
  add_devices_option(*sub, cmd.devices);
  sub->add_flag("--grad", cmd.grad,
                "softdtw: write the gradient with respect to each series of A instead, shape "
                "(|A|, |B|, n[, d])");
  return sub;
}

int run_distance(const DistanceCommand& cmd, std::ostream& out, std::ostream& err) {
  VerbClock clock;
  const kernels::DistanceParams params = to_distance_params(cmd.metric);
  if (cmd.grad && params.metric != kernels::Metric::softdtw)
    throw std::runtime_error("--grad needs --metric softdtw");
  const kernels::Backend backend = resolve_cli_backend(cmd.backend, err);
  const auto a = load_series_for_cli(cmd.a_path, cmd.input, err);
  const auto b = load_series_for_cli(cmd.b_path, cmd.input, err);
  clock.read();
  for (const auto& s : b)
    if (s.dims != a.front().dims)
      throw std::runtime_error(s.name + " has dimension " + std::to_string(s.dims) + ", " +
                               a.front().name + " has " + std::to_string(a.front().dims));
  const bool lock_step = kernels::measure_info(params.metric).lock_step;
  if (lock_step)  // ed: one length for every series
    for (const auto* set : {&a, &b})
      for (const auto& s : *set)
        if (s.length() != a.front().length())
          throw std::runtime_error("--metric " + std::string(kernels::to_string(params.metric)) +
                                   " compares series of equal length: " + s.name + " has " +
                                   std::to_string(s.length()) + " samples, " + a.front().name +
                                   " has " + std::to_string(a.front().length()));

  std::vector<double> result;
  std::vector<std::size_t> shape{a.size(), b.size()};
  if (cmd.grad) {
    const std::size_t n = a.front().length(), dims = a.front().dims;
    for (const auto& s : a)
      if (s.length() != n)
        throw std::runtime_error("--grad needs the series of A to have one length (" + s.name +
                                 ")");
    shape.push_back(n);
    if (dims > 1) shape.push_back(dims);
  }
  result.resize(a.size() * b.size() * (cmd.grad ? a.front().values.size() : 1));

  // The cells computed: n x m a pair, ed's lock-step sum n.
  double cells = 0.0;
  for (const auto& sa : a)
    for (const auto& sb : b)
      cells +=
          static_cast<double>(sa.length()) * (lock_step ? 1.0 : static_cast<double>(sb.length()));
  std::vector<kernels::SeriesView> va, vb;
  for (const auto& s : a) va.push_back(s.view());
  for (const auto& s : b) vb.push_back(s.view());
  if (cmd.grad)  // (|A|, |B|, n[, d]): the pairs in (i, j) order, as softdtw_grad_matrix writes
    kernels::softdtw_grad_matrix(backend, va, vb, params, result);
  else
    kernels::distance_matrix(backend, va, vb, params, result, {.devices = cmd.devices});
  clock.computed();
  config::write_array(cmd.output, result, shape, out);
  clock.report(err, {.verb = "distance",
                     .what = std::to_string(a.size()) + " x " + std::to_string(b.size()) + " " +
                             std::string(kernels::to_string(cmd.metric.metric)) +
                             (cmd.grad ? " gradients" : ""),
                     .backend = kernels::to_string(backend),
                     .done = "computed",
                     .amount = cells,
                     .unit = "cells",
                     .tail = cmd.output == "-" ? "" : ", written to " + cmd.output});
  return 0;
}

}  // namespace warpwatch::cli
