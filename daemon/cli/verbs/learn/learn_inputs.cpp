// `warpwatch learn`'s inputs.
#include "learn_inputs.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "warpwatch/config/series_file.hpp"

namespace warpwatch::cli {
namespace {

learn::Series series_of(const config::LoadedSeries& s) {
  return {s.values, s.dims};
}

std::string list_labels(const std::vector<config::LoadedSeries>& series) {
  std::vector<std::string> labels;
  for (const auto& s : series)
    if (std::none_of(labels.begin(), labels.end(),
                     [&](const std::string& l) { return same_label(l, s.label); }))
      labels.push_back(s.label);
  std::string out;
  for (const auto& l : labels) out += (out.empty() ? "" : ", ") + l;
  return out.empty() ? "none (the file has no label column)" : out;
}

// START:END pairs, as sample indices [start, end) or, when the recording has times, as times
// the time column writes (a sample belongs when start <= t < end).
std::vector<std::pair<std::string, std::string>> parse_segments(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    const auto colon = item.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == item.size())
      throw std::runtime_error("--segments: '" + item + "' is not START:END");
    out.emplace_back(item.substr(0, colon), item.substr(colon + 1));
  }
  return out;
}

struct Segment {
  std::string start, end, label;
};

std::vector<Segment> read_segments_csv(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open the segments file");
  std::vector<Segment> out;
  int line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    std::vector<std::string> fields;
    std::istringstream row(line);
    for (std::string f; std::getline(row, f, ',');) fields.push_back(f);
    if (fields.size() < 2 || fields.size() > 3)
      throw std::runtime_error(path + ":" + std::to_string(line_no) +
                               ": a segment is start,end[,label]");
    if (line_no == 1 && !config::parse_time_text(fields[0])) continue;  // a header
    out.push_back({fields[0], fields[1], fields.size() == 3 ? fields[2] : ""});
  }
  return out;
}

std::size_t segment_index(const config::LoadedSeries& s, const std::string& text,
                          const std::string& what, double scale) {
  const auto v = config::parse_time_text(text, s.times.empty() ? 1.0 : scale);
  if (!v) throw std::runtime_error(what + ": '" + text + "' is not a number or a time");
  if (s.times.empty()) {
    if (*v < 0 || *v != std::floor(*v))
      throw std::runtime_error(what + ": '" + text +
                               "' is not a sample index (the file has no time column)");
    return static_cast<std::size_t>(*v);
  }
  return first_sample_at(s, *v);
}

// Positives cut from the recording at --from.
std::vector<LearnClass> cut_positives(const LearnCommand& cmd, std::ostream& err) {
  const auto series = load_series_for_cli(cmd.from_path, cmd.input, err);
  if (series.size() != 1)
    throw std::runtime_error(cmd.from_path + " holds " + std::to_string(series.size()) +
                             " series: --from needs one recording (--layout columns reads a "
                             "file as one series)");
  const auto& rec = series.front();
  const double scale = series_file_options(cmd.input).time_scale;
  std::vector<Segment> segments;
  if (!cmd.segments.empty())
    for (const auto& [a, b] : parse_segments(cmd.segments)) segments.push_back({a, b, ""});
  if (!cmd.segments_csv.empty()) {
    auto more = read_segments_csv(cmd.segments_csv);
    segments.insert(segments.end(), more.begin(), more.end());
  }
  if (segments.empty())
    throw std::runtime_error("--from " + cmd.from_path +
                             " needs --segments START:END,... or --segments-csv FILE");
  std::vector<LearnClass> classes;
  for (const auto& seg : segments) {
    const std::size_t begin = segment_index(rec, seg.start, "segment start", scale);
    const std::size_t end = segment_index(rec, seg.end, "segment end", scale);
    if (end > rec.length() || end < begin + 2)
      throw std::runtime_error(cmd.from_path + ": segment " + seg.start + ":" + seg.end +
                               " selects samples [" + std::to_string(begin) + ", " +
                               std::to_string(end) + ") of " + std::to_string(rec.length()) +
                               ": a positive needs at least 2 samples inside the recording");
    auto it = std::find_if(classes.begin(), classes.end(),
                           [&](const LearnClass& c) { return same_label(c.label, seg.label); });
    if (it == classes.end()) it = classes.insert(classes.end(), LearnClass{seg.label, {}, {}});
    it->examples.push_back(series_of(config::slice_series(rec, begin, end)));
    it->names.push_back(rec.name + "[" + std::to_string(begin) + ":" + std::to_string(end) + "]");
  }
  return classes;
}

// The rows of `series` whose label is one of `labels` (`all`: every label), by class.
std::vector<LearnClass> by_label(const std::vector<config::LoadedSeries>& series,
                                 const std::vector<std::string>& labels, const std::string& file) {
  std::vector<LearnClass> classes;
  const bool all = labels.size() == 1 && labels.front() == "all";
  if (labels.empty()) {
    classes.push_back({"", {}, {}});
    for (const auto& s : series) {
      classes.back().examples.push_back(series_of(s));
      classes.back().names.push_back(s.name);
    }
    return classes;
  }
  for (const auto& s : series) {
    const bool wanted = all || std::any_of(labels.begin(), labels.end(),
                                           [&](const auto& l) { return same_label(l, s.label); });
    if (!wanted) continue;
    auto it = std::find_if(classes.begin(), classes.end(),
                           [&](const LearnClass& c) { return same_label(c.label, s.label); });
    if (it == classes.end()) it = classes.insert(classes.end(), LearnClass{s.label, {}, {}});
    it->examples.push_back(series_of(s));
    it->names.push_back(s.name);
  }
  // The classes in the order the labels were given (the first one's settings are shared).
  const auto rank = [&](const LearnClass& c) {
    return std::find_if(labels.begin(), labels.end(),
                        [&](const auto& l) { return same_label(l, c.label); }) -
           labels.begin();
  };
  if (!all)
    std::stable_sort(classes.begin(), classes.end(),
                     [&](const auto& a, const auto& b) { return rank(a) < rank(b); });
  if (!all)
    for (const auto& l : labels)
      if (std::none_of(classes.begin(), classes.end(),
                       [&](const LearnClass& c) { return same_label(c.label, l); }))
        throw std::runtime_error(file + ": no series has label '" + l + "'; the labels there: " +
                                 list_labels(series) + " (give one of them with --label)");
  return classes;
}

}  // namespace

bool same_label(const std::string& a, const std::string& b) {
  if (a == b) return true;
  if (!config::is_whole_number(a) || !config::is_whole_number(b)) return false;
  return config::parse_time_text(a) == config::parse_time_text(b);
}

learn::Negative as_negative(const std::string& name, const learn::Series& s,
                            const std::vector<double>& times_s, double period_s) {
  learn::Negative n{name, s, {}, {}};
  const std::size_t len = s.length();
  n.times_ns.resize(len);
  const auto period_ns = std::max<std::int64_t>(1, std::llround(period_s * 1e9));
  for (std::size_t i = 0; i < len; ++i)
    n.times_ns[i] =
        times_s.empty() ? static_cast<std::int64_t>(i) * period_ns : std::llround(times_s[i] * 1e9);
  return n;
}

learn::Negative end_to_end(std::span<const learn::Series> series,
                           std::span<const std::string> names, double period_s) {
  learn::Series all;
  all.dims = series.front().dims;
  std::vector<std::size_t> joins;
  for (const auto& s : series) {
    if (!all.values.empty()) joins.push_back(all.length());
    all.values.insert(all.values.end(), s.values.begin(), s.values.end());
  }
  std::string name = names.front();
  if (series.size() > 1)
    name += " .. " + names.back() + " (" + std::to_string(series.size()) + " series end to end)";
  auto n = as_negative(name, all, {}, period_s);
  n.joins = std::move(joins);
  return n;
}

LearnInputs read_learn_inputs(const LearnCommand& cmd, std::ostream& err) {
  LearnInputs in;
  // The positives' file as read, for negatives taken from the same file (UCR rows of the
  // other class): read once, and its layout said once.
  std::vector<config::LoadedSeries> positives;
  if (cmd.positives_path.empty() == cmd.from_path.empty())
    throw std::runtime_error(
        "give the positive examples: --positives FILE (series, e.g. UCR rows with --label L), "
        "or --from RECORDING with --segments START:END,... or --segments-csv FILE");
  if (!cmd.positives_path.empty()) {
    in.positives_file = cmd.positives_path;
    positives = load_series_for_cli(cmd.positives_path, cmd.input, err);
    in.classes = by_label(positives, cmd.labels, cmd.positives_path);
  } else {
    in.positives_file = cmd.from_path;
    in.classes = cut_positives(cmd, err);
    if (!cmd.labels.empty() && !(cmd.labels.size() == 1 && cmd.labels.front() == "all")) {
      std::vector<LearnClass> kept;
      for (auto& c : in.classes)
        if (std::any_of(cmd.labels.begin(), cmd.labels.end(),
                        [&](const auto& l) { return same_label(l, c.label); }))
          kept.push_back(std::move(c));
      if (kept.empty())
        throw std::runtime_error(cmd.segments_csv +
                                 ": no segment has the label(s) given with "
                                 "--label (give a label of its third column)");
      in.classes = std::move(kept);
    }
  }
  std::size_t count = 0;
  for (const auto& c : in.classes) count += c.examples.size();
  if (count == 0)
    throw std::runtime_error(in.positives_file + ": no positive examples (the file holds no " +
                             "series, or none with the label given)");
  in.dims = in.classes.front().examples.front().dims;
  for (const auto& c : in.classes)
    for (std::size_t i = 0; i < c.examples.size(); ++i)
      if (c.examples[i].dims != in.dims)
        throw std::runtime_error(in.positives_file + ": positive " + c.names[i] + " has " +
                                 std::to_string(c.examples[i].dims) + " dims, the first has " +
                                 std::to_string(in.dims) +
                                 ": every example must have the same dims (--value-columns picks "
                                 "the columns)");
  for (const auto& path : cmd.negatives_paths) {
    const bool positives_file = !positives.empty() && path == cmd.positives_path;
    std::vector<config::LoadedSeries> read;
    if (!positives_file) read = load_series_for_cli(path, cmd.input, err);
    // The file's series without timestamps, laid end to end (unless --negatives-apart).
    std::vector<learn::Series> untimed;
    std::vector<std::string> untimed_names;
    for (const auto& s : positives_file ? positives : read) {
      if (!cmd.negative_labels.empty() &&
          std::none_of(cmd.negative_labels.begin(), cmd.negative_labels.end(),
                       [&](const auto& l) { return same_label(l, s.label); }))
        continue;
      if (s.dims != in.dims)
        throw std::runtime_error(path + ": negative " + s.name + " has " + std::to_string(s.dims) +
                                 " dims, the positives " + std::to_string(in.dims) +
                                 ": give negatives of the same dims");
      if (s.times.empty() && !cmd.negatives_apart) {
        untimed.push_back(series_of(s));
        untimed_names.push_back(s.name);
        continue;
      }
      in.negatives.push_back(as_negative(s.name, series_of(s), s.times, cmd.period_s));
      in.negative_files.push_back(path);
    }
    if (!untimed.empty()) {
      in.negatives.push_back(end_to_end(untimed, untimed_names, cmd.period_s));
      in.negative_files.push_back(path);
    }
  }
  if (!cmd.negatives_paths.empty() && in.negatives.empty())
    throw std::runtime_error(cmd.negatives_paths.front() +
                             ": no negative series (none with the --negative-label given)");
  return in;
}

}  // namespace warpwatch::cli
