// daemon/learn/templates: medoid, DBA and the soft-DTW barycenter against the scalar
// reference's distances (docs/spec.md §8).
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "test_support.hpp"
#include "warpwatch/kernels/reference.hpp"
#include "warpwatch/learn/templates.hpp"

namespace {

using namespace warpwatch;
using learn::Series;

// Noisy, shifted and stretched copies of one bump: examples a template should average.
std::vector<Series> bumps(std::uint64_t seed, std::size_t count, bool varying_length) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0.0, 0.1);
  std::uniform_int_distribution<int> shift(-4, 4), extra(0, varying_length ? 10 : 0);
  std::vector<Series> out;
  for (std::size_t k = 0; k < count; ++k) {
    const std::size_t n = 40 + extra(rng);
    const double centre = n / 2.0 + shift(rng);
    Series s;
    for (std::size_t i = 0; i < n; ++i)
      s.values.push_back(
          static_cast<float>(std::exp(-std::pow((i - centre) / 5.0, 2)) + noise(rng)));
    out.push_back(std::move(s));
  }
  return out;
}

double dtw_sum(const Series& z, const std::vector<Series>& examples) {
  double sum = 0.0;
  for (const auto& e : examples)
    sum += kernels::reference::dtw(e.view(), z.view(), kernels::Cost::sq);
  return sum;
}

TEST(LearnTemplates, MedoidIsTheBruteForceArgmin) {
  const auto examples = bumps(warpwatch::testing::test_seed(), 9, true);
  std::size_t want = 0;
  double best = INFINITY;
  for (std::size_t i = 0; i < examples.size(); ++i) {
    double sum = 0.0;
    for (std::size_t j = 0; j < examples.size(); ++j)
      if (j != i)
        sum += kernels::reference::dtw(examples[i].view(), examples[j].view(), kernels::Cost::sq);
    if (sum < best) best = sum, want = i;
  }
  EXPECT_EQ(learn::medoid(examples, std::nullopt, kernels::Backend::reference), want);
  learn::TemplateOptions options;
  options.kind = learn::TemplateKind::medoid;
  options.backend = kernels::Backend::reference;
  const auto t = learn::build_template(examples, options);
  EXPECT_EQ(t.medoid, want);
  EXPECT_EQ(t.series.values, examples[want].values);
  ASSERT_EQ(t.objective.size(), 1u);
  EXPECT_DOUBLE_EQ(t.objective.front(), dtw_sum(examples[want], examples));
}

TEST(LearnTemplates, DbaLowersTheSummedDistanceEveryIteration) {
  const auto examples = bumps(warpwatch::testing::test_seed(), 12, true);
  learn::TemplateOptions options;
  options.kind = learn::TemplateKind::dba;
  options.backend = kernels::Backend::reference;
  const auto t = learn::build_template(examples, options);
  ASSERT_GE(t.objective.size(), 2u) << "DBA made no step from the medoid";
  for (std::size_t i = 1; i < t.objective.size(); ++i)
    EXPECT_LE(t.objective[i], t.objective[i - 1]) << "iteration " << i;
  EXPECT_LT(t.objective.back(), t.objective.front());
  EXPECT_LE(t.objective.size(), options.max_iterations + 1);
  // The last value is the reference's summed dtw to the template returned.
  EXPECT_NEAR(t.objective.back(), dtw_sum(t.series, examples), 1e-9 * t.objective.back());
  EXPECT_EQ(t.series.length(), examples[t.medoid].length());
}

TEST(LearnTemplates, SoftDtwLowersTheSummedDivergenceEveryIteration) {
  const auto examples = bumps(warpwatch::testing::test_seed(), 8, true);
  learn::TemplateOptions options;
  options.kind = learn::TemplateKind::softdtw;
  options.backend = kernels::Backend::cpu;
  options.gamma = 0.1;
  const auto t = learn::build_template(examples, options);
  ASSERT_GE(t.objective.size(), 2u) << "no gradient step was taken";
  for (std::size_t i = 1; i < t.objective.size(); ++i)
    EXPECT_LE(t.objective[i], t.objective[i - 1]) << "iteration " << i;
  EXPECT_LT(t.objective.back(), t.objective.front());
  EXPECT_NEAR(t.objective.back(),
              learn::softdtw_divergence_sum(t.series, examples, options.gamma, std::nullopt),
              1e-9 * std::fabs(t.objective.back()) + 1e-12);
}

TEST(LearnTemplates, IdenticalExamplesGiveThemselvesBack) {
  const auto one = bumps(warpwatch::testing::test_seed(), 1, false).front();
  const std::vector<Series> same(5, one);
  for (const auto kind : {learn::TemplateKind::medoid, learn::TemplateKind::dba}) {
    learn::TemplateOptions options;
    options.kind = kind;
    options.backend = kernels::Backend::reference;
    const auto t = learn::build_template(same, options);
    EXPECT_EQ(t.series.values, one.values) << learn::to_string(kind);
    EXPECT_EQ(t.objective.back(), 0.0);
  }
  learn::TemplateOptions options;
  options.kind = learn::TemplateKind::softdtw;
  options.backend = kernels::Backend::cpu;
  const auto t = learn::build_template(same, options);
  ASSERT_EQ(t.series.values.size(), one.values.size());
  for (std::size_t i = 0; i < one.values.size(); ++i)
    EXPECT_NEAR(t.series.values[i], one.values[i], 1e-6) << "sample " << i;
}

TEST(LearnTemplates, RefusesNoExamplesAndMixedDims) {
  EXPECT_THROW(learn::build_template(std::vector<Series>{}, {}), std::invalid_argument);
  const std::vector<Series> mixed{{{0, 1, 2}, 1}, {{0, 1, 2, 3}, 2}};
  try {
    learn::build_template(mixed, {});
    FAIL() << "mixed dims accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("different dims (2 and 1)"), std::string::npos)
        << e.what();
  }
}

}  // namespace
