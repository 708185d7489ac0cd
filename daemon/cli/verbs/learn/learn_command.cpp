// `warpwatch learn`: examples in, a library entry out (docs/spec.md §8, docs/cli.md §4.3).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <ostream>
#include <stdexcept>

#include "commands.hpp"
#include "learn_inputs.hpp"
#include "learn_output.hpp"
#include "learn_report.hpp"
#include "warpwatch/config/series_file.hpp"
#include "warpwatch/learn/settings.hpp"

namespace warpwatch::cli {
namespace {

namespace fs = std::filesystem;

std::string num(double v, int digits = 4) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::string today() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M UTC", &tm);
  return buf;
}

// A class label as a pattern id's suffix: whole numbers as plain integers ("-1.0e+00" -> -1).
std::string label_text(const std::string& label) {
  if (config::is_whole_number(label))
    if (const auto v = config::parse_time_text(label)) return num(*v, 17);
  return label;
}

std::string row_text(const learn::ThresholdRow& r) {
  return "threshold " + num(r.threshold, 6) + ": recall " + num(r.recall, 3) + " (" +
         std::to_string(r.found) + " found), precision " + num(r.precision, 3) + ", false alarms " +
         std::to_string(r.false_alarms) + " (" + num(r.false_per_hour, 3) + "/h), F1 " +
         num(r.f1, 3);
}

void print_table(const std::vector<learn::ThresholdRow>& table, std::size_t chosen,
                 std::ostream& err) {
  err << "  threshold     recall  precision  false_alarms  per_hour  F1\n";
  for (std::size_t r = 0; r < table.size(); ++r) {
    const auto& row = table[r];
    char line[160];
    std::snprintf(line, sizeof line, "%s %-12.6g  %-6.3f  %-9.3f  %-12zu  %-8.3g  %.3f\n",
                  r == chosen ? "*" : " ", row.threshold, row.recall, row.precision,
                  row.false_alarms, row.false_per_hour, row.f1);
    err << line;
  }
}

// The band that lets every example align with the template (|ratio| <= 2 band + 1,
// docs/spec.md §3.2's band over lengths n and m), or an error naming the example.
void check_band(const LearnInputs& in, const LearnClass& c, std::size_t m,
                const learn::MatchSettings& s) {
  if (!s.band || s.mode != kernels::Mode::window) return;
  for (std::size_t i = 0; i < c.examples.size(); ++i) {
    const double n = static_cast<double>(c.examples[i].length());
    const double ratio = std::max(n / m, m / n);
    if (ratio > 2 * *s.band + 1)
      throw std::runtime_error(
          in.positives_file + ": positive " + c.names[i] + " has " + num(n) +
          " samples, the template " + std::to_string(m) + ": too different for band " +
          num(*s.band) + " (no alignment fits); give --band " + num(std::ceil((ratio - 1) / 2)) +
          " or more, or cut the examples to similar lengths");
  }
}

LearntPattern learn_class(const LearnCommand& cmd, const LearnInputs& in, const LearnClass& c,
                          std::vector<learn::Negative> negatives, const std::string& id,
                          const std::optional<learn::MatchSettings>& shared,
                          std::vector<std::string>& header, PatternReport* page,
                          std::ostream& err) {
  const auto kind = learn::parse_template_kind(cmd.template_kind);
  learn::TemplateOptions options;
  options.kind = *kind;
  options.gamma = cmd.gamma;
  options.backend = cmd.backend;
  learn::Given given;
  if (cmd.mode != "auto") given.mode = kernels::parse_mode(cmd.mode);
  if (cmd.znorm != "auto") given.znorm = cmd.znorm == "on";
  given.band = cmd.band;
  if (shared) {
    given = {shared->mode, shared->znorm, shared->band, true};
    err << "  settings: the first class's (several classes share them, so that their distances "
           "over their thresholds compare)\n";
  }
  if (given.mode && *given.mode == kernels::Mode::stream &&
      (given.znorm.value_or(false) || cmd.band))
    throw std::runtime_error("--mode stream has no --znorm on or --band (window mode only)");
  err << "pattern '" << id << "': " << c.examples.size() << " positive(s), " << negatives.size()
      << " negative series\n";
  const std::size_t medoid_len = c.examples[learn::medoid(c.examples, cmd.band)].length();
  if (cmd.band) {
    learn::MatchSettings probe{kernels::Mode::window, false, cmd.band};
    check_band(in, c, medoid_len, probe);
  }
  const std::size_t folds = std::min(cmd.folds, c.examples.size());
  const auto choice = learn::choose_settings(c.examples, negatives, options, given,
                                             std::min<std::size_t>(folds, 5));
  const learn::MatchSettings& s = choice.settings;
  check_band(in, c, medoid_len, s);
  options.band = s.band;
  const auto examples = learn::prepared(c.examples, s);
  const auto built = learn::build_template(examples, options);
  const std::size_t m = built.series.length();
  const std::string length_why =
      "length: " + std::to_string(m) + " — the medoid's (example " + c.names[built.medoid] + ")";
  std::string objective =
      "template: " + cmd.template_kind + ", " + std::to_string(built.objective.size() - 1) +
      " iteration(s), summed " +
      (options.kind == learn::TemplateKind::softdtw ? "soft-DTW divergence " : "dtw ") +
      num(built.objective.front(), 6) + " -> " + num(built.objective.back(), 6);
  for (const auto& line : {length_why, objective}) {
    err << "  " << line << "\n";
    header.push_back(id + ": " + line);
  }
  for (const auto& line : choice.why) {
    err << "  " << line << "\n";
    header.push_back(id + ": " + line);
  }
  for (std::size_t i = 0; i < negatives.size(); ++i)
    if (negatives[i].series.length() < m)
      throw std::runtime_error(
          (i < in.negative_files.size() ? in.negative_files[i] : in.positives_file) +
          ": negative " + negatives[i].name + " has " +
          std::to_string(negatives[i].series.length()) + " samples, fewer than the template's " +
          std::to_string(m) + ": give negatives at least as long as the positives");
  const auto scores = learn::held_out_scores(examples, options, s, folds);
  const auto thresholds = learn::candidate_thresholds(scores);
  const auto table = learn::threshold_table(
      built.series, scores, negatives, s, thresholds,
      cmd.backend == kernels::Backend::automatic ? kernels::Backend::cpu : cmd.backend);
  learn::Target target{cmd.target_recall, cmd.max_false_per_hour};
  learn::Choice chosen;
  try {
    chosen = learn::choose_threshold(table, target, !negatives.empty());
  } catch (const std::exception& e) {
    throw std::runtime_error(in.positives_file + ": " + e.what());
  }
  err << "  scores: positives held out in " << folds << " fold(s)"
      << (folds == c.examples.size() ? " (leave-one-out)" : "") << "\n";
  print_table(table, chosen.row, err);
  err << "  threshold: " << num(table[chosen.row].threshold, 6) << " — " << chosen.why << "\n";
  if (page) {
    *page = {id, examples, built.series, s, scores, {}, table, chosen.row, choice.why};
    for (const auto& n : negatives)
      page->negative_best.push_back(learn::best_match(built.series, n, s));
  }
  header.push_back(id + ": " + row_text(table[chosen.row]));
  header.push_back(id + ": chosen by " + chosen.why);
  return {id, built.series, s, table[chosen.row].threshold};
}

}  // namespace

CLI::App* add_learn_command(CLI::App& app, LearnCommand& cmd) {
  auto* sub = app.add_subcommand(
      "learn",
      "learn a library entry from examples: a template (medoid, DBA, soft-DTW barycenter), "
      "its mode and a threshold calibrated on held-out positives and negatives");
  sub->add_option("--positives", cmd.positives_path,
                  "positive examples: a series file or folder (UCR rows: pick the class with "
                  "--label)");
  sub->add_option("--label", cmd.labels,
                  "the positives' class label (repeat for several classes, one pattern each; "
                  "`all`: every label)");
  sub->add_option("--from", cmd.from_path, "a recording to cut the positives from");
  sub->add_option("--segments", cmd.segments,
                  "--from: START:END,... sample indices [START, END), or times when the file "
                  "has a time column");
  sub->add_option("--segments-csv", cmd.segments_csv,
                  "--from: a CSV of start,end[,label] rows (as --segments)");
  sub->add_option("--negatives", cmd.negatives_paths,
                  "series or recordings where any event is a false alarm (repeatable)");
  sub->add_option("--negative-label", cmd.negative_labels,
                  "only the rows of --negatives with this label (repeatable)");
  sub->add_option("--template", cmd.template_kind, "medoid | dba | softdtw")
      ->check(CLI::IsMember({"medoid", "dba", "softdtw"}))
      ->capture_default_str();
  sub->add_option("--mode", cmd.mode, "stream | window | auto (picked on the training data)")
      ->check(CLI::IsMember({"stream", "window", "auto"}))
      ->capture_default_str();
  sub->add_option("--znorm", cmd.znorm, "on | off | auto (window mode)")
      ->check(CLI::IsMember({"on", "off", "auto"}))
      ->capture_default_str();
  sub->add_option("--band", cmd.band, "window mode: Sakoe-Chiba radius (default: picked)")
      ->check(CLI::NonNegativeNumber);
  auto* recall = sub->add_option("--target-recall", cmd.target_recall,
                                 "the smallest threshold with at least this recall")
                     ->check(CLI::Range(0.0, 1.0));
  sub->add_option("--max-false-per-hour", cmd.max_false_per_hour,
                  "the largest threshold with at most this many false alarms per hour")
      ->check(CLI::NonNegativeNumber)
      ->excludes(recall);
  sub->add_option("--folds", cmd.folds,
                  "positives held out in this many folds (at most one per positive: "
                  "leave-one-out)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  sub->add_option("--gamma", cmd.gamma, "softdtw template: smoothing")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  sub->add_option("--period", cmd.period_s,
                  "seconds between samples of series without timestamps (false alarms per "
                  "hour)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  sub->add_option("--out", cmd.out_path, "the library YAML to write (patterns beside it)")
      ->required();
  sub->add_option("--name", cmd.name, "the library's name (default: --out's stem)");
  sub->add_option("--report", cmd.report_path,
                  "also write a self-contained HTML page: the template over the aligned "
                  "positives, the distance distributions, precision/recall, false alarms");
  add_backend_option(*sub, cmd.backend);
  add_series_input_options(*sub, cmd.input);
  return sub;
}

int run_learn(const LearnCommand& cmd, std::ostream& out, std::ostream& err) {
  const auto started = std::chrono::steady_clock::now();
  const fs::path out_path(cmd.out_path);
  const std::string name = cmd.name.empty() ? out_path.stem().string() : cmd.name;
  if (name.empty()) throw std::runtime_error("--out " + cmd.out_path + ": no file name");
  const LearnInputs in = read_learn_inputs(cmd, err);
  LearntLibrary library;
  library.name = name;
  library.dims = in.dims;
  library.exclusive = in.classes.size() > 1 || (cmd.labels.size() == 1 && cmd.labels[0] == "all");
  std::string command;
  for (const auto& a : cmd.argv) command += (command.empty() ? "" : " ") + a;
  std::size_t positives = 0;
  for (const auto& c : in.classes) positives += c.examples.size();
  double hours = 0.0;
  for (const auto& n : in.negatives) hours += n.hours();
  std::vector<std::string> body;
  std::vector<PatternReport> pages;
  for (std::size_t k = 0; k < in.classes.size(); ++k) {
    const auto& c = in.classes[k];
    // Several classes: the other classes' examples are this one's negatives too.
    std::vector<learn::Negative> negatives = in.negatives;
    for (std::size_t o = 0; o < in.classes.size(); ++o)
      if (o != k)
        for (std::size_t i = 0; i < in.classes[o].examples.size(); ++i)
          negatives.push_back(
              as_negative(in.classes[o].names[i], in.classes[o].examples[i], {}, cmd.period_s));
    const std::string id =
        in.classes.size() == 1 && !library.exclusive ? name : name + "." + label_text(c.label);
    // Several classes share the first class's settings, so that their distances over their
    // thresholds compare (the nearest template, docs/spec.md §5.1).
    const std::optional<learn::MatchSettings> shared =
        library.patterns.empty() ? std::nullopt : std::optional(library.patterns.front().settings);
    PatternReport page;
    library.patterns.push_back(learn_class(cmd, in, c, std::move(negatives), id, shared, body,
                                           cmd.report_path.empty() ? nullptr : &page, err));
    if (!cmd.report_path.empty()) pages.push_back(std::move(page));
  }
  library.header = {
      "Learnt by `warpwatch learn` on " + today() + ".", "command: " + command,
      "positives: " + in.positives_file + " (" + std::to_string(positives) + " example(s), " +
          std::to_string(in.classes.size()) + " class(es))",
      "negatives: " + std::to_string(in.negatives.size()) + " series, " + num(hours, 4) + " h"};
  library.header.insert(library.header.end(), body.begin(), body.end());
  const auto files = write_library(library, out_path);
  for (const auto& f : files) err << "wrote " << f.string() << "\n";
  err << "wrote " << out_path.string() << " (check it: warpwatch check-config " << out_path.string()
      << ")\n";
  if (!cmd.report_path.empty()) {
    write_learn_report(cmd.report_path, "warpwatch learn: " + name, library.header, pages);
    err << "wrote " << cmd.report_path << "\n";
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  err << "learnt in " << num(seconds, 3) << " s\n";
  out << out_path.string() << "\n";
  return 0;
}

}  // namespace warpwatch::cli
