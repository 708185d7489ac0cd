// Reading YAML maps through the option table: every check that an option's table entry
// declares (type, range, choices, required, unknown keys) happens here, once.
#include "warpwatch/config/config_reader.hpp"

#include "warpwatch/config/yaml_file.hpp"

#include "warpwatch/base/stream_id.hpp"
#include "warpwatch/stream/kafka_options.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include <sys/un.h>

namespace warpwatch::config {
namespace {

constexpr double max_device_index = 1023;     // cuda.devices: far above any host's GPUs
constexpr double max_column_index = 1 << 20;  // value_columns: as time_column's bound

// Levenshtein distance, case-insensitive: near misses are usually one slip of a finger.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      const std::size_t next = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = row[j];
      row[j] = next;
    }
  }
  return row[b.size()];
}

std::string did_you_mean(std::string_view word, const std::vector<std::string_view>& candidates) {
  const std::string best = near_miss(word, candidates);
  if (best.empty()) return "";
  return cat(" (did you mean ", in_quotes(best), "?)");
}

std::string where_text(std::string_view path) {
  return path.empty() ? std::string("at the top level") : cat("in ", in_quotes(path));
}

// Where from_chars starts reading a number: past one leading '+' (which it does not take),
// unless a sign follows it ("+-5" is not a number, and from_chars would read "-5").
const char* after_plus(const std::string& text) {
  const bool plus =
      text.starts_with('+') && !(text.size() > 1 && (text[1] == '-' || text[1] == '+'));
  return text.data() + (plus ? 1 : 0);
}

struct Converter {
  const ReadContext& ctx;
  const OptionInfo& option;
  std::string name;  // as the messages say it

  [[noreturn]] void fail(const YAML::Node& node, const std::string& what) const {
    throw ConfigError(where_is(ctx, node), cat(in_quotes(name), " ", what));
  }

  std::string scalar(const YAML::Node& node, std::string_view expected) const {
    if (!node.IsScalar()) fail(node, cat("must be ", expected));
    return node.Scalar();
  }

  void check_range(const YAML::Node& node, double v, const std::string& text) const {
    const bool low = option.min && (option.min_exclusive ? v <= *option.min : v < *option.min);
    const bool high = option.max && v > *option.max;
    if (low || high) fail(node, cat("must be ", allowed_values_text(option), ", got ", text));
  }

  double number(const YAML::Node& node, std::string_view expected = "a finite number") const {
    const std::string text = scalar(node, expected);
    double v = 0.0;
    const char* begin = after_plus(text);
    const auto [end, ec] = std::from_chars(begin, text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
      fail(node, cat("must be ", expected, ", got ", in_quotes(text)));
    return v;
  }

  std::int64_t integer(const YAML::Node& node) const {
    const std::string text = scalar(node, "an integer");
    std::int64_t v = 0;
    const char* begin = after_plus(text);
    const auto [end, ec] = std::from_chars(begin, text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size())
      fail(node, cat("must be an integer, got ", in_quotes(text)));
    return v;
  }

  std::string endpoint(const YAML::Node& node) const {
    const std::string text = scalar(node, "a ZeroMQ endpoint");
    const std::size_t sep = text.find("://");
    const std::string transport = sep == std::string::npos ? "" : text.substr(0, sep);
    const std::string rest = sep == std::string::npos ? "" : text.substr(sep + 3);
    // tcp: a port libzmq can bind or connect (`*` = any); ipc: a path that fits a Unix
    // socket address (libzmq refuses longer ones when the socket binds, too late to say
    // where).
    const bool ok =
        (transport == "tcp" && (host_port(rest) || (rest.ends_with(":*") && rest.size() > 2))) ||
        (transport == "ipc" && !rest.empty() && rest.size() < sizeof(sockaddr_un::sun_path)) ||
        (transport == "inproc" && !rest.empty());
    if (!ok)
      fail(node, cat("must be a ZeroMQ endpoint (tcp://host:port with a port 0 to 65535 or *, "
                     "ipc://path of at most ",
                     std::to_string(sizeof(sockaddr_un::sun_path) - 1),
                     " bytes, inproc://name), got ", in_quotes(text)));
    return text;
  }

  // host:port with a host and a port from 0 to 65535 (the host is resolved when the
  // socket binds).
  static bool host_port(std::string_view text) {
    const std::size_t colon = text.rfind(':');
    if (colon == std::string_view::npos || colon == 0 || colon + 1 == text.size()) return false;
    unsigned port = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data() + colon + 1, end, port);
    return ec == std::errc() && ptr == end && port <= 65535;
  }

  std::string listen(const YAML::Node& node) const {
    const std::string text = scalar(node, "host:port");
    if (!text.empty() && !host_port(text))
      fail(node, cat("must be host:port (port 0 to 65535) or \"\", got ", in_quotes(text)));
    return text;
  }

  std::string url(const YAML::Node& node) const {
    const std::string text = scalar(node, "an http:// URL");
    std::string why;
    if (!parse_http_url(text, &why)) fail(node, cat(why, ", got ", in_quotes(text)));
    return text;
  }

  std::string socket_address(const YAML::Node& node) const {
    const std::string text = scalar(node, "tcp://host:port or udp://host:port");
    const std::size_t sep = text.find("://");
    const std::string scheme = sep == std::string::npos ? "" : text.substr(0, sep);
    if ((scheme != "tcp" && scheme != "udp") || !host_port(std::string_view(text).substr(sep + 3)))
      fail(node, cat("must be tcp://host:port or udp://host:port (port 0 to 65535), got ",
                     in_quotes(text)));
    return text;
  }

  // `all` (none listed) or device indices, each once.
  std::vector<double> devices(const YAML::Node& node) const {
    if (node.IsScalar() && node.Scalar() == "all") return {};
    if (!node.IsSequence() || node.size() == 0)
      fail(node, "must be `all` or a non-empty list of device indices");
    return indices(node, "device", max_device_index);
  }

  // A non-empty list of `noun` indices, integers from 0 to `max`, each once.
  std::vector<double> indices(const YAML::Node& node, std::string_view noun, double max) const {
    const std::string what =
        cat("a ", noun, " index (an integer from 0 to ", std::to_string(std::llround(max)), ")");
    if (!node.IsSequence() || node.size() == 0)
      fail(node, cat("must be a non-empty list of ", noun, " indices"));
    std::vector<double> out;
    for (const YAML::Node& item : node) {
      const double d = number(item, what);
      if (d != std::floor(d) || d < 0 || d > max)
        fail(item, cat("must be ", what, ", got ", in_quotes(item.Scalar())));
      if (std::find(out.begin(), out.end(), d) != out.end())
        fail(item, cat("lists ", noun, " ", item.Scalar(), " twice"));
      out.push_back(d);
    }
    return out;
  }

  std::vector<double> numbers(const YAML::Node& node) const {
    if (!node.IsSequence()) fail(node, "must be a list of numbers");
    std::vector<double> out;
    for (const YAML::Node& item : node) out.push_back(number(item, "a list of numbers"));
    return out;
  }

  // One row per sample: [1, 2, 3] is 3 samples of 1 value, [[1, 2], [3, 4]] 2 samples of 2.
  std::vector<std::vector<double>> samples(const YAML::Node& node) const {
    if (!node.IsSequence()) fail(node, "must be a list of numbers or of [v1, v2, ...] samples");
    std::vector<std::vector<double>> rows;
    for (const YAML::Node& item : node) {
      if (item.IsScalar()) {
        if (!rows.empty() && rows.front().size() != 1)
          fail(item, "mixes numbers and [v1, v2, ...] samples");
        rows.push_back({number(item)});
        continue;
      }
      if (!item.IsSequence() || item.size() == 0)
        fail(item, "must be a list of numbers or of [v1, v2, ...] samples");
      std::vector<double> row;
      for (const YAML::Node& v : item) row.push_back(number(v));
      if (!rows.empty() && row.size() != rows.front().size())
        fail(item, cat("has samples of different dims: sample ", std::to_string(rows.size()),
                       " has ", std::to_string(row.size()), " values, sample 0 has ",
                       std::to_string(rows.front().size())));
      rows.push_back(std::move(row));
    }
    return rows;
  }

  OptionValue convert(const YAML::Node& node) const {
    OptionValue v;
    switch (option.type) {
      case OptionType::string:
        v.text = scalar(node, "a string");
        if (option.min && v.text.size() < *option.min) fail(node, "must not be empty");
        break;
      case OptionType::path: {
        v.text = scalar(node, "a file name");
        if (v.text.empty() && option.default_yaml == "\"\"") break;  // "" = off, its default
        if (v.text.empty()) fail(node, "must not be empty");
        const std::filesystem::path p(v.text);
        if (p.is_relative()) v.text = (ctx.base_dir / p).lexically_normal().string();
        break;
      }
      case OptionType::endpoint:
        v.text = endpoint(node);
        break;
      case OptionType::listen:
        v.text = listen(node);
        break;
      case OptionType::url:
        v.text = url(node);
        break;
      case OptionType::socket:
        v.text = socket_address(node);
        break;
      case OptionType::boolean:
        if (!node.IsScalar() || !YAML::convert<bool>::decode(node, v.boolean))
          fail(node,
               cat("must be true or false",
                   node.IsScalar() ? cat(", got ", in_quotes(node.Scalar())) : std::string()));
        break;
      case OptionType::integer:
        v.integer = integer(node);
        check_range(node, static_cast<double>(v.integer), std::to_string(v.integer));
        break;
      case OptionType::number:
        v.number = number(node);
        check_range(node, v.number, node.Scalar());
        break;
      case OptionType::choice: {
        v.text = scalar(node, cat("one of ", allowed_values_text(option)));
        if (std::find(option.choices.begin(), option.choices.end(), v.text) == option.choices.end())
          fail(node, cat("must be one of ", allowed_values_text(option), ", got ",
                         in_quotes(v.text), did_you_mean(v.text, option.choices)));
        break;
      }
      case OptionType::string_list:
        if (node.IsScalar()) {
          v.texts.push_back(node.Scalar());
          if (option.min && v.texts.back().empty()) fail(node, "must not be empty");
          break;
        }
        if (!node.IsSequence()) fail(node, "must be a string or a list of strings");
        for (const YAML::Node& item : node) {
          v.texts.push_back(scalar(item, "a list of strings"));
          if (option.min && v.texts.back().empty()) fail(item, "must not hold an empty string");
        }
        if (option.min && v.texts.size() < *option.min) fail(node, "must not be empty");
        break;
      case OptionType::string_map:
        if (!node.IsMap()) fail(node, "must be a map of `key: value` strings");
        for (const auto& kv : node) {
          const std::string key = scalar(kv.first, "a map of `key: value` strings");
          if (v.text_map.count(key)) fail(kv.first, cat("has the key ", in_quotes(key), " twice"));
          v.text_map[key] = scalar(kv.second, "a map of `key: value` strings");
        }
        break;
      case OptionType::number_list:
        v.numbers = numbers(node);
        break;
      case OptionType::samples:
        v.rows = samples(node);
        break;
      case OptionType::devices:
        v.numbers = devices(node);
        break;
      case OptionType::columns:
        v.numbers = indices(node, "column", max_column_index);
        break;
      case OptionType::section:
      case OptionType::list:
        break;
    }
    return v;
  }
};

std::string child_path(std::string_view path, std::string_view leaf) {
  std::string s(path);
  if (!s.empty()) s += '.';
  s += leaf;
  return s;
}

}  // namespace

std::string in_quotes(std::string_view text) {
  return cat("'", text, "'");
}

SourceLocation where_is(const ReadContext& ctx, const YAML::Node& node) {
  return location_of(ctx.file, node);
}

std::string near_miss(std::string_view word, const std::vector<std::string_view>& candidates) {
  std::string best;
  std::size_t best_distance = 3;  // more than two edits away is not a typo
  for (const std::string_view c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < best_distance && d < c.size()) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

PresentKeys read_section(const YAML::Node& node, const SourceLocation& where, std::string_view path,
                         OptionTargets& targets, const ReadContext& ctx,
                         std::string_view overrides) {
  const bool absent = !node.IsDefined() || node.IsNull();
  if (!absent && !node.IsMap()) {
    const std::string what = path.empty() ? std::string("the configuration")
                             : path.ends_with("[]")
                                 ? cat("each entry of ", in_quotes(path.substr(0, path.size() - 2)))
                                 : in_quotes(path);
    throw ConfigError(where_is(ctx, node), cat(what, " must be a map of `key: value` options"));
  }
  const std::vector<const OptionInfo*> own = child_options(path);
  const std::vector<const OptionInfo*> extra =
      overrides.empty() ? std::vector<const OptionInfo*>{} : child_options(overrides);
  std::vector<std::string_view> known;
  for (const auto* list : {&own, &extra})
    for (const OptionInfo* o : *list) known.push_back(leaf_name(o->name));

  PresentKeys present;
  std::set<std::string, std::less<>> seen;
  if (!absent) {
    for (const auto& kv : node) {
      if (!kv.first.IsScalar())
        throw ConfigError(where_is(ctx, kv.first),
                          cat("a key must be a plain name ", where_text(path)));
      const std::string key = kv.first.Scalar();
      if (!seen.insert(key).second)
        throw ConfigError(where_is(ctx, kv.first),
                          cat("duplicate key ", in_quotes(key), " ", where_text(path)));
      if (std::find(known.begin(), known.end(), key) == known.end())
        throw ConfigError(where_is(ctx, kv.first), cat("unknown key ", in_quotes(key), " ",
                                                       where_text(path), did_you_mean(key, known)));
      if (kv.second.IsNull()) continue;  // `key:` with no value: as if absent
      present[key] = {where_is(ctx, kv.first), where_is(ctx, kv.second), kv.second};
    }
  }

  auto read_one = [&](const OptionInfo& option, bool with_default) {
    const std::string_view leaf = leaf_name(option.name);
    const auto it = present.find(leaf);
    const Converter convert{ctx, option, child_path(path, leaf)};
    if (option.type == OptionType::section) {
      const PresentKeys inner =
          read_section(it == present.end() ? YAML::Node() : it->second.node,
                       it == present.end() ? where : it->second.value, option.name, targets, ctx);
      for (const auto& [key, value] : inner) present[child_path(leaf, key)] = value;
    } else if (option.type == OptionType::list) {
      if (it != present.end() && !it->second.node.IsSequence())
        convert.fail(it->second.node, "must be a list");
    } else if (it != present.end()) {
      option.set(targets, convert.convert(it->second.node));
    } else if (with_default && !option.default_yaml.empty()) {
      option.set(targets, convert.convert(YAML::Load(std::string(option.default_yaml))));
    } else if (with_default && option.required) {
      throw ConfigError(where,
                        cat("missing required key ", in_quotes(leaf), " ", where_text(path)));
    }
  };
  for (const OptionInfo* option : own) read_one(*option, true);
  for (const OptionInfo* option : extra) read_one(*option, false);
  return present;
}

std::vector<YAML::Node> list_entries(const PresentKeys& keys, std::string_view name) {
  std::vector<YAML::Node> entries;
  const auto it = keys.find(name);
  if (it != keys.end())
    for (const YAML::Node& entry : it->second.node) entries.push_back(entry);
  return entries;
}

std::string_view entry_kind(const PresentKeys& keys, const std::vector<std::string_view>& kinds,
                            std::string_view entry, std::string_view what,
                            const SourceLocation& where) {
  std::string_view found;
  std::string names;
  for (const std::string_view name : kinds) {
    names += cat(names.empty() ? "" : ", ", in_quotes(name));
    const auto it = keys.find(name);
    if (it == keys.end()) continue;
    if (!found.empty())
      throw ConfigError(it->second.key, cat(entry, " has one ", what, ": ", in_quotes(found),
                                            " and ", in_quotes(name), " need two entries"));
    found = name;
  }
  if (found.empty()) throw ConfigError(where, cat(entry, " needs one of ", names));
  return found;
}

void check_kind_keys(const PresentKeys& keys, std::string_view kind,
                     const std::vector<std::pair<std::string_view, std::string_view>>& owners) {
  for (const auto& key : owners) {
    const std::string_view name = key.first;
    const auto it = keys.find(name);
    if (it == keys.end()) continue;
    // A key several kinds share is listed once per kind: 'a' and 'b', or 'a', 'b' and 'c'.
    std::vector<std::string_view> kinds;
    for (const auto& [other, owner] : owners)
      if (other == name) kinds.push_back(owner);
    if (std::find(kinds.begin(), kinds.end(), kind) != kinds.end()) continue;
    std::string who;
    for (std::size_t i = 0; i < kinds.size(); ++i)
      who += cat(i == 0 ? "" : i + 1 == kinds.size() ? " and " : ", ", in_quotes(kinds[i]));
    throw ConfigError(it->second.key, cat(in_quotes(name), " applies to ", who, " entries only"));
  }
}

void check_series_file_keys(const PresentKeys& keys, const SeriesFileOptions& options) {
  const bool columns = options.layout == SeriesLayout::columns;
  for (const char* name : {"time_column", "value_columns"})
    if (const auto it = keys.find(name); it != keys.end() && !columns)
      throw ConfigError(it->second.key, cat("'", name, "' needs 'layout: columns'"));
  if (const auto it = keys.find("labels"); it != keys.end() && columns)
    throw ConfigError(it->second.key, "'labels' applies to 'layout: rows' only");
}

void check_kafka_keys(const PresentKeys& keys, std::initializer_list<const char*> required,
                      const std::map<std::string, std::string>& properties) {
  const SourceLocation& at = keys.find("kafka")->second.value;
  for (const char* name : required)
    if (keys.find(cat("kafka.", name)) == keys.end())
      throw ConfigError(at, cat("missing required key ", in_quotes(name), " in 'kafka'"));
  if (const auto why = stream::kafka_properties_problem(properties)) {
    const auto it = keys.find("kafka.properties");
    throw ConfigError(it == keys.end() ? at : it->second.value, cat("kafka properties: ", *why));
  }
}

const SourceLocation& value_at(const PresentKeys& keys, std::string_view key,
                               const SourceLocation& otherwise) {
  const auto it = keys.find(key);
  return it == keys.end() ? otherwise : it->second.value;
}

void check_stream_id(const std::string& id, const SourceLocation& where) {
  if (const auto reason = stream::invalid_stream_id_reason(id))
    throw ConfigError(where, cat("stream id ", in_quotes(id), ": ", std::string(*reason)));
}

std::int64_t period_ns(double ms) {
  WW_ASSERT(ms >= min_period_ms && ms <= max_period_ms,
            cat("period of ", std::to_string(ms), " ms passed the option table's bounds"));
  const auto ns = static_cast<std::int64_t>(std::llround(ms * 1e6));
  WW_ASSERT(ns >= 1, "a period within the bounds converts to >= 1 ns");
  return ns;
}

bool binds_any_port(std::string_view endpoint) {
  return endpoint.ends_with(":*") || endpoint.ends_with(":0");
}

void UniqueNames::add(const std::string& name, const SourceLocation& where) {
  const auto [it, inserted] = seen_.emplace(name, where);
  if (!inserted)
    throw ConfigError(where, cat("duplicate ", what_, " ", in_quotes(name), " (first at ",
                                 format_location(it->second), ")"));
}

}  // namespace warpwatch::config
