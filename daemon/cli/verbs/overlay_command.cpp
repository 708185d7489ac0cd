// `warpwatch overlay fold --config FILE [--state-dir D] [--dry-run]`: the runtime changes of
// libraries (the overlay of the state directory, docs/operations.md §4.1) written into the
// configuration file, the values of the patterns put through the overlay into CSV files
// beside it, and the overlay cleared; the file then loads to the configuration warpwatchd
// ran with the overlay (checked before the file is replaced). --dry-run prints the changes,
// the files it would write and the diff of the configuration, and writes nothing.
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "warpwatch/config/yaml_file.hpp"
#include "warpwatch/files/files.hpp"
#include "warpwatch/plugins/registry.hpp"
#include "warpwatch/service/library_overlay.hpp"

namespace warpwatch::cli {
namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t end = text.find('\n', at);
    lines.push_back(text.substr(at, end == std::string::npos ? std::string::npos : end - at));
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return lines;
}

// The lines removed ("-") and added ("+") from `before` to `after` (a longest common
// subsequence of lines; configuration files are short).
void print_diff(std::ostream& out, const std::string& before, const std::string& after) {
  const auto a = lines_of(before), b = lines_of(after);
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::uint32_t>> lcs(n + 1, std::vector<std::uint32_t>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;)
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  std::size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) {
      ++i, ++j;
    } else if (j < m && (i == n || lcs[i][j + 1] > lcs[i + 1][j])) {
      out << "+" << b[j++] << "\n";
    } else {
      out << "-" << a[i++] << "\n";
    }
  }
}

bool same_libraries(const std::vector<config::Library>& a, const std::vector<config::Library>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (a[k].name != b[k].name || a[k].exclusive != b[k].exclusive ||
        a[k].patterns != b[k].patterns)
      return false;
  return true;
}

}  // namespace

CLI::App* add_overlay_command(CLI::App& app, OverlayCommand& cmd) {
  auto* overlay = app.add_subcommand(
      "overlay", "the runtime changes of libraries kept in a state directory (the overlay)");
  overlay->require_subcommand(1);
  auto* fold = overlay->add_subcommand(
      "fold",
      "write the overlay into the configuration file (the values of patterns put at runtime "
      "into CSV files beside it) and clear it; the file is re-emitted, without its comments");
  fold->add_option("-c,--config", cmd.config_path, "the YAML configuration")->required();
  fold->add_option("--state-dir", cmd.state_dir,
                   "the state directory holding the overlay (default: the file's state.dir)");
  fold->add_flag("--dry-run", cmd.dry_run,
                 "print the changes, the files and the diff of the configuration; write nothing");
  return overlay;
}

int run_overlay_fold(const OverlayCommand& cmd, std::ostream& out, std::ostream& err) {
  const std::string text = config::read_config_text(cmd.config_path);
  const config::DaemonConfig file = plugins::parse_daemon_config(text, cmd.config_path);
  const std::string state_dir = cmd.state_dir.empty() ? file.state_dir : cmd.state_dir;
  if (state_dir.empty()) {
    err << "warpwatch overlay fold: " << cmd.config_path
        << " has no state.dir: name the overlay's with --state-dir\n";
    return 1;
  }
  const service::Overlay overlay = service::read_overlay(state_dir);
  const std::string overlay_file = service::overlay_path(state_dir).string();
  if (overlay.empty()) {
    out << "nothing to fold: no overlay in " << overlay_file << "\n";
    return 0;
  }
  // What warpwatchd runs; the folded file must load to the same libraries.
  const config::DaemonConfig merged = service::merge_overlay(text, cmd.config_path, overlay);
  const service::FoldedConfig folded = service::fold_overlay(text, cmd.config_path, overlay);
  out << "overlay " << overlay_file << ":\n";
  for (const std::string& line : service::describe_overlay(overlay, file.live.libraries))
    out << "  " << line << "\n";
  if (cmd.dry_run) {
    for (const auto& [path, csv] : folded.files)
      out << "would write " << path.string() << " (" << lines_of(csv).size() << " samples)\n";
    out << "--- " << cmd.config_path << "\n+++ " << cmd.config_path << " (folded)\n";
    print_diff(out, text, folded.text);
    return 0;
  }
  for (const auto& [path, csv] : folded.files) {
    std::filesystem::create_directories(path.parent_path());
    files::write_file_atomically(path, csv);
    out << "wrote " << path.string() << "\n";
  }
  const config::DaemonConfig check = plugins::parse_daemon_config(folded.text, cmd.config_path);
  if (!same_libraries(check.live.libraries, merged.live.libraries)) {
    err << "warpwatch overlay fold: the folded file would not load to the libraries in effect; "
           "nothing folded\n";
    return 1;
  }
  files::write_file_atomically(cmd.config_path, folded.text);
  service::write_overlay(state_dir, {});
  out << "wrote " << cmd.config_path << "; the overlay is cleared (" << overlay_file
      << " removed): reload warpwatchd (SIGHUP) to run from the file\n";
  return 0;
}

}  // namespace warpwatch::cli
