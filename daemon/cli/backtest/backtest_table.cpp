// The backtest's events as JSON lines, and its per-rule and per-stream table.
#include <algorithm>
#include <iomanip>
#include <ostream>
#include <set>
#include <sstream>

#include "backtest.hpp"
#include "warpwatch/base/glob.hpp"

namespace warpwatch::cli::backtest {
namespace {

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

void print_rows(const std::vector<std::string>& header,
                const std::vector<std::vector<std::string>>& rows, std::ostream& out) {
  std::vector<std::size_t> width(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  const auto line = [&](const std::vector<std::string>& row) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      if (c == 0)
        out << std::left << std::setw(static_cast<int>(width[c])) << row[c];
      else
        out << "  " << std::right << std::setw(static_cast<int>(width[c])) << row[c];
    }
    out << "\n";
  };
  line(header);
  for (const auto& row : rows) line(row);
}

}  // namespace

void CollectingSink::offer(std::span<const alerting::SharedEvent> events) {
  for (const alerting::SharedEvent& e : events) {
    out_ << alerting::to_json(*e) << "\n";
    events_.push_back(e);
  }
}

double recording_hours(const std::map<std::string, StreamSpan>& streams) {
  double ns = 0;
  for (const auto& [id, s] : streams)
    if (s.samples > 0) ns += static_cast<double>(s.last_ns - s.first_ns);
  return ns / 3.6e12;
}

std::vector<std::vector<std::string>> rule_rows(const TableInput& in,
                                                std::vector<std::string>& header) {
  header = {"rule", "events", "events/h"};
  for (const config::SinkConfig& sink : in.config.sinks)
    header.push_back("alerts:" + sink.sink.name);
  std::vector<std::vector<std::string>> rows;
  for (const config::Rule& rule : in.config.live.rules) {
    // The hours of the streams the rule's `streams:` globs select.
    std::map<std::string, StreamSpan> selected;
    for (const auto& [id, span] : in.streams)
      if (stream::any_glob_matches(rule.streams, id)) selected.emplace(id, span);
    const double hours = recording_hours(selected);
    const auto events = static_cast<std::uint64_t>(
        std::count_if(in.events.begin(), in.events.end(),
                      [&](const alerting::SharedEvent& e) { return e->rule == rule.name; }));
    std::vector<std::string> row{rule.name, std::to_string(events),
                                 hours > 0 ? fixed(static_cast<double>(events) / hours, 2) : "-"};
    // A sink takes the events whose rule one of its `rules:` globs matches (http_sink.cpp).
    for (const config::SinkConfig& sink : in.config.sinks)
      row.push_back(
          std::to_string(stream::any_glob_matches(sink.sink.rules, rule.name) ? events : 0));
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<std::vector<std::string>> stream_rows(const TableInput& in,
                                                  std::vector<std::string>& header) {
  header = {"stream", "samples", "hours", "events", "rejected", "recording"};
  std::map<std::string, const stream::StreamCounters*> counters;
  for (const stream::StreamCounters& c : in.registry.streams) counters[c.stream->id] = &c;
  std::set<std::string> ids;
  for (const auto& [id, s] : in.streams) ids.insert(id);
  for (const auto& [id, c] : counters) ids.insert(id);
  std::vector<std::vector<std::string>> rows;
  for (const std::string& id : ids) {
    const auto span = in.streams.find(id);
    const auto c = counters.find(id);
    const auto events =
        std::count_if(in.events.begin(), in.events.end(),
                      [&](const alerting::SharedEvent& e) { return e->stream == id; });
    std::string rejected;
    if (c != counters.end())
      for (const stream::RejectReason reason : stream::all_reject_reasons)
        if (const std::uint64_t n = c->second->rejected[reason])
          rejected += (rejected.empty() ? "" : ",") + std::string(stream::to_string(reason)) + ":" +
                      std::to_string(n);
    const bool has = span != in.streams.end() && span->second.samples > 0;
    rows.push_back(
        {id, std::to_string(has ? span->second.samples : 0),
         has ? fixed(static_cast<double>(span->second.last_ns - span->second.first_ns) / 3.6e12, 3)
             : "-",
         std::to_string(events), rejected.empty() ? "0" : rejected,
         span != in.streams.end() ? span->second.origin : "-"});
  }
  // Rejected input that names no stream (a line without its tag, a bad id).
  std::uint64_t named = 0;
  for (const stream::StreamCounters& c : in.registry.streams) named += c.rejected.total();
  if (in.registry.rejected.total() > named)
    rows.push_back({"(no stream id)", "0", "-", "0",
                    std::to_string(in.registry.rejected.total() - named), "-"});
  return rows;
}

void write_table(const TableInput& in, std::ostream& out) {
  std::vector<std::string> header;
  const auto rules = rule_rows(in, header);
  print_rows(header, rules, out);
  out << "\n";
  const auto streams = stream_rows(in, header);
  print_rows(header, streams, out);
  out << "\n"
      << in.events.size() << " events over " << fixed(recording_hours(in.streams), 3)
      << " hours of recording (stream time); " << in.registry.rejected.total()
      << " inputs rejected\n";
}

}  // namespace warpwatch::cli::backtest
