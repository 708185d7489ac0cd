// Explanations of events (docs/spec.md §7, daemon/explain/): the real Matcher's events on the
// reference and cpu backends, each explained from the stream's samples. dtw and dk: the path's
// total is the event's float32 distance bit for bit (matching/explain_support.hpp); ed: the
// identity path; twed, msm, erp, lcss: edit operations summing to the distance; softdtw:
// none, with the reason. Then the JSON, the plot, and the errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "matching/explain_support.hpp"
#include "test_support.hpp"
#include "warpwatch/explain/explain.hpp"
#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/reference.hpp"

using namespace warpwatch;
using namespace warpwatch::kernels;
using namespace warpwatch::testing;
using reference::Arithmetic;

namespace {

// The arithmetic of a backend's events (kernels::reference::Arithmetic): float64 for the
// reference's window mode, float32 otherwise.
std::vector<Arithmetic> reference_arithmetic(const PatternDef& p) {
  if (p.params.mode == Mode::window) return {Arithmetic::float64};
  return {Arithmetic::float32};
}
std::vector<Arithmetic> cpu_arithmetic(const PatternDef&) {
  return {Arithmetic::float32};
}

const char* backend_name(Backend b) {
  return b == Backend::reference ? "reference" : "cpu";
}

// Every event of dtw and dk over the stream on the reference and cpu backends
// (explain_all_events).
ExplainedEvents check_all(const StreamData& s, const std::vector<float>& pattern, double share,
                          std::mt19937_64& rng, const std::string& what) {
  ExplainedEvents checked;
  checked += explain_all_events(Backend::reference, "reference", reference_arithmetic, s, pattern,
                                share, rng, what);
  checked += explain_all_events(Backend::cpu, "cpu", cpu_arithmetic, s, pattern, share, rng, what);
  return checked;
}

TEST(Explain, DtwAndDkPathsGiveEachEventsDistanceBitForBitOnRandomStreams) {
  std::mt19937_64 rng(test_seed());
  ExplainedEvents checked;
  for (const std::size_t dims : {1u, 3u}) {
    const auto pattern = random_values(rng, 20 * dims);
    const StreamData s = random_stream(rng, {0.3f, 0, 0, 0, 1, 1}, "s", dims, 700, &pattern);
    checked += check_all(s, pattern, 0.05, rng, "random d=" + std::to_string(dims));
  }
  EXPECT_GE(checked.events, 50u);
  EXPECT_EQ(checked.exact, checked.events);
}

// Every place qualifies (threshold 1e30): stream mode reports short matches back to back, many
// of them crossed by a report made after they began (SPRING's replay explains those, docs/spec.md
// §7); window mode reports every w/2 samples. All bit for bit.
TEST(Explain, DtwAndDkPathsGiveEachEventsDistanceBitForBitOnDenseMatches) {
  std::mt19937_64 rng(test_seed());
  ExplainedEvents checked;
  for (const std::size_t dims : {1u, 2u}) {
    const auto pattern = random_values(rng, 16 * dims);
    const StreamData s = dense_stream(rng, pattern, dims, 30);
    checked += check_all(s, pattern, 1.0, rng, "dense d=" + std::to_string(dims));
  }
  EXPECT_GE(checked.events, 400u);
  EXPECT_EQ(checked.exact, checked.events);
  EXPECT_GT(checked.replayed, 0u);  // the crossed events are there, and explained exactly
}

TEST(Explain, DtwAndDkPathsGiveEachEventsDistanceBitForBitOnEcg200) {
  const auto [s, pattern] = ecg200_series();
  ASSERT_FALSE(pattern.empty());
  std::mt19937_64 rng(1);
  const ExplainedEvents checked = check_all(s, pattern, 0.05, rng, "ECG200");
  EXPECT_GE(checked.events, 16u);
  EXPECT_EQ(checked.exact, checked.events);
}

TEST(Explain, EdIsTheIdentityPathSummingToTheDistance) {
  std::mt19937_64 rng(test_seed());
  for (const std::size_t dims : {1u, 2u}) {
    const auto pattern = random_values(rng, 12 * dims);
    const StreamData s = dense_stream(rng, pattern, dims, 10);
    for (const Normalize normalize : {Normalize::none, Normalize::znorm}) {
      PatternDef p = base_pattern("p", dims, pattern, Mode::window, Metric::ed, 1e30);
      p.params.normalize = normalize;
      for (const Backend backend : {Backend::reference, Backend::cpu}) {
        const auto events = backend_events(backend, s, p, rng);
        ASSERT_FALSE(events.empty());
        for (const RawMatch& ev : events) {
          const auto e = explain::explain(p, s.values, 0, ev.start_index, ev.end_index);
          ASSERT_EQ(e.kind, "path") << e.note;
          ASSERT_EQ(e.steps.size(), 12u);
          for (std::size_t k = 0; k < 12; ++k) {
            EXPECT_EQ(e.steps[k].stream_index, ev.start_index + k);
            EXPECT_EQ(e.steps[k].pattern_row, k + 1);
          }
          // The reference sums in float64 in index order: bit for bit; the cpu in float32 in
          // UCR's order: within float32 rounding.
          if (backend == Backend::reference)
            EXPECT_EQ(float_bits(e.total), float_bits(ev.distance)) << describe(ev);
          else
            EXPECT_NEAR(e.total, ev.distance, 1e-5 * std::max(1.0, ev.distance)) << describe(ev);
        }
      }
    }
  }
}

// The edit distances: window mode on the reference backend (float64, exact) and the cpu's
// (float32: within docs/spec.md §3.2's tolerance, lcss exact).
TEST(Explain, EditOperationsOfTwedMsmErpAndLcssSumToTheirDistance) {
  std::mt19937_64 rng(test_seed());
  const std::map<std::string, std::vector<std::string>> moves = {
      {"twed", {"match", "delete_pattern", "delete_stream"}},
      {"msm", {"move", "split_merge_pattern", "split_merge_stream"}},
      {"erp", {"match", "gap_pattern", "gap_stream"}},
      {"lcss", {"match", "skip_pattern", "skip_stream"}}};
  for (const std::size_t dims : {1u, 2u}) {
    const auto pattern = random_values(rng, 10 * dims);
    StreamData s = dense_stream(rng, pattern, dims, 8);
    // Uneven timestamps, so that twed's clock matters.
    for (std::size_t i = 1; i < s.ts.size(); ++i)
      s.ts[i] = s.ts[i - 1] + 700'000'000 + static_cast<std::int64_t>(i % 7) * 100'000'000;
    for (const Metric metric : {Metric::twed, Metric::msm, Metric::erp, Metric::lcss}) {
      PatternDef p = base_pattern("p", dims, pattern, Mode::window, metric, 1e30);
      p.params.distance.epsilon = 0.5;
      p.params.distance.g = 0.25;
      if (metric == Metric::erp) p.params.distance.band = 4.0;
      for (const Backend backend : {Backend::reference, Backend::cpu}) {
        const auto events = backend_events(backend, s, p, rng);
        const std::string what = std::string(to_string(metric)) + " d=" + std::to_string(dims) +
                                 " " + backend_name(backend);
        ASSERT_FALSE(events.empty()) << what;
        for (const RawMatch& ev : events) {
          explain::Context context;
          context.times_ns = s.ts;
          context.nominal_period_ns = s.period_ns;
          const auto e = explain::explain(p, s.values, 0, ev.start_index, ev.end_index, context);
          ASSERT_EQ(e.kind, "edit_operations") << what << ": " << e.note;
          ASSERT_EQ(e.operations.size(), e.steps.size()) << what;
          for (const auto& op : e.operations) {
            const auto& names = moves.at(std::string(to_string(metric)));
            EXPECT_NE(std::find(names.begin(), names.end(), op), names.end()) << what << " " << op;
          }
          if (backend == Backend::reference || metric == Metric::lcss)
            EXPECT_EQ(float_bits(e.total), float_bits(ev.distance))
                << what << " " << describe(ev) << " total " << e.total;
          else
            EXPECT_NEAR(e.total, ev.distance, 1e-5 * std::max(1.0, ev.distance))
                << what << " " << describe(ev);
          EXPECT_NE(e.note.find("float64"), std::string::npos) << e.note;
        }
      }
    }
  }
}

TEST(Explain, TwedWithoutTheSegmentsTimesSaysItNeedsThem) {
  const std::vector<float> pattern = {0, 1, 2, 1};
  PatternDef p = base_pattern("p", 1, pattern, Mode::window, Metric::twed, 1.0);
  const std::vector<float> segment = {5, 0, 1, 2, 1, 5};
  const auto e = explain::explain(p, segment, 100, 101, 104);
  EXPECT_EQ(e.kind, "none");
  EXPECT_NE(e.note.find("timestamps"), std::string::npos) << e.note;
}

TEST(Explain, SoftdtwHasNoPathAndSaysWhy) {
  const std::vector<float> pattern = {0, 1, 2, 1};
  PatternDef p = base_pattern("p", 1, pattern, Mode::window, Metric::softdtw, 1.0);
  const std::vector<float> segment = {0, 1, 2, 1};
  const auto e = explain::explain(p, segment, 0, 0, 3);
  EXPECT_EQ(e.kind, "none");
  EXPECT_TRUE(e.steps.empty());
  EXPECT_NE(e.note.find("soft minimum over every alignment"), std::string::npos) << e.note;
}

TEST(Explain, AFlatWindowUnderZnormHasNoPath) {
  PatternDef p = base_pattern("p", 1, {0, 1, 2, 1}, Mode::window, Metric::dtw, 1.0);
  p.params.normalize = Normalize::znorm;
  const std::vector<float> segment = {3, 3, 3, 3};
  const auto e = explain::explain(p, segment, 7, 7, 10);
  EXPECT_EQ(e.kind, "none");
  EXPECT_NE(e.note.find("flat"), std::string::npos) << e.note;
}

TEST(Explain, ARangeOutsideTheSegmentOrOfAnotherWindowIsRefusedNamingIt) {
  PatternDef p = base_pattern("p", 2, {0, 1, 2, 1, 0, 1}, Mode::stream, Metric::dtw, 1.0);
  const std::vector<float> segment = {0, 1, 2, 1, 0, 1, 5, 5};  // 4 samples from index 10
  try {
    explain::explain(p, segment, 10, 12, 14);
    ADD_FAILURE() << "a range past the segment was explained";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "start_index/end_index: [12, 14] is not within the segment's samples [10, 14)");
  }
  try {
    explain::explain(p, std::span<const float>(segment).first(7), 10, 10, 11);
    ADD_FAILURE() << "a segment of half a sample was explained";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "segment: 7 values are not whole samples of 2");
  }
  p.params.mode = Mode::window;
  try {
    explain::explain(p, segment, 10, 10, 13);
    ADD_FAILURE() << "a range of another length than the window was explained";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "start_index/end_index: 4 samples, the pattern's window is 3");
  }
}

TEST(Explain, ToJsonHasKindStepsOperationsTotalAndNote) {
  PatternDef p = base_pattern("p", 1, {0, 2, 0}, Mode::stream, Metric::dtw, 10.0);
  const std::vector<float> segment = {9, 0, 2, 2, 0, 9};
  const auto e = explain::explain(p, segment, 40, 41, 44);
  const nlohmann::json j = explain::to_json(e);
  EXPECT_EQ(j.at("kind"), "path");
  // (41,1) (42,2) (43,2) (44,3): the segment repeats row 2 at no cost.
  EXPECT_EQ(j.at("steps"), nlohmann::json::parse("[[41,1,0.0],[42,2,0.0],[43,2,0.0],[44,3,0.0]]"));
  EXPECT_EQ(j.at("operations"), nlohmann::json::array());
  EXPECT_EQ(j.at("total"), 0.0);
  EXPECT_NE(j.at("note").get<std::string>().find("dtw's optimal path"), std::string::npos);
  PatternDef q = base_pattern("q", 1, {0, 2, 0}, Mode::window, Metric::erp, 10.0);
  const auto ops = explain::to_json(explain::explain(q, segment, 40, 41, 43));
  EXPECT_EQ(ops.at("kind"), "edit_operations");
  EXPECT_EQ(ops.at("operations").size(), ops.at("steps").size());
}

// A minimal XML well-formedness check: tags nest and close, attributes are quoted, text
// holds no raw '<' or '&' outside entities. Returns "" or what is wrong.
std::string xml_problem(const std::string& s) {
  std::vector<std::string> open;
  const std::regex tag(R"(<(/?)([A-Za-z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(/?)>)");
  std::size_t at = 0;
  while (at < s.size()) {
    const std::size_t lt = s.find('<', at);
    const std::string text = s.substr(at, lt == std::string::npos ? std::string::npos : lt - at);
    if (std::regex_search(text, std::regex(R"(&(?!amp;|lt;|gt;|quot;|apos;|#\d+;))")))
      return "a raw & in text at " + std::to_string(at);
    if (lt == std::string::npos) break;
    std::smatch m;
    const std::string rest = s.substr(lt);
    if (!std::regex_search(rest, m, tag, std::regex_constants::match_continuous))
      return "a malformed tag at " + std::to_string(lt) + ": " + rest.substr(0, 40);
    if (m[1] == "/") {
      if (open.empty() || open.back() != m[2]) return "a closing </" + m[2].str() + "> unopened";
      open.pop_back();
    } else if (m[4] != "/") {
      open.push_back(m[2]);
    }
    at = lt + static_cast<std::size_t>(m.length(0));
  }
  return open.empty() ? "" : "<" + open.back() + "> not closed";
}

std::size_t count_of(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + 1)) ++n;
  return n;
}

TEST(Explain, PlotSvgIsWellFormedWithOneLinePerStepAndTheTitleGiven) {
  std::mt19937_64 rng(test_seed());
  const auto pattern = random_values(rng, 16);
  const StreamData s = dense_stream(rng, pattern, 1, 4);
  for (const Metric metric : {Metric::dtw, Metric::lcss}) {
    PatternDef p = base_pattern("bump<1>", 1, pattern, Mode::window, metric, 1e30);
    p.params.normalize = Normalize::znorm;
    const auto events = backend_events(Backend::reference, s, p, rng);
    ASSERT_FALSE(events.empty());
    const RawMatch& ev = events.front();
    const auto e = explain::explain(p, s.values, 0, ev.start_index, ev.end_index);
    ASSERT_FALSE(e.steps.empty()) << e.note;
    const std::string svg =
        explain::plot_svg(e, p, s.values, 0, "s & bump", ev.distance, p.params.threshold);
    EXPECT_EQ(xml_problem(svg), "") << svg.substr(0, 400);
    EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
    EXPECT_EQ(count_of(svg, "<line class=\"segment\""), e.steps.size());
    EXPECT_EQ(count_of(svg, "<path "), 2u);  // the window and the pattern
    EXPECT_NE(svg.find("<title>s &amp; bump, distance "), std::string::npos);
    EXPECT_NE(svg.find(", threshold 1e+30</title>"), std::string::npos);
    EXPECT_NE(svg.find("pattern bump&lt;1&gt; (shifted down)"), std::string::npos);
  }
}

}  // namespace
