// `warpwatch learn --report`: one self-contained HTML page per learnt library (daemon/report/).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "learn_output.hpp"

namespace warpwatch::cli {

// What the page shows of one pattern.
struct PatternReport {
  std::string id;
  std::vector<learn::Series> examples;  // as the template was built from them
  learn::Series tmpl;
  learn::MatchSettings settings;
  std::vector<double> positive_scores;  // held out
  std::vector<double> negative_best;    // each negative series' best match
  std::vector<learn::ThresholdRow> table;
  std::size_t chosen = 0;
  std::vector<std::string> why;
};

void write_learn_report(const std::filesystem::path& path, const std::string& title,
                        const std::vector<std::string>& header,
                        const std::vector<PatternReport>& patterns);

}  // namespace warpwatch::cli
