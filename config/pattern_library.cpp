// `libraries:`: each library's defaults, its patterns from files or inline values, every
// pattern checked where the configuration can still say file:line:column.
#include <algorithm>
#include <cctype>
#include <cfloat>
#include <cmath>
#include <stdexcept>

#include "warpwatch/base/stream_def.hpp"
#include "warpwatch/config/config_reader.hpp"
#include "warpwatch/config/series_file.hpp"

namespace warpwatch::config {
namespace {

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// Where `word` (or its plural) first stands as a word in `text`; npos when it does not.
std::size_t word_position(std::string_view text, std::string_view word) {
  for (std::size_t at = text.find(word); at != std::string_view::npos;
       at = text.find(word, at + 1)) {
    std::size_t end = at + word.size();
    if (end < text.size() && text[end] == 's') ++end;
    if ((at == 0 || !is_word_char(text[at - 1])) &&
        (end == text.size() || !is_word_char(text[end])))
      return at;
  }
  return std::string_view::npos;
}

// kernels::validate names the offending parameter in its message: point at the first
// parameter it names that the pattern, or else its library's defaults, sets.
SourceLocation param_error_location(const std::string& message, const PresentKeys& pattern,
                                    const PresentKeys& library, const SourceLocation& fallback) {
  std::vector<std::pair<std::size_t, std::string>> named;
  for (const OptionInfo* option : child_options("libraries[].defaults")) {
    const std::string leaf(leaf_name(option->name));
    const std::size_t at = word_position(message, leaf);
    if (at != std::string_view::npos) named.emplace_back(at, leaf);
  }
  std::sort(named.begin(), named.end());
  for (const auto& [at, leaf] : named) {
    if (const auto it = pattern.find(leaf); it != pattern.end()) return it->second.value;
    if (const auto it = library.find(cat("defaults.", leaf)); it != library.end())
      return it->second.value;
  }
  return fallback;
}

struct PatternReader {
  const ReadContext& ctx;
  const PresentKeys& keys;  // of the pattern entry
  const PatternSource& src;

  const PresentKey& key(std::string_view name) const { return keys.find(name)->second; }
  bool has(std::string_view name) const { return keys.find(name) != keys.end(); }

  // file xor values, and the keys that only make sense with one of them.
  void check_keys(const SourceLocation& where) const {
    if (has("file") == has("values"))
      throw ConfigError(
          has("file") ? key("values").key : where,
          cat("pattern ", in_quotes(src.id), " needs exactly one of 'file' and 'values'"));
    for (const char* name :
         {"row", "layout", "labels", "time_column", "value_columns", "time_unit", "start", "end"})
      if (has(name) && !has("file"))
        throw ConfigError(key(name).key,
                          cat("'", name, "' applies to patterns read from a 'file'"));
    if (has("times") && !has("values"))
      throw ConfigError(key("times").key,
                        "'times' applies to inline 'values' (a file's times "
                        "come from its 'time_column')");
    check_series_file_keys(keys, src.file_options);
    if (src.start && src.end && *src.start >= *src.end)
      throw ConfigError(key("end").value,
                        cat("'end' ", std::to_string(*src.end), " must be greater than 'start' ",
                            std::to_string(*src.start), " (end is exclusive)"));
  }

  // Samples [start, end) of `s`, as the entry's `start` and `end` say.
  LoadedSeries part(const LoadedSeries& s) const {
    if (!src.start && !src.end) return s;
    const auto length = static_cast<std::int64_t>(s.length());
    const auto range = [&] {
      return cat(": ", s.name, " in ", src.file, " has ", std::to_string(length),
                 " samples (indices 0 to ", std::to_string(length - 1), ")");
    };
    if (src.end && *src.end > length)
      throw ConfigError(key("end").value,
                        cat("'end' ", std::to_string(*src.end), " is beyond the series", range(),
                            "; 'end' is exclusive, at most ", std::to_string(length)));
    if (src.start && *src.start >= length)
      throw ConfigError(key("start").value, cat("'start' ", std::to_string(*src.start),
                                                " is beyond the series", range()));
    return slice_series(s, static_cast<std::size_t>(src.start.value_or(0)),
                        static_cast<std::size_t>(src.end.value_or(length)));
  }

  std::vector<kernels::PatternDef> from_file(const kernels::MatchParams& params) const {
    std::vector<LoadedSeries> series;
    try {
      series = load_series_file(src.file, src.file_options);
    } catch (const ConfigError& e) {
      throw ConfigError(key("file").value, cat("cannot load pattern file: ", e.what()));
    }
    if (src.row && static_cast<std::size_t>(*src.row) >= series.size())
      throw ConfigError(key("row").value,
                        cat("row ", std::to_string(*src.row), " is out of range: ", src.file,
                            " has ", std::to_string(series.size()), " series"));
    std::vector<kernels::PatternDef> defs;
    for (std::size_t i = 0; i < series.size(); ++i) {
      if (src.row && static_cast<std::size_t>(*src.row) != i) continue;
      const LoadedSeries s = part(series[i]);
      const bool one = src.row || series.size() == 1;
      kernels::PatternDef def;
      def.id = one ? src.id : cat(src.id, ":", std::to_string(i));
      def.dims = s.dims;
      def.values = s.values;
      def.params = params;
      for (const double t : s.times) def.times.push_back(t - s.times.front());  // relative
      defs.push_back(std::move(def));
    }
    return defs;
  }

  kernels::PatternDef from_values(const kernels::MatchParams& params) const {
    const YAML::Node& values = key("values").node;
    kernels::PatternDef def;
    def.id = src.id;
    def.dims = src.values.empty() ? 1 : src.values.front().size();
    def.params = params;
    for (std::size_t i = 0; i < src.values.size(); ++i)
      for (std::size_t k = 0; k < src.values[i].size(); ++k) {
        const double v = src.values[i][k];
        if (std::abs(v) > FLT_MAX)
          throw ConfigError(where_is(ctx, values[i].IsSequence() ? values[i][k] : values[i]),
                            cat("value ", std::to_string(v), " is out of the float32 range"));
        def.values.push_back(static_cast<float>(v));
      }
    if (has("times")) {
      const YAML::Node& times = key("times").node;
      if (src.times.size() != src.values.size())
        throw ConfigError(
            key("times").value,
            cat("'times' has ", std::to_string(src.times.size()), " timestamps, the pattern has ",
                std::to_string(src.values.size()), " samples: the dims do not match"));
      for (std::size_t i = 0; i < src.times.size(); ++i) {
        if (std::abs(src.times[i]) > FLT_MAX)  // window mode keeps them as floats
          throw ConfigError(where_is(ctx, times[i]), cat("time ", std::to_string(src.times[i]),
                                                         " is out of the float32 range"));
        if (i > 0 && !(src.times[i] > src.times[i - 1]))
          throw ConfigError(where_is(ctx, times[i]), "'times' must increase");
      }
      def.times = src.times;
    }
    return def;
  }

  void check_shape(const kernels::PatternDef& def, const StreamDims& stream_dims) const {
    const SourceLocation& at = has("file") ? key("file").value : key("values").value;
    if (def.length() < 2)
      throw ConfigError(at,
                        cat("pattern ", in_quotes(def.id), " has ", std::to_string(def.length()),
                            " sample(s): a pattern needs at least 2"));
    if (def.dims > stream::max_dims)
      throw ConfigError(at, cat("pattern ", in_quotes(def.id), " has ", std::to_string(def.dims),
                                " dims: at most 64 are supported"));
    if (!stream_dims.any.count(def.dims))
      throw ConfigError(at, cat("pattern ", in_quotes(def.id), " has ", std::to_string(def.dims),
                                " dims, which no stream has (", stream_dims.text, ")"));
  }
};

}  // namespace

std::vector<Library> read_libraries(const PresentKeys& top, const ReadContext& ctx,
                                    const StreamDims& stream_dims, std::size_t max_library_bytes,
                                    std::vector<ConfigWarning>& warnings) {
  std::vector<Library> libraries;
  UniqueNames library_names("library name");
  UniqueNames pattern_ids("pattern id");
  for (const YAML::Node& entry : list_entries(top, "libraries")) {
    Library library;
    library.where = where_is(ctx, entry);
    PatternParams defaults;
    OptionTargets targets;
    targets.library = &library;
    targets.params = &defaults;
    const PresentKeys library_keys =
        read_section(entry, library.where, "libraries[]", targets, ctx);
    library_names.add(library.name, library_keys.find("name")->second.value);

    std::size_t library_bytes = 0;  // kernels::pattern_memory_bytes of its patterns
    std::vector<PatternEntry> entries;
    for (const YAML::Node& pattern_entry : list_entries(library_keys, "patterns")) {
      const SourceLocation where = where_is(ctx, pattern_entry);
      PatternSource src;
      PatternParams params = defaults;  // the pattern's own keys override the library's
      OptionTargets pattern_targets;
      pattern_targets.pattern = &src;
      pattern_targets.params = &params;
      const PresentKeys keys = read_section(pattern_entry, where, "libraries[].patterns[]",
                                            pattern_targets, ctx, "libraries[].defaults");
      const PatternReader reader{ctx, keys, src};
      reader.check_keys(where);
      if (!params.has_threshold)
        throw ConfigError(where, cat("pattern ", in_quotes(src.id),
                                     " has no threshold: set "
                                     "'threshold' on it or in its library's 'defaults'"));
      try {
        kernels::validate(params.match);
      } catch (const std::invalid_argument& e) {
        throw ConfigError(param_error_location(e.what(), keys, library_keys, where),
                          cat("pattern ", in_quotes(src.id), ": ", e.what()));
      }
      entries.push_back({src.id, params.match, keys});
      check_pattern_entry(entries.back(), library_keys, warnings);
      const std::vector<kernels::PatternDef> defs =
          src.file.empty() ? std::vector{reader.from_values(params.match)}
                           : reader.from_file(params.match);
      for (const kernels::PatternDef& def : defs) {
        reader.check_shape(def, stream_dims);
        try {  // what depends on the pattern's length (ed: w = m), and all the Matcher checks
          kernels::check_pattern(def);
        } catch (const std::invalid_argument& e) {  // the message names the pattern
          throw ConfigError(param_error_location(e.what(), keys, library_keys, where), e.what());
        }
        pattern_ids.add(def.id, keys.find("id")->second.value);
        library_bytes += kernels::pattern_memory_bytes(def);
        if (library_bytes > max_library_bytes)
          throw ConfigError(
              library.where,
              cat("library ", in_quotes(library.name), " is over limits.max_library_bytes (",
                  std::to_string(max_library_bytes), "): its patterns up to ", in_quotes(def.id),
                  " take an estimated ", std::to_string(library_bytes), " bytes"));
        library.patterns.push_back(def);
        library.patterns.back().library = library.name;
        library.pattern_where.push_back(keys.find("id")->second.value);
      }
    }
    check_library(library, entries, library_keys, stream_dims, warnings);
    libraries.push_back(std::move(library));
  }
  return libraries;
}

}  // namespace warpwatch::config
