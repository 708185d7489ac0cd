// `warpwatch learn`'s output: the library YAML and its pattern files, written all or nothing.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "warpwatch/learn/calibrate.hpp"

namespace warpwatch::cli {

struct LearntPattern {
  std::string id;
  learn::Series tmpl;
  learn::MatchSettings settings;
  double threshold = 0.0;
};

struct LearntLibrary {
  std::string name;
  std::size_t dims = 1;
  bool exclusive = false;           // several classes: the nearest template's event only
  std::vector<std::string> header;  // comment lines (without "# ")
  std::vector<LearntPattern> patterns;
};

// The YAML text (`warpwatch check-config` accepts it as is) naming each pattern's file as
// `file_names[i]`, relative to the YAML's folder.
std::string library_yaml(const LearntLibrary& library, const std::vector<std::string>& file_names);

// Writes `out` and a CSV per pattern beside it (<stem>.<id>.csv: a sample per line, a column
// per dim), each whole (files::write_file_atomically), the YAML last; on any error the files
// this call wrote are removed.
// Returns the pattern files' paths.
std::vector<std::filesystem::path> write_library(const LearntLibrary& library,
                                                 const std::filesystem::path& out);

}  // namespace warpwatch::cli
