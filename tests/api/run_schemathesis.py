#!/usr/bin/env python3
"""Fuzzes warpwatchd's HTTP API against the OpenAPI document it serves (schemathesis).

A real warpwatchd on a free loopback port, with a tokens file and auto-created streams;
schemathesis (PyPI, installed into a venv in
the build tree on first use) runs with the write token against /api/v1/openapi.json, bounded
in examples and time. Checks: all of schemathesis' (no 5xx, status codes and content types
documented, bodies conforming to their schemas, negative data rejected, ...) — see tests/api/
README.md. Exit 77 (ctest: skipped) only when the venv cannot be made because PyPI cannot be
reached; any other failure fails.

usage: run_schemathesis.py WARPWATCHD BUILD_DIR
"""
import hashlib
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

SCHEMATHESIS = "schemathesis==4.32.5"
MAX_EXAMPLES = "30"


def venv_with_schemathesis(build_dir):
    venv = os.path.join(build_dir, "schemathesis-venv")
    exe = os.path.join(venv, "bin", "schemathesis")
    if os.path.exists(exe):
        return exe
    subprocess.run([sys.executable, "-m", "venv", venv], check=True)
    pip = subprocess.run([os.path.join(venv, "bin", "pip"), "install", "-q", SCHEMATHESIS],
                         capture_output=True, text=True)
    if pip.returncode != 0:
        print(pip.stdout + pip.stderr)
        unreachable = any(w in pip.stderr for w in
                          ("Could not find a version", "Failed to establish", "Network is unreachable",
                           "Temporary failure in name resolution", "No matching distribution"))
        if unreachable:
            print("SKIPPED: PyPI cannot be reached to install " + SCHEMATHESIS)
            sys.exit(77)
        sys.exit("pip install " + SCHEMATHESIS + " failed")
    return exe


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(port, daemon, seconds=30):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if daemon.poll() is not None:
            sys.exit("warpwatchd exited with status %d" % daemon.returncode)
        try:
            with urllib.request.urlopen("http://127.0.0.1:%d/healthz" % port, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.1)
    sys.exit("warpwatchd did not become healthy within %d s" % seconds)


def main():
    warpwatchd, build_dir = sys.argv[1], sys.argv[2]
    schemathesis = venv_with_schemathesis(build_dir)
    with tempfile.TemporaryDirectory(prefix="warpwatch_schemathesis_") as tmp:
        write_token, read_token = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        with open(os.path.join(tmp, "tokens"), "w") as f:
            for name, role, token in (("fuzzer", "write", write_token), ("viewer", "read", read_token)):
                f.write("%s %s %s\n" % (name, role, hashlib.sha256(token.encode()).hexdigest()))
        port = free_port()
        with open(os.path.join(tmp, "warpwatch.yaml"), "w") as f:
            f.write("backend: cpu\n"
                    "streams: {auto_create: true}\n"
                    "ingest:\n  - pull: tcp://127.0.0.1:*\n"
                    "publish: {endpoint: 'tcp://127.0.0.1:*'}\n"
                    # A library and a state.dir: the library routes answer more than 404/403.
                    "state: {dir: state, checkpoint_ms: 0}\n"
                    "libraries:\n  - name: shapes\n"
                    "    defaults: {metric: dtw, mode: stream, threshold: 1}\n"
                    "    patterns:\n      - {id: blip, values: [5, -5]}\n"
                    "http:\n  listen: 127.0.0.1:%d\n  tokens_file: tokens\n" % port)
        # A change of a pattern that exists without If-Match is 428 (Precondition Required):
        # a schema cannot say "required when the pattern exists", so 428 is accepted for
        # schema-valid requests as 409 (a stale ETag) is by default.
        # POST /api/v1/learn and /backtest: a schema-valid body may still be a 400 or 422 (their
        # fields' rules across fields, the configuration's checks of a pattern, the ranges'
        # samples: not repeated in the document), and each takes at most 15 examples (the
        # suite's time).
        with open(os.path.join(tmp, "schemathesis.toml"), "w") as f:
            f.write("[checks.positive_data_acceptance]\n"
                    "expected-statuses = [\"2xx\", \"3xx\", \"401\", \"403\", \"404\", "
                    "\"409\", \"428\", \"429\", \"5xx\"]\n"
                    "\n[[operations]]\n"
                    "include-operation-id = [\"learn\", \"backtest\"]\n"
                    "generation.max-examples = 15\n"
                    "checks.positive_data_acceptance.expected-statuses = [\"2xx\", \"400\", "
                    "\"401\", \"403\", \"404\", \"422\", \"429\"]\n")
        log = open(os.path.join(tmp, "warpwatchd.log"), "w")
        daemon = subprocess.Popen([warpwatchd, "-c", os.path.join(tmp, "warpwatch.yaml")],
                                  stdout=log, stderr=subprocess.STDOUT)
        try:
            wait_ready(port, daemon)
            run = subprocess.run(
                [schemathesis, "--no-color", "run", "http://127.0.0.1:%d/api/v1/openapi.json" % port,
                 "--header", "Authorization: Bearer " + write_token,
                 "--checks", "all",
                 "--max-examples", MAX_EXAMPLES,
                 "--max-time", "60",
                 "--request-timeout", "10"],
                timeout=240, cwd=tmp)
            status = run.returncode
        finally:
            daemon.terminate()
            daemon.wait(timeout=30)
            log.close()
        if status != 0:
            print(open(os.path.join(tmp, "warpwatchd.log")).read()[-4000:])
            sys.exit("schemathesis failed (status %d)" % status)
        if daemon.returncode != 0:
            sys.exit("warpwatchd exited with status %d" % daemon.returncode)
    print("schemathesis: every check passed")


if __name__ == "__main__":
    main()
