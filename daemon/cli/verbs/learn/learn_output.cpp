// `warpwatch learn`'s output.
#include "learn_output.hpp"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include <unistd.h>

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
  std::string s = "metric: dtw, mode: " + std::string(kernels::to_string(p.settings.mode));
  if (p.settings.mode == kernels::Mode::window) {
    s += std::string(", znorm: ") + (p.settings.znorm ? "true" : "false");
    if (p.settings.band) s += ", band: " + exact(*p.settings.band);
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

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) throw std::runtime_error(path.string() + ": cannot write (is the folder there?)");
  f << text;
  f.close();
  if (!f) throw std::runtime_error(path.string() + ": write failed");
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
  std::vector<fs::path> finals, temps;
  for (const auto& p : library.patterns) {
    names.push_back(out.stem().string() + "." + p.id + ".csv");
    finals.push_back(dir / names.back());
  }
  finals.push_back(out);
  const std::string suffix = ".tmp-" + std::to_string(::getpid());
  try {
    for (std::size_t i = 0; i < library.patterns.size(); ++i) {
      temps.push_back(finals[i].string() + suffix);
      write_file(temps.back(), pattern_csv(library.patterns[i].tmpl));
    }
    temps.push_back(out.string() + suffix);
    write_file(temps.back(), library_yaml(library, names));
    for (std::size_t i = 0; i < temps.size(); ++i) fs::rename(temps[i], finals[i]);
  } catch (...) {
    std::error_code ignored;
    for (const auto& t : temps) fs::remove(t, ignored);
    throw;
  }
  finals.pop_back();
  return finals;
}

}  // namespace warpwatch::cli
