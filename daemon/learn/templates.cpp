// docs/spec.md §8: templates from examples.
#include "warpwatch/learn/templates.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "warpwatch/kernels/reference.hpp"

namespace warpwatch::learn {
namespace {

kernels::DistanceParams params_of(kernels::Metric metric, std::optional<double> band,
                                  double gamma = 1.0) {
  kernels::DistanceParams p;
  p.metric = metric;
  p.cost = kernels::Cost::sq;
  p.band = band;
  p.gamma = gamma;
  return p;
}

std::vector<kernels::SeriesView> views(std::span<const Series> examples) {
  std::vector<kernels::SeriesView> out;
  for (const auto& e : examples) out.push_back(e.view());
  return out;
}

void check_examples(std::span<const Series> examples) {
  if (examples.empty()) throw std::invalid_argument("no examples to learn a template from");
  for (const auto& e : examples) {
    if (e.dims != examples.front().dims)
      throw std::invalid_argument("examples of different dims (" + std::to_string(e.dims) +
                                  " and " + std::to_string(examples.front().dims) + ")");
    if (e.length() < 2) throw std::invalid_argument("an example of fewer than 2 samples");
  }
}

double dtw_sum(const Series& z, std::span<const Series> examples, std::optional<double> band) {
  double sum = 0.0;
  for (const auto& e : examples)
    sum += kernels::reference::dtw(e.view(), z.view(), kernels::Cost::sq, band);
  return sum;
}

bool decreased_enough(double before, double after, double tolerance) {
  return before - after > tolerance * std::max(std::fabs(before), 1e-300);
}

// DBA (Petitjean et al. 2011), docs/spec.md §8: align every example to the template along its
// dtw path, replace each template sample by the mean of the samples aligned to it.
void run_dba(std::span<const Series> examples, const TemplateOptions& options,
             TemplateResult& result) {
  Series z = result.series;
  const std::size_t m = z.length(), d = z.dims;
  double current = result.objective.back();
  for (std::size_t it = 0; it <= options.max_iterations; ++it) {
    // z's paths: their costs summed are z's summed distance (bit for bit the reference's
    // dtw), and their means the next template.
    std::vector<double> sums(m * d, 0.0);
    std::vector<std::size_t> counts(m, 0);
    double value = 0.0;
    for (const auto& e : examples) {
      double along = 0.0;
      for (const auto& step :
           kernels::reference::dtw_path(e.view(), z.view(), kernels::Cost::sq, options.band)) {
        along += step.cost;
        ++counts[step.j];
        for (std::size_t k = 0; k < d; ++k) sums[step.j * d + k] += e.values[step.i * d + k];
      }
      value += along;
    }
    if (it > 0) {
      if (!(value <= current)) {  // float32 rounding undid a vanishing gain: keep the last
        z = result.series;
        break;
      }
      const bool go_on = decreased_enough(current, value, options.tolerance);
      result.series = z;
      current = value;
      result.objective.push_back(value);
      if (!go_on || it == options.max_iterations) break;
    }
    for (std::size_t j = 0; j < m; ++j)
      if (counts[j])
        for (std::size_t k = 0; k < d; ++k)
          z.values[j * d + k] = static_cast<float>(sums[j * d + k] / counts[j]);
  }
}

// The soft-DTW barycenter (Cuturi & Blondel 2017) of the divergence: gradient steps, a step
// that would increase the objective halved until it does not.
void run_softdtw(std::span<const Series> examples, const TemplateOptions& options,
                 TemplateResult& result) {
  Series z = result.series;
  const std::size_t k = examples.size(), values = z.values.size();
  const auto params = params_of(kernels::Metric::softdtw, options.band, options.gamma);
  std::vector<kernels::SeriesView> b = views(examples);
  double current = result.objective.back();
  double step = 1.0 / (2.0 * static_cast<double>(k));
  std::vector<double> grads((k + 1) * values);
  for (std::size_t it = 0; it < options.max_iterations; ++it) {
    b.resize(k);
    b.push_back(z.view());
    const kernels::SeriesView a[] = {z.view()};
    kernels::softdtw_grad_matrix(options.backend, a, b, params, grads);
    std::vector<double> g(values, 0.0);
    for (std::size_t p = 0; p < k; ++p)
      for (std::size_t v = 0; v < values; ++v) g[v] += grads[p * values + v];
    for (std::size_t v = 0; v < values; ++v) g[v] -= static_cast<double>(k) * grads[k * values + v];
    if (std::all_of(g.begin(), g.end(), [](double x) { return x == 0.0; })) break;
    bool moved = false;
    for (int halvings = 0; halvings < 40 && !moved; ++halvings, step /= 2) {
      Series next = z;
      for (std::size_t v = 0; v < values; ++v)
        next.values[v] = static_cast<float>(z.values[v] - step * g[v]);
      const double value = softdtw_divergence_sum(next, examples, options.gamma, options.band);
      if (value <= current) {
        const bool go_on = decreased_enough(current, value, options.tolerance);
        z = std::move(next);
        current = value;
        result.objective.push_back(value);
        moved = go_on;
        if (!go_on) it = options.max_iterations;
        break;
      }
    }
    if (!moved) break;
    step *= 1.5;
  }
  result.series = std::move(z);
}

}  // namespace

std::string_view to_string(TemplateKind kind) {
  switch (kind) {
    case TemplateKind::medoid:
      return "medoid";
    case TemplateKind::dba:
      return "dba";
    case TemplateKind::softdtw:
      return "softdtw";
  }
  return "?";
}

std::optional<TemplateKind> parse_template_kind(std::string_view name) {
  for (auto k : {TemplateKind::medoid, TemplateKind::dba, TemplateKind::softdtw})
    if (name == to_string(k)) return k;
  return std::nullopt;
}

std::size_t medoid(std::span<const Series> examples, std::optional<double> band,
                   kernels::Backend backend) {
  check_examples(examples);
  const auto v = views(examples);
  const std::size_t k = v.size();
  std::vector<double> matrix(k * k);
  kernels::distance_matrix(backend, v, v, params_of(kernels::Metric::dtw, band), matrix);
  std::size_t best = 0;
  double best_sum = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < k; ++i) {
    double sum = 0.0;
    for (std::size_t j = 0; j < k; ++j)
      if (j != i) sum += matrix[i * k + j];
    if (sum < best_sum) best = i, best_sum = sum;
  }
  return best;
}

TemplateResult build_template(std::span<const Series> examples, const TemplateOptions& options) {
  check_examples(examples);
  TemplateResult result;
  const kernels::Backend matrix_backend = options.backend == kernels::Backend::reference
                                              ? kernels::Backend::reference
                                              : kernels::Backend::cpu;
  result.medoid = medoid(examples, options.band, matrix_backend);
  result.series = examples[result.medoid];
  if (options.kind == TemplateKind::softdtw) {
    result.objective.push_back(
        softdtw_divergence_sum(result.series, examples, options.gamma, options.band));
    run_softdtw(examples, options, result);
  } else {
    result.objective.push_back(dtw_sum(result.series, examples, options.band));
    if (options.kind == TemplateKind::dba) run_dba(examples, options, result);
  }
  return result;
}

double softdtw_divergence_sum(const Series& z, std::span<const Series> examples, double gamma,
                              std::optional<double> band) {
  const auto sd = [&](const Series& a, const Series& b) {
    return kernels::reference::softdtw(a.view(), b.view(), kernels::Cost::sq, gamma, band);
  };
  const double self = sd(z, z);
  double sum = 0.0;
  for (const auto& e : examples) sum += sd(z, e) - 0.5 * (self + sd(e, e));
  return sum;
}

Series znormed(const Series& s) {
  Series out = s;
  const std::size_t n = s.length(), d = s.dims;
  for (std::size_t k = 0; k < d; ++k) {
    double mean = 0.0, sq = 0.0;
    for (std::size_t i = 0; i < n; ++i) mean += s.values[i * d + k];
    mean /= static_cast<double>(n);
    for (std::size_t i = 0; i < n; ++i) {
      const double x = s.values[i * d + k] - mean;
      sq += x * x;
    }
    const double sd = std::sqrt(sq / static_cast<double>(n));
    for (std::size_t i = 0; i < n; ++i)
      out.values[i * d + k] =
          sd < 1e-8 ? 0.0f : static_cast<float>((s.values[i * d + k] - mean) / sd);
  }
  return out;
}

}  // namespace warpwatch::learn
