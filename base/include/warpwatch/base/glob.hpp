// The globs of alert rules (streams, patterns, libraries) and of sinks (rules): the alerting
// layer applies them, the configuration's checks ask what they select.
#pragma once

#include <fnmatch.h>

#include <algorithm>
#include <string>
#include <vector>

namespace warpwatch::stream {

// fnmatch(3) with no flags: '/' and a leading '.' are ordinary characters, so a glob reads
// the same on stream ids, pattern ids, library and rule names. True when `glob` (one of
// `globs`) matches the whole of `text`.
inline bool glob_matches(const std::string& glob, const std::string& text) {
  return ::fnmatch(glob.c_str(), text.c_str(), 0) == 0;
}
inline bool any_glob_matches(const std::vector<std::string>& globs, const std::string& text) {
  return std::any_of(globs.begin(), globs.end(),
                     [&](const std::string& glob) { return glob_matches(glob, text); });
}

}  // namespace warpwatch::stream
