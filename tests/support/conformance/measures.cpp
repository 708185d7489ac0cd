// Conformance suite (overview: conformance.hpp), scenario 9: the whole-series measures of the
// shared cells (msm, erp, lcss; common/measure_cells.hpp) on random lengths around a SIMD
// group and a warp, on UCR data, and their top-K window search, against the reference.
#include <gtest/gtest.h>

#include <cmath>
#include <exception>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "conformance.hpp"
#include "inputs.hpp"
#include "warpwatch/bench/dense_data.hpp"
#include "warpwatch/kernels/top_windows.hpp"

namespace warpwatch::testing::conformance {
namespace {

std::string describe(const DistanceParams& q) {
  std::ostringstream os;
  os << kernels::to_string(q.metric) << " cost " << kernels::to_string(q.cost) << " band "
     << (q.band ? format_double(*q.band) : "none") << " c " << q.c << " g " << q.g << " epsilon "
     << q.epsilon << " delta " << (q.delta ? std::to_string(*q.delta) : "none");
  return os.str();
}

// `rows` of a UCR file as series of one dimension (empty when the file is missing).
std::vector<Series> ucr_series(const std::string& file, std::size_t rows) {
  std::vector<Series> out;
  std::vector<std::vector<float>> all;
  try {
    all = bench::read_ucr_rows(bench::default_data_dir() + "/" + file);
  } catch (const std::exception& e) {
    ADD_FAILURE() << "the shared data set is missing: " << e.what();
    return out;
  }
  for (std::size_t i = 0; i < all.size() && out.size() < rows; i += 7) {
    Series s;
    s.values = all[i];
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace

std::vector<Metric> cell_metrics() {
  std::vector<Metric> out;
  for (const kernels::MeasureInfo& info : kernels::kMeasures)
    if (info.cells) out.push_back(info.metric);
  return out;
}

std::string metric_param_name(const ::testing::TestParamInfo<Metric>& info) {
  return std::string(kernels::to_string(info.param));
}

std::vector<DistanceParams> cell_param_sets(Metric metric) {
  std::vector<DistanceParams> out;
  DistanceParams base;
  base.metric = metric;
  switch (metric) {
    case Metric::msm:
      for (double c : {0.0, 0.5, 2.0}) {
        DistanceParams q = base;
        q.c = c;
        out.push_back(q);
      }
      break;
    case Metric::erp:
      for (Cost cost : {Cost::sq, Cost::abs})
        for (std::optional<double> band : {std::optional<double>{}, std::optional<double>{4.0}}) {
          DistanceParams q = base;
          q.cost = cost;
          q.band = band;
          q.g = band ? 0.25 : 0.0;
          out.push_back(q);
        }
      break;
    case Metric::lcss:
      for (auto [epsilon, delta] : {std::pair{0.3, std::optional<std::size_t>{}},
                                    std::pair{0.8, std::optional<std::size_t>{6}},
                                    std::pair{1.0, std::optional<std::size_t>{0}}}) {
        DistanceParams q = base;
        q.epsilon = epsilon;
        q.delta = delta;
        out.push_back(q);
      }
      break;
    case Metric::dtw:
    case Metric::dk:
    case Metric::softdtw:
    case Metric::twed:
    case Metric::ed:
      ADD_FAILURE() << "test setup: scenario 9 is for msm, erp and lcss";
      break;
  }
  return out;
}

void run_measure_lengths(const Backends& backends, Metric metric) {
  std::mt19937_64 rng(test_seed());
  const std::size_t lengths[] = {1, 2, 31, 32, 33, 257};
  for (std::size_t d : {1u, 3u}) {
    // Every length in A and in B, so that each pair of lengths meets (B's equal lengths fill
    // a SIMD group; a lone length leaves it partial).
    std::vector<Series> a, b;
    for (std::size_t n : lengths) {
      Series s;
      s.dims = d;
      s.values = random_walk(rng, n, d, 0.5f);
      a.push_back(s);
      for (int copy = 0; copy < (n == 32 ? 17 : 2); ++copy) {
        s.values = random_walk(rng, n, d, 0.5f);
        b.push_back(s);
      }
    }
    for (const DistanceParams& q : cell_param_sets(metric))
      check_distance_matrix(backends, a, b, q, cat(describe(q), " d=", d, " lengths 1..257"));
  }
}

void run_measure_ucr(const Backends& backends, Metric metric) {
  for (const char* file : {"GunPoint_TRAIN.tsv", "ECG200_TRAIN.tsv"}) {
    const std::vector<Series> a = ucr_series(file, 6), b = ucr_series(file, 9);
    if (a.empty() || b.empty()) continue;
    for (const DistanceParams& q : cell_param_sets(metric))
      check_distance_matrix(backends, a, b, q, cat(describe(q), " on ", file));
  }
}

void run_measure_top_windows(const std::vector<TopWindowsBackend>& backends, Metric metric) {
  std::mt19937_64 rng(test_seed());
  std::normal_distribution<float> noise(0.0f, 1.0f);
  std::size_t compared = 0;
  for (std::size_t d : {1u, 3u}) {
    for (Normalize normalize : {Normalize::none, Normalize::znorm}) {
      // A random walk of 3000 samples with 5 noisy copies of a 40-sample shape, each noisier
      // than the last, so that their distances are well apart.
      const std::size_t n = 3000, m = 40;
      std::vector<float> values = random_walk(rng, n, d), base = random_walk(rng, m, d);
      for (std::size_t c = 0; c < 5; ++c) {
        const std::size_t at = (c + 1) * n / 6;
        const float level = 0.01f * std::pow(2.0f, static_cast<float>(c));
        for (std::size_t i = 0; i < m * d; ++i) values[at * d + i] = base[i] + level * noise(rng);
      }
      std::vector<std::int64_t> times(n);
      for (std::size_t i = 0; i < n; ++i) times[i] = static_cast<std::int64_t>(i + 1) * kSecond;
      for (const DistanceParams& q : cell_param_sets(metric)) {
        for (std::size_t w : {std::size_t{0}, std::size_t{48}}) {
          PatternDef p = window_pattern("p", d, base, metric, w, 1 + w % 5, normalize);
          p.params.distance = q;
          kernels::TopWindowsRequest r;
          r.stream.id = "s";
          r.stream.dims = d;
          r.stream.nominal_period_ns = kSecond;
          r.values = values;
          r.times_ns = times;
          r.pattern = p;
          r.k = 4;
          const std::string what = cat(describe(q), " d=", d, " ", kernels::to_string(normalize),
                                       " w=", w ? w : m, " top 4");
          const auto want = kernels::reference::top_windows(r);
          // Then with a threshold between the 2nd and the 3rd (when they are apart).
          kernels::TopWindowsRequest thresholded = r;
          const bool apart = want.size() >= 3 && want[2].distance - want[1].distance >
                                                     1e-3 * magnitude(want[2].distance);
          if (apart) {
            thresholded.use_threshold = true;
            thresholded.pattern.params.threshold = 0.5 * (want[1].distance + want[2].distance);
          }
          for (const auto& backend : backends) {
            const auto expect_same = [&](const std::vector<kernels::TopWindow>& got,
                                         const std::vector<kernels::TopWindow>& ref,
                                         const std::string& label) {
              ASSERT_EQ(got.size(), ref.size()) << label;
              for (std::size_t k = 0; k < ref.size(); ++k) {
                EXPECT_EQ(got[k].end_index, ref[k].end_index) << label << " #" << k;
                EXPECT_EQ(got[k].start_ns, ref[k].start_ns) << label << " #" << k;
                EXPECT_TRUE(within_tolerance(got[k].distance, ref[k].distance))
                    << label << " #" << k << ": got " << format_double(got[k].distance) << " want "
                    << format_double(ref[k].distance);
              }
            };
            try {
              expect_same(backend.top(r), want, cat(what, " [", backend.name, "]"));
              if (apart)
                expect_same(backend.top(thresholded), kernels::reference::top_windows(thresholded),
                            cat(what, " under threshold [", backend.name, "]"));
            } catch (const std::exception& e) {
              ADD_FAILURE() << what << " [" << backend.name << "]: threw " << e.what();
            }
            ++compared;
          }
          EXPECT_FALSE(want.empty()) << what;
        }
      }
    }
  }
  EXPECT_GT(compared, 0u);
}

}  // namespace warpwatch::testing::conformance
