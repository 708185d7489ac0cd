#!/usr/bin/env python3
"""README.md's five-minute tutorial, followed word for word: the ```sh and ```yaml blocks of
its section "## Five minutes", in order, in a scratch folder where `build` and `config` lead
to the build and the checkout (the tutorial's relative paths). A ```yaml block is written
to the file its first line names (`# watch.yaml`); a ```sh block runs in bash with -e, and
its lines that start with `# ` are comments (the outputs the README shows). Then the events
file the tutorial's daemon wrote must hold the occurrence the tutorial cut, and the outputs
the README shows for `search --top` must be what the commands print.

    check_tutorial.py SOURCE_DIR BUILD_DIR
"""
import json
import os
import pathlib
import re
import subprocess
import sys
import tempfile


def blocks(readme):
    text = readme.read_text()
    start = text.index("\n## Five minutes")
    end = text.find("\n## ", start + 1)
    section = text[start:end if end != -1 else len(text)]
    return re.findall(r"```(sh|yaml)\n(.*?)```", section, flags=re.S)


def main():
    source, build = pathlib.Path(sys.argv[1]).resolve(), pathlib.Path(sys.argv[2]).resolve()
    found = blocks(source / "README.md")
    if not any(kind == "sh" for kind, _ in found):
        print("README.md: no ```sh block in '## Five minutes'")
        return 1
    with tempfile.TemporaryDirectory(prefix="warpwatch-tutorial-") as tmp:
        work = pathlib.Path(tmp)
        (work / "build").symlink_to(build)
        (work / "config").symlink_to(source / "config")
        printed = ""
        for kind, body in found:
            if kind == "yaml":
                name = body.splitlines()[0].lstrip("# ").strip()
                if not re.fullmatch(r"[\w.-]+\.yaml", name):
                    print(f"a yaml block must name its file on its first line: {name!r}")
                    return 1
                (work / name).write_text(body)
                continue
            run = subprocess.run(["bash", "-e", "-c", body], cwd=work, capture_output=True,
                                 text=True, timeout=120)
            print(f"$ {body.strip()}\n{run.stdout}{run.stderr}")
            if run.returncode != 0:
                print(f"the block above exited {run.returncode}")
                return 1
            printed += run.stdout
            # What the README shows after `# ` must be what was printed (its JSON events).
            for shown in re.findall(r"^# (\{.*\})$", body, flags=re.M):
                if shown not in run.stdout:
                    print(f"README shows {shown}\nbut the commands printed:\n{run.stdout}")
                    return 1
        events_path = work / "events.jsonl"
        if not events_path.exists():
            print("the tutorial's daemon wrote no events.jsonl")
            return 1
        events = [json.loads(line) for line in events_path.read_text().splitlines() if line]
        cut = [e for e in events if e["start_index"] == 1170 and e["end_index"] == 1229]
        print(f"events.jsonl: {len(events)} event(s), the cut occurrence among them: {bool(cut)}")
        if len(cut) != 1:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
