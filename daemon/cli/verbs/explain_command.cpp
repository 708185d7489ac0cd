// `warpwatch explain ID --url URL`: an event of a running warpwatchd, from its HTTP API (http
// or https)
// (GET /api/v1/events/{id}): the event, its threshold and how its segment aligned with its
// pattern (the path's first and last steps, the total); -o writes the plot (plot.svg).
#include <nlohmann/json.hpp>

#include <cctype>
#include <cstdlib>
#include <iomanip>
#include <ostream>
#include <stdexcept>

#include "commands.hpp"
#include "warpwatch/bench/loopback.hpp"
#include "warpwatch/config/http_url.hpp"
#include "warpwatch/files/files.hpp"

namespace warpwatch::cli {
namespace {

constexpr auto request_timeout = std::chrono::milliseconds(10000);
constexpr std::size_t steps_shown_whole = 12;  // longer paths: the first and last 5 steps
constexpr std::size_t steps_each_end = 5;

std::string token_of(const ExplainCommand& cmd) {
  std::string token;
  if (!cmd.token_file.empty()) {
    token = files::read_whole_file(cmd.token_file);
  } else if (const char* env = std::getenv("WARPWATCH_TOKEN")) {
    token = env;
  }
  while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) token.pop_back();
  return token;
}

// The daemon's API as the command reaches it.
struct Api {
  config::HttpUrl url;
  std::string token;
  bench::HttpTls tls;
};

// GET {url}{path}: the answer's body; a non-200 answer throws with its problem's detail.
std::string get(const Api& api, const std::string& path) {
  std::string target = api.url.target;
  if (!target.ends_with('/')) target += '/';
  target += path;
  std::vector<std::pair<std::string, std::string>> headers;
  if (!api.token.empty()) headers.emplace_back("Authorization", "Bearer " + api.token);
  std::string why;
  const auto r =
      bench::http_get(api.url.host, api.url.port, target, request_timeout, &why, headers, api.tls);
  const std::string where =
      std::string(api.url.tls ? "https://" : "http://") + api.url.authority() + target;
  if (!r) throw std::runtime_error("GET " + where + ": " + why);
  if (r->status != 200) {
    std::string detail = r->body;
    try {
      detail = nlohmann::json::parse(r->body).at("detail").get<std::string>();
    } catch (const nlohmann::json::exception&) {
    }
    throw std::runtime_error("GET " + where + ": " + std::to_string(r->status) + " " + detail);
  }
  return r->body;
}

void print_step(std::ostream& out, std::size_t i, const nlohmann::json& step,
                const nlohmann::json& operations) {
  out << std::setw(6) << i << std::setw(14) << step.at(0).get<std::uint64_t>() << std::setw(13)
      << step.at(1).get<std::uint64_t>() << std::setw(14) << step.at(2).get<double>();
  if (operations.is_array() && i < operations.size())
    out << "  " << operations[i].get<std::string>();
  out << "\n";
}

void print_event(std::ostream& out, const nlohmann::json& e) {
  // One event's `pattern` is the pattern as matched (the list's: its id).
  const nlohmann::json& pattern = e.at("pattern");
  const std::string pattern_id =
      pattern.is_object() ? pattern.at("id").get<std::string>() : pattern.get<std::string>();
  out << "event " << e.at("id").get<std::string>() << "\n"
      << "  stream " << e.at("stream").get<std::string>() << ", pattern " << e.value("library", "")
      << "/" << pattern_id << " (" << e.value("metric", "") << ", " << e.value("mode", "") << ")\n"
      << "  samples " << e.at("start_index").get<std::uint64_t>() << " to "
      << e.at("end_index").get<std::uint64_t>() << "\n"
      << "  distance " << e.at("distance").get<double>() << ", threshold "
      << e.at("threshold").get<double>() << "\n";
  const nlohmann::json& x = e.at("explanation");
  const nlohmann::json& steps = x.at("steps");
  const nlohmann::json operations = x.value("operations", nlohmann::json());
  out << "explanation: " << x.at("kind").get<std::string>() << ", " << steps.size() << " steps\n  "
      << x.value("note", "") << "\n";
  if (!steps.empty()) {
    out << "  step  stream_index  pattern_row          cost\n";
    const bool whole = steps.size() <= steps_shown_whole;
    for (std::size_t i = 0; i < steps.size(); ++i) {
      if (!whole && i == steps_each_end) {
        out << "   ... " << steps.size() - 2 * steps_each_end << " steps\n";
        i = steps.size() - steps_each_end;
      }
      print_step(out, i, steps[i], operations);
    }
  }
  out << "  total " << x.at("total").get<double>() << "\n";
}

}  // namespace

CLI::App* add_explain_command(CLI::App& app, ExplainCommand& cmd) {
  auto* sub = app.add_subcommand(
      "explain",
      "show an event of a running warpwatchd (its HTTP API): the event, its threshold and how its "
      "segment aligned with its pattern (docs/spec.md §7)");
  sub->add_option("id", cmd.id, "the event's id")->required();
  sub->add_option("--url", cmd.url,
                  "warpwatchd's HTTP server: http://HOST:PORT or https://HOST:PORT")
      ->required();
  sub->add_option("--ca-file", cmd.ca_file,
                  "https: trust this certificate (PEM: the daemon's own self-signed one, or its "
                  "CA) besides the system's")
      ->check(CLI::ExistingFile);
  sub->add_option("--token-file", cmd.token_file,
                  "a file holding the bearer token (default: $WARPWATCH_TOKEN, or none)");
  sub->add_option("-o,--output", cmd.plot, "write the event's plot (SVG) to this file");
  return sub;
}

int run_explain(const ExplainCommand& cmd, std::ostream& out, std::ostream& err) {
  std::string why;
  const auto url = config::parse_http_url(cmd.url, &why, true);
  if (!url) {
    err << "warpwatch explain: --url " << cmd.url << ": " << why << "\n";
    return 2;
  }
  if (!cmd.ca_file.empty() && !url->tls) {
    err << "warpwatch explain: --ca-file is for an https:// --url\n";
    return 2;
  }
  const Api api{*url, token_of(cmd), {url->tls, cmd.ca_file}};
  const std::string path = "api/v1/events/" + cmd.id;
  print_event(out, nlohmann::json::parse(get(api, path)));
  if (!cmd.plot.empty()) {
    files::write_file_atomically(cmd.plot, get(api, path + "/plot.svg"));
    out << "plot written to " << cmd.plot << "\n";
  }
  return 0;
}

}  // namespace warpwatch::cli
