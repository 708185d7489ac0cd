// `warpwatch check-config FILE`: loads a daemon configuration as warpwatchd would and
// prints its warnings (file:line:column: warning: message) and a one-screen summary, or the
// first error as file:line:column: message (docs/cli.md: exit 0, or 1 on an error).
// `--reference` prints the configuration reference (docs/configuration.md §3) from the option
// table.
#include <map>
#include <ostream>
#include <sstream>
#include <string>

#include "commands.hpp"
#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/config/options.hpp"
#include "warpwatch/config/yaml_file.hpp"
#include "warpwatch/plugins/registry.hpp"
#include "warpwatch/service/library_overlay.hpp"

namespace warpwatch::cli {
namespace {

// Long lists are cut so that the summary fits a screen.
constexpr std::size_t max_lines_per_list = 8;

std::string join(const std::vector<std::string>& items, const char* separator = ",") {
  std::string s;
  for (const auto& item : items) {
    if (!s.empty()) s += separator;
    s += item;
  }
  return s;
}

// Numbers as people write them: 10, 0.5, 100 (not 10.000000).
std::string number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

std::string ms(std::int64_t ns) {
  return number(static_cast<double>(ns) / 1e6) + " ms";
}

template <class Items, class Print>
void print_list(std::ostream& out, const char* title, const Items& items, Print print) {
  out << title << " (" << items.size() << ")\n";
  std::size_t shown = 0;
  for (const auto& item : items) {
    if (shown++ == max_lines_per_list) {
      out << "  ... and " << items.size() - max_lines_per_list << " more\n";
      break;
    }
    out << "  ";
    print(item);
    out << "\n";
  }
}

void print_summary(const config::DaemonConfig& c, std::ostream& out) {
  out << c.source_file << ": OK";
  if (!c.warnings.empty()) out << ", " << c.warnings.size() << " warning(s)";
  out << "\n";
  out << "instance " << c.instance << ", backend " << kernels::to_string(c.backend)
      << ", cpu threads " << (c.cpu_threads ? std::to_string(c.cpu_threads) : "all") << ", tick "
      << c.tick.count() << " ms, batch "
      << (c.batch_samples
              ? std::to_string(c.batch_samples)
              : "by the backend (" + std::to_string(config::batch_samples_cpu) + " on cpu, " +
                    std::to_string(config::batch_samples_cuda) + " on cuda)")
      << " samples\n";
  print_list(out, "ingest", c.ingest, [&](const config::IngestSource& s) {
    out << plugins::source_plugin(s.kind).describe(s);
  });
  out << "streams: " << c.live.streams.size() << " declared, auto-create "
      << (c.live.auto_create_streams
              ? std::string("on (dims ") + std::to_string(c.live.auto_dims) + ", period " +
                    ms(c.live.auto_period_ns) + ", max " + std::to_string(c.live.max_streams) + ")"
              : std::string("off"))
      << ", messages up to " << c.max_message_bytes << " bytes\n";
  print_list(out, "declared streams", c.live.streams, [&](const config::StreamDecl& s) {
    out << s.def.id << ": dims " << s.def.dims << ", period " << ms(s.def.nominal_period_ns);
  });
  print_list(out, "libraries", c.live.libraries, [&](const config::Library& lib) {
    std::map<std::string, std::size_t> kinds;  // "dtw/stream" -> count
    for (const auto& p : lib.patterns)
      ++kinds[std::string(kernels::to_string(p.params.distance.metric)) + "/" +
              std::string(kernels::to_string(p.params.mode))];
    std::vector<std::string> parts;
    for (const auto& [kind, n] : kinds) parts.push_back(kind + " " + std::to_string(n));
    out << lib.name << ": " << lib.patterns.size() << " pattern"
        << (lib.patterns.size() == 1 ? "" : "s") << (parts.empty() ? "" : " (") << join(parts, ", ")
        << (parts.empty() ? "" : ")");
  });
  print_list(out, "rules", c.live.rules, [&](const config::Rule& r) {
    out << r.name << ": streams " << join(r.streams) << ", patterns " << join(r.patterns)
        << ", libraries " << join(r.libraries) << ", threshold "
        << (r.threshold ? number(*r.threshold) : std::string("the pattern's")) << ", cooldown "
        << r.cooldown.count() << " ms, severity " << config::to_string(r.severity) << ", resolve "
        << r.resolve.count() << " ms";
    std::vector<std::string> labels;
    for (const auto& [k, v] : r.labels) labels.push_back(k + "=" + v);
    if (!labels.empty()) out << ", labels " << join(labels);
  });
  print_list(out, "sinks", c.sinks,
             [&](const config::SinkConfig& s) { out << plugins::sink_plugin(s.kind).describe(s); });
  out << "publish " << c.publish_endpoint << " (send hwm " << c.send_high_water_mark << ")"
      << (c.events_file ? std::string(", events file ") + *c.events_file : std::string())
      << ", drain grace " << c.drain_grace.count() << " ms\n";
  if (c.http.listen.empty()) {
    out << "http off\n";
  } else {
    out << "http " << c.http.listen << (c.http.tls() ? " (TLS)" : "") << ", "
        << (c.http.tokens.empty()
                ? std::string("no tokens (loopback: every caller may do everything)")
                : std::to_string(c.http.tokens.size()) + " token(s) from " + c.http.tokens_file)
        << (c.http.metrics_auth ? ", /metrics behind tokens" : "")
        << (c.http.external_url.empty() ? std::string(", no links")
                                        : ", links under " + c.http.external_url)
        << "\n";
  }
  if (c.curve.enabled)
    out << "curve on: the daemon's public key " << c.curve.keys.public_key << ", "
        << c.curve.allowed_clients.size() << " client key(s) allowed\n";
  else
    out << "curve off: the ZeroMQ sockets are plain\n";
}

}  // namespace

CLI::App* add_check_config_command(CLI::App& app, CheckConfigCommand& cmd) {
  auto* sub =
      app.add_subcommand("check-config",
                         "validate a warpwatchd configuration file and summarize it; warnings "
                         "are printed (file:line:column: warning: message) and exit 0, the first "
                         "error exits 1 (file:line:column: message)");
  sub->add_option("FILE", cmd.path, "the YAML configuration");
  sub->add_option("--state-dir", cmd.state_dir,
                  "the state directory whose overlay (runtime changes of libraries) is shown and "
                  "validated with the file (default: the file's state.dir)");
  sub->add_flag("--reference", cmd.reference,
                "print the configuration reference (every option, its type, default and "
                "range) as a markdown table");
  return sub;
}

int run_check_config(const CheckConfigCommand& cmd, std::ostream& out, std::ostream& err) {
  plugins::register_builtin_plugins();  // the ingest kinds' options
  if (cmd.reference) {
    out << config::options_reference_markdown();
    return 0;
  }
  if (cmd.path.empty()) {
    err << "warpwatch check-config: FILE is required (or --reference)\n";
    return 1;
  }
  try {
    // The file alone first (its errors name file:line:column), then with the overlay of
    // the state directory on top, as warpwatchd runs it.
    const std::string text = config::read_config_text(cmd.path);
    const config::DaemonConfig file = plugins::parse_daemon_config(text, cmd.path);
    const std::string state_dir = cmd.state_dir.empty() ? file.state_dir : cmd.state_dir;
    const service::Overlay overlay = service::read_overlay(state_dir);
    const config::DaemonConfig config =
        overlay.empty() ? file : service::merge_overlay(text, cmd.path, overlay);
    config::check_cuda_devices(config);
    for (const config::ConfigWarning& w : config.warnings) err << w.text() << "\n";
    print_summary(config, out);
    if (state_dir.empty()) {
      out << "overlay: none (no state.dir)\n";
    } else if (overlay.empty()) {
      out << "overlay: none in " << service::overlay_path(state_dir).string() << "\n";
    } else {
      const auto lines = service::describe_overlay(overlay, file.live.libraries);
      print_list(out, ("overlay " + service::overlay_path(state_dir).string()).c_str(), lines,
                 [&](const std::string& line) { out << line; });
    }
  } catch (const service::OverlayError& e) {
    err << "warpwatch check-config: the overlay: " << e.what() << "\n";
    return 1;
  } catch (const config::ConfigError& e) {
    err << e.what() << "\n";  // file:line:column: message, as editors and compilers say it
    return 1;
  } catch (const std::exception& e) {  // not a configuration mistake: say who failed
    err << "warpwatch check-config: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace warpwatch::cli
