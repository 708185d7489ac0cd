#include "search_profile.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string_view>

#include "warpwatch/kernels/reference.hpp"
#include "warpwatch/kernels/top_windows.hpp"

namespace warpwatch::cli {
namespace {

// A CSV field: quoted (quotes doubled) when it holds a comma, a quote or a line break.
std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// The shortest text that reads back as the same double ("inf", "nan" included), as the
// events' distances are printed.
std::string number(double value) {
  char buffer[32];
  const auto end = std::to_chars(buffer, buffer + sizeof buffer, value).ptr;
  return std::string(buffer, end);
}

}  // namespace

void write_profiles(const std::string& path, std::span<const ProfileSeries> series,
                    std::span<const kernels::PatternDef> patterns) {
  std::ofstream csv(path);
  if (!csv)
    throw std::runtime_error("--profile: cannot write " + path + ": " + std::strerror(errno));
  const bool times =
      std::any_of(series.begin(), series.end(), [](const ProfileSeries& s) { return s.has_times; });
  csv << "stream,pattern,index," << (times ? "time_ns," : "") << "distance,start_index\n";
  for (const ProfileSeries& s : series) {
    for (const kernels::PatternDef& p : patterns) {
      if (p.dims != s.def->dims) continue;
      const kernels::TopWindowsRequest request{*s.def, s.values, s.times_ns, p, false, 0, nullptr};
      const std::string ids = csv_field(s.def->id) + "," + csv_field(p.id) + ",";
      for (const kernels::ProfilePoint& q : kernels::reference::profile(request)) {
        csv << ids << q.end_index << ",";
        if (times) csv << (s.has_times ? std::to_string(s.times_ns[q.end_index]) : "") << ",";
        csv << number(q.distance) << "," << q.start_index << "\n";
      }
    }
  }
  csv.flush();
  if (!csv)
    throw std::runtime_error("--profile: cannot write " + path + ": " + std::strerror(errno));
}

}  // namespace warpwatch::cli
