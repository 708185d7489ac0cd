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
#include "warpwatch/learn/fit.hpp"
#include "warpwatch/learn/joint.hpp"

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

// Where the time goes (printed on stderr at the end: the timing target's profile).
struct Phases {
  double settings = 0, templates = 0, held_out = 0, tables = 0, joint = 0, output = 0;
  using clock = std::chrono::steady_clock;
  static double since(clock::time_point t) {
    return std::chrono::duration<double>(clock::now() - t).count();
  }
};

// What the joint calibration of several classes reads of each class (learn::ClassColumn).
struct ClassFit {
  learn::Series tmpl;
  learn::MatchSettings settings;
  std::vector<double> scores, thresholds;
  std::vector<learn::ThresholdRow> background;  // the table over the background negatives
};

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
                          std::vector<std::string>& header, PatternReport* page, Phases& phases,
                          ClassFit* fit, std::ostream& err) {
  const auto kind = learn::parse_template_kind(cmd.template_kind);
  learn::TemplateOptions options;
  options.kind = *kind;
  options.gamma = cmd.gamma;
  options.backend = cmd.backend;
  learn::Given given;
  if (cmd.mode != "auto") given.mode = kernels::parse_mode(cmd.mode);
  if (cmd.znorm != "auto") given.znorm = cmd.znorm == "on";
  given.band = cmd.band;
  if (given.mode && *given.mode == kernels::Mode::stream &&
      (given.znorm.value_or(false) || cmd.band))
    throw std::runtime_error("--mode stream has no --znorm on or --band (window mode only)");
  std::size_t negative_samples = 0;
  for (const auto& n : negatives) negative_samples += n.series.length();
  err << "pattern '" << id << "': " << c.examples.size() << " positive(s), " << negatives.size()
      << " negative recording(s) of " << negative_samples << " samples\n";
  if (!negatives.empty() && negatives.size() <= 3)
    for (const auto& n : negatives) err << "  negatives: " << n.name << "\n";
  const std::size_t medoid_len = c.examples[learn::medoid(c.examples, cmd.band)].length();
  if (cmd.band) {
    const auto probe = learn::MatchSettings::window(false, cmd.band);
    check_band(in, c, medoid_len, probe);
  }
  const std::size_t folds = std::min(cmd.folds, c.examples.size());
  learn::FitOptions o;
  o.options = options;
  o.given = given;
  o.settings = shared;  // several classes: the first class's (run_learn), not chosen again
  o.folds = folds;
  o.target = {cmd.target_recall, cmd.max_false_per_hour};
  o.backend = cmd.backend == kernels::Backend::automatic ? kernels::Backend::cpu : cmd.backend;
  std::vector<std::string> why;  // the settings' reasons
  auto t = Phases::clock::now();
  o.after_phase = [&](learn::Phase phase, const learn::Fit& f) {
    switch (phase) {
      case learn::Phase::settings:
        phases.settings += Phases::since(t);
        why = f.choice.why;
        if (shared)
          why = {"settings: the first class's, " + learn::describe_measure(*shared) +
                 " (several classes share them, so that their distances over their "
                 "thresholds compare)"};
        check_band(in, c, medoid_len, f.choice.settings);
        break;
      case learn::Phase::templates: {
        phases.templates += Phases::since(t);
        const auto& built = f.built;
        const std::size_t m = built.series.length();
        const std::string length_why = "length: " + std::to_string(m) +
                                       " — the medoid's (example " + c.names[built.medoid] + ")";
        std::string objective =
            "template: " + cmd.template_kind + ", " + std::to_string(built.objective.size() - 1) +
            " iteration(s), summed " +
            (options.kind == learn::TemplateKind::softdtw ? "soft-DTW divergence " : "dtw ") +
            num(built.objective.front(), 6) + " -> " + num(built.objective.back(), 6);
        for (const auto& line : {length_why, objective}) {
          err << "  " << line << "\n";
          header.push_back(id + ": " + line);
        }
        for (const auto& line : why) {
          err << "  " << line << "\n";
          header.push_back(id + ": " + line);
        }
        for (std::size_t i = 0; i < negatives.size(); ++i)
          if (negatives[i].series.length() < m)
            throw std::runtime_error(
                (i < in.negative_files.size() ? in.negative_files[i] : in.positives_file) +
                ": negative " + negatives[i].name + " has " +
                std::to_string(negatives[i].series.length()) +
                " samples, fewer than the template's " + std::to_string(m) +
                ": give negatives at least as long as the positives");
        break;
      }
      case learn::Phase::held_out:
        phases.held_out += Phases::since(t);
        break;
      case learn::Phase::table:
        if (fit) {
          *fit = {f.built.series, f.choice.settings, f.scores, f.thresholds, {}};
          fit->background = learn::threshold_table(f.built.series, f.scores, in.negatives,
                                                   f.choice.settings, f.thresholds, o.backend);
        }
        phases.tables += Phases::since(t);
        break;
    }
    t = Phases::clock::now();
  };
  learn::Fit f;
  try {
    f = learn::fit_pattern(c.examples, negatives, o);
  } catch (const learn::NoThreshold& e) {
    throw std::runtime_error(in.positives_file + ": " + e.what());
  }
  const learn::MatchSettings& s = f.choice.settings;
  const auto& table = f.table;
  const auto& chosen = f.chosen;
  err << "  scores: positives held out in " << folds << " fold(s)"
      << (folds == c.examples.size() ? " (leave-one-out)" : "") << "\n";
  print_table(table, chosen.row, err);
  err << "  threshold: " << num(table[chosen.row].threshold, 6) << " — " << chosen.why << "\n";
  if (page) {
    *page = {id, std::move(f.prepared), f.built.series, s, f.scores, {}, table, chosen.row, why};
    for (const auto& n : negatives)
      for (const double d : learn::best_match_per_series(f.built.series, n, s))
        page->negative_best.push_back(d);
  }
  header.push_back(id + ": " + row_text(table[chosen.row]));
  header.push_back(id + ": chosen by " + chosen.why);
  return {id, f.built.series, s, f.threshold()};
}

// docs/spec.md §8, several classes: each class's template against every training series
// (its own held out), the nearest-template decision's table, the thresholds that maximize
// the mean F1 over the classes (learn::choose_jointly), printed and put in the library.
void calibrate_jointly(const LearnInputs& in, const std::vector<ClassFit>& fits,
                       LearntLibrary& library, std::vector<PatternReport>& pages,
                       std::vector<std::string>& header, std::ostream& err) {
  std::vector<std::size_t> label_of;
  std::vector<learn::Series> series;
  for (std::size_t k = 0; k < in.classes.size(); ++k)
    for (const auto& e : in.classes[k].examples) {
      label_of.push_back(k);
      series.push_back(e);
    }
  std::vector<learn::ClassColumn> columns(fits.size());
  for (std::size_t k = 0; k < fits.size(); ++k) {
    auto& col = columns[k];
    col.thresholds = fits[k].thresholds;
    for (const auto& row : fits[k].background) col.background_false.push_back(row.false_alarms);
    const auto prepared = learn::prepared(series, fits[k].settings);
    std::size_t own = 0;
    for (std::size_t i = 0; i < series.size(); ++i)
      col.distances.push_back(label_of[i] == k
                                  ? fits[k].scores[own++]
                                  : learn::score(fits[k].tmpl, prepared[i], fits[k].settings));
  }
  const auto choice = learn::choose_jointly(columns, label_of);
  err << "joint calibration (the nearest template on the " << series.size()
      << " training series, each class's own held out: the thresholds of the best mean F1 "
      << num(choice.mean_f1, 3) << ", " << choice.rounds << " round(s)):\n";
  for (std::size_t k = 0; k < fits.size(); ++k) {
    const auto& r = choice.classes[k];
    auto& p = library.patterns[k];
    p.threshold = columns[k].thresholds[r.row];
    std::string line = "threshold " + num(p.threshold, 6) + " (jointly): recall " +
                       num(r.recall, 3) + " (" + std::to_string(r.found) + " found), precision " +
                       num(r.precision, 3) + ", false alarms " + std::to_string(r.wrong) + ", F1 " +
                       num(r.f1, 3);
    err << "  " << p.id << ": " << line << "\n";
    header.push_back(p.id + ": " + line +
                     " — chosen with the other classes' on the nearest-template decision "
                     "(replaces the row above)");
    if (k < pages.size()) pages[k].chosen = r.row;
  }
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
  sub->add_flag("--negatives-apart", cmd.negatives_apart,
                "score each negative series without timestamps on its own (default: a file's "
                "such series laid end to end, as a stream carries them)");
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
  Phases phases;
  // Several classes under the nearest template: their thresholds chosen together.
  // (A target given picks each class's row of its own table instead.)
  const bool joint =
      library.exclusive && in.classes.size() > 1 && !cmd.target_recall && !cmd.max_false_per_hour;
  std::vector<ClassFit> fits;
  for (std::size_t k = 0; k < in.classes.size(); ++k) {
    const auto& c = in.classes[k];
    // Several classes: the other classes' examples are this one's negatives too.
    // Laid end to end by class, as --negatives are (unless --negatives-apart).
    std::vector<learn::Negative> negatives = in.negatives;
    for (std::size_t o = 0; o < in.classes.size(); ++o) {
      if (o == k) continue;
      const auto& other = in.classes[o];
      if (cmd.negatives_apart)
        for (std::size_t i = 0; i < other.examples.size(); ++i)
          negatives.push_back(as_negative(other.names[i], other.examples[i], {}, cmd.period_s));
      else
        negatives.push_back(end_to_end(other.examples, other.names, cmd.period_s));
    }
    const std::string id =
        in.classes.size() == 1 && !library.exclusive ? name : name + "." + label_text(c.label);
    // Several classes share the first class's settings, so that their distances over their
    // thresholds compare (the nearest template, docs/spec.md §5.1).
    const std::optional<learn::MatchSettings> shared =
        library.patterns.empty() ? std::nullopt : std::optional(library.patterns.front().settings);
    PatternReport page;
    fits.emplace_back();
    library.patterns.push_back(learn_class(cmd, in, c, std::move(negatives), id, shared, body,
                                           cmd.report_path.empty() ? nullptr : &page, phases,
                                           joint ? &fits.back() : nullptr, err));
    if (!cmd.report_path.empty()) pages.push_back(std::move(page));
  }
  if (joint) {
    const auto t = Phases::clock::now();
    calibrate_jointly(in, fits, library, pages, body, err);
    phases.joint += Phases::since(t);
  }
  library.header = {"Learnt by `warpwatch learn` on " + today() + ".", "command: " + command,
                    "positives: " + in.positives_file + " (" + std::to_string(positives) +
                        " example(s), " + std::to_string(in.classes.size()) + " class(es))",
                    "negatives: " + std::to_string(in.negatives.size()) + " recording(s), " +
                        num(hours, 4) + " h"};
  library.header.insert(library.header.end(), body.begin(), body.end());
  auto t = Phases::clock::now();
  const auto files = write_library(library, out_path);
  for (const auto& f : files) err << "wrote " << f.string() << "\n";
  err << "wrote " << out_path.string() << " (check it: warpwatch check-config " << out_path.string()
      << ")\n";
  if (!cmd.report_path.empty()) {
    write_learn_report(cmd.report_path, "warpwatch learn: " + name, library.header, pages);
    err << "wrote " << cmd.report_path << "\n";
  }
  phases.output += Phases::since(t);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  err << "learnt in " << num(seconds, 3) << " s (settings compared " << num(phases.settings, 3)
      << " s, templates " << num(phases.templates, 3) << " s, held-out scores "
      << num(phases.held_out, 3) << " s, threshold tables " << num(phases.tables, 3) << " s"
      << (joint ? ", joint calibration " + num(phases.joint, 3) + " s" : std::string())
      << ", output " << num(phases.output, 3) << " s)\n";
  out << out_path.string() << "\n";
  return 0;
}

}  // namespace warpwatch::cli
