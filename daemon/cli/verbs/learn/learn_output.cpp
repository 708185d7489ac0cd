// `warpwatch learn`'s output.
#include "learn_output.hpp"

#include "warpwatch/files/files.hpp"

#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace warpwatch::cli {
namespace {

namespace fs = std::filesystem;

std::string exact(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// The matching keys of a pattern (or of the defaults): metric, mode and what the mode reads.
std::string settings_keys(const LearntPattern& p) {
  std::string s = "metric: " + std::string(kernels::to_string(p.settings.metric)) +
                  ", mode: " + std::string(kernels::to_string(p.settings.mode));
  if (p.settings.mode == kernels::Mode::window) {
    s += std::string(", znorm: ") + (p.settings.znorm ? "true" : "false");
    if (p.settings.metric == kernels::Metric::lcss) {
      s += ", epsilon: " + exact(p.settings.epsilon);
      if (p.settings.delta) s += ", delta: " + std::to_string(*p.settings.delta);
    } else if (p.settings.band) {
      s += ", band: " + exact(*p.settings.band);
    }
  }
  return s + ", threshold: " + exact(p.threshold);
}

std::string pattern_csv(const learn::Series& t) {
  std::ostringstream s;
  for (std::size_t i = 0; i < t.length(); ++i) {
    for (std::size_t k = 0; k < t.dims; ++k) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(t.values[i * t.dims + k]));
      s << (k ? "," : "") << buf;
    }
    s << "\n";
  }
  return s.str();
}

std::string yaml_string(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string library_yaml(const LearntLibrary& library, const std::vector<std::string>& file_names) {
  std::ostringstream y;
  for (const auto& line : library.header) y << "# " << line << "\n";
  y << "streams: {auto_create: true, auto_dims: " << library.dims << "}\n";
  y << "libraries:\n";
  y << "  - name: " << yaml_string(library.name) << "\n";
  if (library.exclusive) y << "    exclusive: true\n";
  const bool one = library.patterns.size() == 1;
  y << "    defaults: {" << (one ? settings_keys(library.patterns.front()) : "metric: dtw")
    << "}\n";
  y << "    patterns:\n";
  for (std::size_t i = 0; i < library.patterns.size(); ++i) {
    const auto& p = library.patterns[i];
    y << "      - {id: " << yaml_string(p.id) << ", file: " << yaml_string(file_names[i])
      << ", layout: columns" << (one ? "" : ", " + settings_keys(p)) << "}\n";
  }
  return y.str();
}

std::vector<fs::path> write_library(const LearntLibrary& library, const fs::path& out) {
  const fs::path dir = out.parent_path().empty() ? fs::path(".") : out.parent_path();
  if (!fs::is_directory(dir))
    throw std::runtime_error(out.string() + ": the folder " + dir.string() +
                             " does not exist (create it first)");
  std::vector<std::string> names;
  std::vector<fs::path> finals;
  for (const auto& p : library.patterns) {
    names.push_back(out.stem().string() + "." + p.id + ".csv");
    finals.push_back(dir / names.back());
  }
  // Each file whole (files::write_file_atomically), the pattern files first and the YAML
  // that names them last: a failure removes the files this run wrote, so that nothing of a
  // half-written group stays.
  std::size_t written = 0;
  try {
    for (; written < library.patterns.size(); ++written)
      files::write_file_atomically(finals[written], pattern_csv(library.patterns[written].tmpl));
    files::write_file_atomically(out, library_yaml(library, names));
  } catch (...) {
    std::error_code ignored;
    for (std::size_t i = 0; i < written; ++i) fs::remove(finals[i], ignored);
    throw;
  }
  return finals;
}

}  // namespace warpwatch::cli
