// The checks at load time (docs/configuration.md §4): every setting that cannot do anything
// is an error or a warning at its file:line:column, in load_daemon_config (the daemon's start
// and reload) and in `warpwatch check-config`.
#include <gtest/gtest.h>

#include <string>

#include "cli_test_support.hpp"
#include "config_error_support.hpp"
#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/plugins/registry.hpp"

using warpwatch::testing::ConfigErrorCase;
using warpwatch::testing::run_cli;
using warpwatch::testing::TempDir;

namespace {

// Lines 1-5; the pattern entry is line 6: `      - {id: p, values: [1, 2], ...` (the key
// after `values` at column 33).
#define PATTERNS                                                                                \
  "streams: {auto_create: true}\nlibraries:\n  - name: lib\n    defaults: {threshold: 1}\n    " \
  "patterns:\n"
// Lines 2-7: the library `cardiac` with the pattern `mi_beat`, then `rules:`; the rule is
// line 8: `  - {name: mi, ...` (its first key after the name at column 16).
#define CARDIAC                                                                  \
  "libraries:\n  - name: cardiac\n    defaults: {threshold: 1}\n    patterns:\n" \
  "      - {id: mi_beat, values: [1, 2]}\nrules:\n"

const ConfigErrorCase error_cases[] = {
    // thresholds that no distance of the measure can pass
    {"negative_threshold_dtw", PATTERNS "      - {id: p, values: [1, 2], threshold: -2.5}\n", 6, 44,
     "pattern 'p': threshold -2.5 can never be reached: dtw distances are >= 0"},
    {"negative_threshold_in_defaults",
     "streams: {auto_create: true}\nlibraries:\n  - name: lib\n    defaults: {threshold: -1}\n"
     "    patterns:\n      - {id: p, values: [1, 2]}\n",
     4, 27, "pattern 'p': threshold -1 can never be reached: dtw distances are >= 0"},
    {"negative_threshold_twed",
     PATTERNS "      - {id: p, values: [1, 2], metric: twed, mode: window, threshold: -1}\n", 6, 72,
     "pattern 'p': threshold -1 can never be reached: twed distances are >= 0"},
    {"lcss_threshold_above_1",
     PATTERNS "      - {id: p, values: [1, 2], metric: lcss, mode: window, threshold: 1.5}\n", 6,
     72,
     "pattern 'p': threshold 1.5 is beyond every distance the measure gives: lcss distances are "
     "in [0, 1] (a threshold of 1 already passes all)"},
    // parameters of window mode in stream mode
    {"band_in_stream_mode", PATTERNS "      - {id: p, values: [1, 2], band: 2}\n", 6, 33,
     "pattern 'p': 'band' does nothing in stream mode (SPRING has no Sakoe-Chiba band): it "
     "applies to mode window"},
    {"window_in_stream_mode", PATTERNS "      - {id: p, values: [1, 2], window: 4}\n", 6, 33,
     "pattern 'p': 'window' does nothing in stream mode: it applies to mode window"},
    {"hop_in_stream_mode", PATTERNS "      - {id: p, values: [1, 2], hop: 2}\n", 6, 33,
     "pattern 'p': 'hop' does nothing in stream mode"},
    {"znorm_in_stream_mode", PATTERNS "      - {id: p, values: [1, 2], znorm: true}\n", 6, 33,
     "pattern 'p': 'znorm' does nothing in stream mode"},
    {"band_in_defaults_of_stream_patterns",
     "streams: {auto_create: true}\nlibraries:\n  - name: lib\n    defaults: {threshold: 1, band: "
     "2}\n    patterns:\n      - {id: p, values: [1, 2]}\n",
     4, 30,
     "library 'lib': 'defaults.band' does nothing for any of its patterns: 'band' does nothing "
     "in stream mode"},
    // rules that select nothing
    {"rule_pattern_typo",
     "streams: {auto_create: true}\n" CARDIAC "  - {name: mi, patterns: [\"mi-beat\"]}\n", 8, 27,
     "rule 'mi': 'mi-beat' in 'patterns' matches no pattern id (did you mean 'mi_beat'?)"},
    {"rule_library_typo",
     "streams: {auto_create: true}\n" CARDIAC "  - {name: mi, libraries: [cardio]}\n", 8, 28,
     "rule 'mi': 'cardio' in 'libraries' matches no library name (did you mean 'cardiac'?)"},
    {"rule_stream_not_declared",
     "streams: {declared: [{id: ecg-1}]}\n" CARDIAC "  - {name: mi, streams: [ecg1]}\n", 8, 26,
     "rule 'mi': 'ecg1' in 'streams' matches no declared stream (did you mean 'ecg-1'?) and "
     "'streams.auto_create' is false"},
    {"rule_selects_no_pattern",
     "streams: {auto_create: true}\nlibraries:\n  - name: cardiac\n    defaults: {threshold: 1}\n"
     "    patterns:\n      - {id: mi_beat, values: [1, 2]}\n  - name: other\n"
     "    defaults: {threshold: 1}\n    patterns: [{id: x, values: [1, 2]}]\nrules:\n"
     "  - {name: mi, patterns: [mi_beat], libraries: [other]}\n",
     11, 5,
     "rule 'mi': selects no pattern: none of the patterns its 'patterns' match is in a library "
     "its 'libraries' match"},
    {"rule_threshold_negative",
     "streams: {auto_create: true}\n" CARDIAC "  - {name: mi, threshold: -1}\n", 8, 27,
     "rule 'mi': threshold -1 can never be reached by the patterns it selects: dtw distances are "
     ">= 0"},
};

class LoadCheckError : public ::testing::TestWithParam<ConfigErrorCase> {};

TEST_P(LoadCheckError, NamesFileLineColumn) {
  TempDir dir;
  warpwatch::testing::expect_config_error(dir.write("warpwatch.yaml", GetParam().yaml), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Cases, LoadCheckError, ::testing::ValuesIn(error_cases),
                         [](const auto& info) { return std::string(info.param.name); });

struct WarningCase {
  const char* name;
  const char* yaml;
  int line, column;
  const char* message;  // the whole message
};

const WarningCase warning_cases[] = {
    // a measure's parameter on another measure
    {"gamma_on_dtw", PATTERNS "      - {id: p, values: [1, 2], gamma: 0.5}\n", 6, 33,
     "pattern 'p': 'gamma' does nothing for the metric dtw: it is softdtw's parameter"},
    {"band_on_twed",
     PATTERNS "      - {id: p, values: [1, 2], metric: twed, mode: window, band: 2}\n", 6, 61,
     "pattern 'p': 'band' does nothing for the metric twed: no backend reads it (band applies to "
     "dtw, dk, softdtw and erp)"},
    {"cost_on_msm",
     PATTERNS "      - {id: p, values: [1, 2], metric: msm, mode: window, cost: abs}\n", 6, 60,
     "pattern 'p': 'cost' does nothing for the metric msm: it applies to dtw, dk, softdtw, ed and "
     "erp"},
    {"gamma_in_defaults_of_dtw_patterns",
     "streams: {auto_create: true}\nlibraries:\n  - name: lib\n    defaults: {threshold: 1, gamma: "
     "2}\n    patterns:\n      - {id: p, values: [1, 2]}\n",
     4, 30,
     "library 'lib': 'defaults.gamma' does nothing for any of its patterns: 'gamma' does nothing "
     "for the metric dtw: it is softdtw's parameter"},
    // what nothing selects or runs
    {"pattern_no_rule_selects",
     "streams: {auto_create: true}\nlibraries:\n  - name: cardiac\n    defaults: {threshold: 1}\n"
     "    patterns:\n      - {id: mi_beat, values: [1, 2]}\n      - {id: noise, values: [1, 2]}\n"
     "rules:\n  - {name: mi, patterns: [mi_beat]}\n",
     7, 14,
     "pattern 'noise' is selected by no rule: its matches will be counted but not published"},
    {"pattern_dims_no_declared_stream_has",
     "streams: {auto_create: true, auto_dims: 2, declared: [{id: a}]}\nlibraries:\n  - name: lib\n"
     "    defaults: {threshold: 1}\n    patterns:\n      - {id: p, values: [1, 2]}\n"
     "      - {id: q, values: [[1, 1], [2, 2]]}\n",
     7, 14,
     "pattern 'q' has 2 dims, which no declared stream has: only auto-created streams can run it "
     "(declared streams have dims 1; auto-created streams have dims 2)"},
    {"library_no_declared_stream",
     "streams: {auto_create: true, auto_dims: 2, declared: [{id: a}]}\nlibraries:\n  - name: lib\n"
     "    defaults: {threshold: 1}\n    patterns:\n      - {id: q, values: [[1, 1], [2, 2]]}\n",
     3, 5,
     "library 'lib' has no declared stream to run on: its patterns' dims are those of "
     "auto-created streams only (declared streams have dims 1; auto-created streams have dims 2)"},
    {"library_without_patterns", "libraries:\n  - name: lib\n", 2, 5,
     "library 'lib' has no patterns: it matches nothing"},
    {"rule_stream_not_declared_with_auto_create",
     "streams: {auto_create: true, declared: [{id: ecg-1}]}\n" CARDIAC
     "  - {name: mi, streams: [ecg1]}\n",
     8, 26,
     "rule 'mi': 'ecg1' in 'streams' matches no declared stream (did you mean 'ecg-1'?): only an "
     "auto-created stream ('streams.auto_create' is on) can match it"},
};

class LoadCheckWarning : public ::testing::TestWithParam<WarningCase> {};

// The configuration loads, with this one warning at its place.
TEST_P(LoadCheckWarning, NamesFileLineColumn) {
  const WarningCase& c = GetParam();
  TempDir dir;
  const std::string path = dir.write("warpwatch.yaml", c.yaml);
  const auto config = warpwatch::plugins::load_daemon_config(path);
  ASSERT_EQ(config.warnings.size(), 1u);
  const auto& w = config.warnings[0];
  EXPECT_EQ(w.where.file, path);
  EXPECT_EQ(w.where.line, c.line) << w.text();
  EXPECT_EQ(w.where.column, c.column) << w.text();
  EXPECT_EQ(w.message, c.message);
  EXPECT_EQ(w.text(), path + ":" + std::to_string(c.line) + ":" + std::to_string(c.column) +
                          ": warning: " + c.message);
}

INSTANTIATE_TEST_SUITE_P(Cases, LoadCheckWarning, ::testing::ValuesIn(warning_cases),
                         [](const auto& info) { return std::string(info.param.name); });

// A library's `defaults` serve all its patterns: a key that one of them reads is no mistake,
// nor is a stream glob when every stream is auto-created.
TEST(LoadChecks, DefaultsThatSomePatternReadsAreQuiet) {
  TempDir dir;
  const std::string path = dir.write(
      "warpwatch.yaml",
      "streams: {auto_create: true}\nlibraries:\n  - name: lib\n"
      "    defaults: {threshold: 1, mode: window, gamma: 0.5, band: 2, cost: abs, hop: 2}\n"
      "    patterns:\n      - {id: p, values: [1, 2]}\n"
      "      - {id: q, values: [1, 2], metric: softdtw, threshold: -3}\n"
      "      - {id: s, values: [1, 2], mode: stream}\n"
      "rules:\n  - {name: r, streams: [\"ecg-*\"]}\n");
  const auto config = warpwatch::plugins::load_daemon_config(path);
  for (const auto& w : config.warnings) ADD_FAILURE() << w.text();
}

TEST(LoadChecks, TheExamplesHaveNoWarnings) {
  for (const char* name : {"example.yaml", "warpwatch.yaml", "demo.yaml"}) {
    const auto config = warpwatch::plugins::load_daemon_config(std::string(WARPWATCH_SOURCE_DIR) +
                                                               "/config/examples/" + name);
    for (const auto& w : config.warnings) ADD_FAILURE() << w.text();
  }
}

// check-config prints the warnings and exits 0; an error exits 1.
TEST(CheckConfig, WarningsArePrintedAndExit0) {
  TempDir dir;
  const std::string path = dir.write("warpwatch.yaml", warning_cases[4].yaml);
  const auto r = run_cli({"check-config", path});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, path +
                       ":7:14: warning: pattern 'noise' is selected by no rule: its matches will "
                       "be counted but not published\n");
  EXPECT_NE(r.out.find(path + ": OK, 1 warning(s)\n"), std::string::npos) << r.out;
}

TEST(CheckConfig, ASelectorThatMatchesNothingExits1) {
  TempDir dir;
  const std::string path = dir.write("warpwatch.yaml", error_cases[9].yaml);
  const auto r = run_cli({"check-config", path});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, path +
                       ":8:27: rule 'mi': 'mi-beat' in 'patterns' matches no pattern id (did you "
                       "mean 'mi_beat'?)\n");
  EXPECT_EQ(r.out, "");
}

}  // namespace
