#!/usr/bin/env python3
"""Every citation of the project's documents points to a file and section that exist.

Usage: check_citations.py SOURCE_DIR

Scans the tracked sources, scripts and documents for
  - `docs/<path>.md §N[.N...]` (also `§N-§M`, `§N and §M`): the file exists and has a heading
    numbered N (`## 3. Modes`, `### 3.1 Stream mode`, ...);
  - `docs/<path>` without a section: the file or folder exists;
  - Markdown links `[text](relative/path)` in README.md and docs/: the target exists;
  - `SPEC.md` / `DESIGN.md`: documents outside the repository, never to be cited.
Prints every broken citation as file:line and fails when there is one.
"""
import pathlib
import re
import subprocess
import sys

TEXT_SUFFIXES = {".cpp", ".hpp", ".cu", ".cuh", ".h", ".md", ".txt", ".cmake", ".py", ".sh",
                 ".yaml", ".yml", ".service", ".conf", ""}
CITATION = re.compile(r"docs/([A-Za-z0-9_./-]+\.md)((?:\s*(?:§|and|,|-|or)\s*§?\d+(?:\.\d+)*)*)")
SECTION = re.compile(r"§(\d+(?:\.\d+)*)")
BARE_DOC = re.compile(r"(?<![A-Za-z0-9_./-])docs/([A-Za-z0-9_./-]*[A-Za-z0-9_/-])")
HEADING = re.compile(r"^#+\s+(\d+(?:\.\d+)*)[.\s]")
LINK = re.compile(r"\[[^\]]*\]\(([^)#\s]+)(?:#[^)]*)?\)")
OUTSIDE = re.compile(r"(?<![A-Za-z0-9_/.-])(SPEC|DESIGN)\.md")


def tracked_files(root):
    out = subprocess.run(["git", "-C", str(root), "ls-files", "-co", "--exclude-standard"],
                         check=True, capture_output=True, text=True).stdout
    return [root / f for f in out.splitlines() if f]


def sections_of(path, cache):
    if path not in cache:
        numbers = set()
        if path.is_file():
            in_code = False
            for line in path.read_text(errors="replace").splitlines():
                if line.startswith("```"):
                    in_code = not in_code
                elif not in_code and (m := HEADING.match(line)):
                    numbers.add(m.group(1))
        cache[path] = numbers
    return cache[path]


def main():
    root = pathlib.Path(sys.argv[1]).resolve()
    problems, cache, cited = [], {}, 0
    for path in tracked_files(root):
        rel = path.relative_to(root)
        if not path.is_file() or path.suffix not in TEXT_SUFFIXES or rel.parts[0].startswith("build"):
            continue
        if rel.parts[:3] == ("docs", "benchmarks", "results"):
            continue  # dated records quote what was true the day they were taken
        if rel.parts[:2] == ("tests", "docs"):
            continue  # this checker's own examples
        try:
            text = path.read_text()
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            where = f"{rel}:{number}"
            for m in CITATION.finditer(line):
                doc = root / "docs" / m.group(1)
                cited += 1
                if not doc.is_file():
                    problems.append(f"{where}: docs/{m.group(1)} does not exist")
                    continue
                for section in SECTION.findall(m.group(2)):
                    if section not in sections_of(doc, cache):
                        problems.append(f"{where}: docs/{m.group(1)} has no section §{section}")
            for m in BARE_DOC.finditer(line):
                target = root / "docs" / m.group(1)
                if not target.exists() and not any(target.parent.glob(target.name + "*")):
                    problems.append(f"{where}: docs/{m.group(1)} does not exist")
            if rel.suffix == ".md" and (rel.parts[0] == "docs" or len(rel.parts) == 1 or
                                        rel.name == "README.md"):
                for m in LINK.finditer(line):
                    target = m.group(1)
                    if re.match(r"^[a-z]+:", target):
                        continue  # http:, mailto:
                    if not (path.parent / target).exists():
                        problems.append(f"{where}: link to {target}, which does not exist")
            if OUTSIDE.search(line):
                problems.append(f"{where}: cites {OUTSIDE.search(line).group(0)}, which is not in "
                                "the repository (cite docs/spec.md or docs/architecture.md)")
    for p in problems:
        print("BROKEN CITATION:", p)
    print(f"citations: {cited} checked, {len(problems)} broken")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
