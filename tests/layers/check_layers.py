#!/usr/bin/env python3
"""The layers of docs/architecture.md §3, checked on the build's own dependency graph.

Usage: check_layers.py SOURCE_DIR DOT_FILE

DOT_FILE is CMake's `--graphviz` output for SOURCE_DIR (check_layers.sh makes it). Two
checks, each printing every violation it finds and failing the run:
  1. links: what each library reaches through target_link_libraries (direct or not, public
     or private) stays within its layer: the kernels reach no broker client, socket or file
     format library; the bottom layer reaches no project library.
  2. includes: the `#include "warpwatch/<room>/..."` lines of each source folder name only
     the rooms below it (a header-only use is a dependency too, and the graph cannot see it),
     besides the few headers ALLOWED_HEADERS names.
  3. plugins (docs/architecture.md §3.1): a plugin folder (daemon/plugins/in_<kind>/,
     out_<kind>/) includes no other plugin's header, and the service, the CLI and the bench
     include none: they reach the kinds through the registry only, shared parts through
     daemon/plugins/include/warpwatch/plugins/.
"""
import pathlib
import re
import sys

# Library -> names (regular expressions on the graph's labels) it must never reach.
IO_CLIENTS = [r"rdkafka", r"mosquitto", r"zmq", r"yaml-cpp", r"spdlog", r"prometheus",
              r"systemd", r"nlohmann", r"CLI11", r"ZLIB"]
FORBIDDEN_LINKS = {
    "warpwatch_base": [r"^warpwatch_(?!project_options$)"] + IO_CLIENTS + [r"hwy", r"fftw"],
    # The files written whole (base/files/): the bottom layer's one library with I/O.
    "warpwatch_files": [r"^warpwatch_(?!project_options$)"] + IO_CLIENTS + [r"hwy", r"fftw"],
    "warpwatch_kernels": [r"^warpwatch_(?!base$|project_options$)"] + IO_CLIENTS,
    "warpwatch_stream_mapping": [r"^warpwatch_(?!base$|project_options$)", r"rdkafka", r"zmq"],
    "warpwatch_kafka_client": [r"^warpwatch_(?!base$|project_options$)", r"mosquitto", r"zmq"],
    "warpwatch_curve": [r"^warpwatch_(?!project_options$)"],
    "warpwatch_stream": [r"^warpwatch_(kernels|config|alerting|plugins|service|cli|bench)"],
    "warpwatch_config": [r"^warpwatch_(stream|alerting|plugins|service|cli|bench|checkpoint)$"],
    "warpwatch_alerting": [r"^warpwatch_(stream|plugins|service|cli|bench)$"],
    # The plugins sit above the configuration, ingest and alerting, below the service: they
    # fill the configuration's option table and make the sources the service runs.
    "warpwatch_plugins": [r"^warpwatch_(service|cli|bench|checkpoint)$"],
    # Learning (daemon/learn/) computes on the kernels alone: the CLI reads and writes files.
    "warpwatch_learn": [r"^warpwatch_(?!base$|kernels$|project_options$)"] + IO_CLIENTS,
    # The reports' charts and pages (daemon/report/): text in, text out, written whole.
    "warpwatch_report": [r"^warpwatch_(?!files$|project_options$)"] + IO_CLIENTS,
    # Explanations of events (daemon/explain/): the kernels' paths, the reports' charts and
    # JSON; nothing of the configuration, ingest, alerting or the service.
    "warpwatch_explain": [r"^warpwatch_(?!base$|kernels$|report$|files$|project_options$)"]
    + [c for c in IO_CLIENTS if c != r"nlohmann"],
}

# Source folder -> the header rooms (`warpwatch/<room>/`) its files may include.
ALLOWED_INCLUDES = {
    "base": ["base", "files"],  # files/ is warpwatch_files (its links are checked apart)
    "kernels": ["base", "kernels"],
    "stream": ["base", "stream"],
    "config": ["base", "kernels", "stream", "config"],
    "daemon/alerting": ["base", "kernels", "stream", "config", "alerting"],
    "daemon/plugins": ["base", "kernels", "stream", "config", "alerting", "plugins"],
    "daemon/learn": ["base", "kernels", "learn"],
    "daemon/report": ["files", "report"],
    "daemon/explain": ["base", "kernels", "report", "explain"],
}
# Headers a folder may include outside its rooms: the loggers every daemon component is
# handed (warpwatch_logging, a library of its own in daemon/service/).
ALLOWED_HEADERS = {
    "daemon/alerting": ["warpwatch/service/logging.hpp"],
    "daemon/plugins": ["warpwatch/service/logging.hpp"],
}
# Headers a folder must not include although its room allows them: the backends' common code
# reads the Matcher's types (types.hpp), not the interface they implement.
FORBIDDEN_HEADERS = {
    "kernels/common": ["warpwatch/kernels/matcher.hpp"],
}


def read_graph(dot_path):
    labels, edges = {}, {}
    node = re.compile(r'^\s*"(node\d+)"\s*\[\s*label\s*=\s*"([^"]*)"')
    edge = re.compile(r'^\s*"(node\d+)"\s*->\s*"(node\d+)"')
    for line in pathlib.Path(dot_path).read_text().splitlines():
        if m := node.match(line):
            labels[m.group(1)] = m.group(2)
        elif m := edge.match(line):
            edges.setdefault(m.group(1), set()).add(m.group(2))
    return labels, edges


def reachable(start, edges):
    seen, todo = set(), [start]
    while todo:
        for nxt in edges.get(todo.pop(), ()):
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def check_links(dot_path):
    labels, edges = read_graph(dot_path)
    by_label = {label: node for node, label in labels.items()}
    problems = []
    for library, forbidden in FORBIDDEN_LINKS.items():
        if library not in by_label:
            problems.append(f"{library}: not in the dependency graph (renamed? update the rules)")
            continue
        reached = sorted(labels[n] for n in reachable(by_label[library], edges))
        for name in reached:
            if any(re.search(rule, name) for rule in forbidden):
                problems.append(f"{library} reaches {name}")
        print(f"links: {library} reaches {len(reached)} targets: {', '.join(reached) or '-'}")
    return problems


def check_includes(source_dir):
    problems = []
    include = re.compile(r'^\s*#\s*include\s*[<"](warpwatch/([a-z_]+)/[^>"]*)[>"]')
    for folder, allowed in ALLOWED_INCLUDES.items():
        files = [p for p in (source_dir / folder).rglob("*")
                 if p.suffix in {".cpp", ".hpp", ".cu", ".cuh", ".h"}]
        for path in files:
            for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                m = include.match(line)
                if (m and m.group(2) not in allowed
                        and m.group(1) not in ALLOWED_HEADERS.get(folder, [])):
                    rel = path.relative_to(source_dir)
                    problems.append(f"{rel}:{number}: {folder}/ includes warpwatch/{m.group(2)}/ "
                                    f"(allowed: {', '.join(allowed)})")
        print(f"includes: {folder}/: {len(files)} files checked")
    for folder, headers in FORBIDDEN_HEADERS.items():
        for path in (source_dir / folder).rglob("*"):
            if path.suffix not in {".cpp", ".hpp", ".cu", ".cuh", ".h"}:
                continue
            for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                for header in headers:
                    if re.match(r'^\s*#\s*include\s*[<"]' + re.escape(header) + '[>"]', line):
                        problems.append(f"{path.relative_to(source_dir)}:{number}: {folder}/ "
                                        f"includes {header}")
    return problems


# Folders that reach the plugins only through the registry and the shared headers.
REGISTRY_ONLY = ["daemon/service", "daemon/cli", "daemon/bench"]


def check_plugin_folders(source_dir):
    problems = []
    plugin_include = re.compile(r'^\s*#\s*include\s*"((?:in|out)_[a-z0-9_]+)/[^"]*"')
    plugins = source_dir / "daemon/plugins"
    folders = sorted(p for p in plugins.iterdir()
                     if p.is_dir() and re.match(r"(in|out)_", p.name))
    checked = [(f, f.name) for f in folders] + [(source_dir / f, None) for f in REGISTRY_ONLY]
    for folder, own in checked:
        for path in folder.rglob("*"):
            if path.suffix not in {".cpp", ".hpp", ".h"}:
                continue
            for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                m = plugin_include.match(line)
                if m and m.group(1) != own:
                    problems.append(f"{path.relative_to(source_dir)}:{number}: includes the plugin "
                                    f"{m.group(1)}/ (only registry.cpp names plugins)")
    print(f"plugins: {len(folders)} plugin folders and {', '.join(REGISTRY_ONLY)} checked")
    return problems


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    source_dir, dot_path = pathlib.Path(sys.argv[1]), sys.argv[2]
    problems = (check_links(dot_path) + check_includes(source_dir)
                + check_plugin_folders(source_dir))
    for p in problems:
        print("LAYER VIOLATION:", p)
    if problems:
        print(f"{len(problems)} layer violation(s); the layers are in docs/architecture.md §3")
        return 1
    print("layers: every rule holds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
