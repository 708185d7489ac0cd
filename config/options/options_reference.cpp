// The configuration reference of docs/configuration.md §3, generated from the option table so that
// the documentation cannot drift from what the reader accepts.
#include <cmath>
#include <sstream>

#include "warpwatch/config/options.hpp"

namespace warpwatch::config {
namespace {

// Integral bounds print without a fraction; others in the shortest form.
std::string number_text(double v) {
  std::ostringstream s;
  if (v == std::floor(v) && std::abs(v) < 1e15)
    s << static_cast<long long>(v);
  else
    s << v;
  return s.str();
}

std::string code(std::string_view text) {
  std::string s = "`";
  s += text;
  s += '`';
  return s;
}

std::string default_text(const OptionInfo& option) {
  if (option.required) return "required";
  if (option.type == OptionType::section) return "";
  if (option.default_yaml.empty()) return option.type == OptionType::list ? "none" : "unset";
  return code(option.default_yaml);
}

}  // namespace

std::string_view to_string(OptionType type) {
  switch (type) {
    case OptionType::string:
      return "string";
    case OptionType::path:
      return "path";
    case OptionType::endpoint:
      return "endpoint";
    case OptionType::listen:
      return "host:port";
    case OptionType::url:
      return "URL";
    case OptionType::socket:
      return "address";
    case OptionType::boolean:
      return "boolean";
    case OptionType::integer:
      return "integer";
    case OptionType::number:
      return "number";
    case OptionType::choice:
      return "choice";
    case OptionType::string_list:
      return "list of strings";
    case OptionType::string_map:
      return "map of strings";
    case OptionType::number_list:
      return "list of numbers";
    case OptionType::samples:
      return "samples";
    case OptionType::devices:
      return "devices";
    case OptionType::columns:
      return "list of columns";
    case OptionType::section:
      return "section";
    case OptionType::list:
      return "list of maps";
  }
  return "?";
}

std::string allowed_values_text(const OptionInfo& option) {
  if (!option.allowed.empty()) return std::string(option.allowed);
  switch (option.type) {
    case OptionType::choice: {
      std::string s;
      for (const std::string_view c : option.choices) {
        if (!s.empty()) s += ", ";
        s += code(c);
      }
      return s;
    }
    case OptionType::integer:
    case OptionType::number: {
      if (option.min && option.max)
        return option.min_exclusive
                   ? "> " + number_text(*option.min) + " and <= " + number_text(*option.max)
                   : number_text(*option.min) + " to " + number_text(*option.max);
      std::string s;  // appended: GCC 12 warns falsely (-Wrestrict) on "x" + std::string
      if (option.min) {
        s = option.min_exclusive ? "> " : ">= ";
        s += number_text(*option.min);
      }
      if (option.max) {
        s = "<= ";
        s += number_text(*option.max);
      }
      if (s.empty() && option.type == OptionType::number) s = "finite";
      return s;
    }
    case OptionType::string:
    case OptionType::string_list:
      return option.min ? "non-empty" : "";
    case OptionType::path:
      return "relative to the config file";
    case OptionType::endpoint:
      return "`tcp://host:port` (port 0 to 65535 or `*`), `ipc://path` (at most 107 bytes), "
             "`inproc://name`";
    case OptionType::listen:
      return "`host:port` or `\"\"`";
    case OptionType::url:
      return "`http://host[:port][/path]`";
    case OptionType::socket:
      return "`tcp://host:port`, `udp://host:port`";
    case OptionType::samples:
      return "at least 2 samples, 1 to 64 values each";
    case OptionType::devices:
      return "`all`, or a list of device indices 0 to 1023 (each once, below the machine's "
             "device count)";
    case OptionType::columns:
      return "0-based column indices 0 to 1048576, each once";
    default:
      return "";
  }
}

std::string options_reference_markdown() {
  std::string s =
      "| option | type | default | allowed | what it does |\n"
      "| --- | --- | --- | --- | --- |\n";
  for (const OptionInfo& option : option_table()) {
    s += "| ";
    s += code(option.name);
    s += " | ";
    s += to_string(option.type);
    s += " | ";
    s += default_text(option);
    s += " | ";
    s += allowed_values_text(option);
    s += " | ";
    s += option.help;
    s += " |\n";
  }
  return s;
}

}  // namespace warpwatch::config
