#!/usr/bin/env python3
"""The soak (issue 16; not in CI): the real warpwatchd for SOAK_SECONDS at sustained load
with random faults, then a reconciliation from /metrics and the events file.

Runs, all on 127.0.0.1 at free ports: a Mosquitto broker; warpwatchd with a ZeroMQ `pull`
source, two `mqtt` sources (load and burst topics), the load generator's shapes as a
pattern library, an events file and /metrics; `warpwatch load` for the load (planted
occurrences over ZeroMQ, with malformed frames, invalid and unknown ids and oversized
messages mixed in; noise over MQTT). During the run, at random times (seeded): SIGHUP
reloads every few seconds, some with a broken configuration (refused, the running one
kept), `warpwatch tail` subscribers coming and going, the broker killed and restarted, and
bursts above the per-stream rate limit (ZeroMQ) and above the stream queue (MQTT, which
cannot push back). Then it reconciles and prints a table; it exits 1 when a line fails.

Only the standard library. Usage: tests/soak/soak.py [--seconds N] [--build-dir DIR]
(`make soak SOAK_SECONDS=600`).
"""

import argparse
import json
import os
import random
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

# The load: planted shapes over ZeroMQ, noise over MQTT (rates per stream, samples/s).
ZMQ_STREAMS, ZMQ_RATE, ZMQ_FRAME = 8, 500, 50
MQTT_STREAMS, MQTT_RATE, MQTT_FRAME = 4, 200, 20
SHAPES, SHAPE_LENGTH, EVERY = 4, 32, 700
FAULT_EVERY = 37  # a fault after every 37th good ZeroMQ message (prime: every stream gets some)
# Limits (the configuration's): bursts go above each of them.
MAX_MESSAGE_BYTES = 65536
RATE_HZ = 20000
STREAM_QUEUE_BYTES = 65536
MAX_LIBRARY_BYTES = 131072
RATE_BURST = {"frame": 1000, "total": 60000}  # ZeroMQ, as fast as possible: over RATE_HZ
QUEUE_BURST = {"frame": 2000, "total": 40000}  # MQTT: ~5,000 samples fill a stream's queue
# RSS is judged after the warm-up: 30% of the run, at least 30 s (the first bursts of each
# kind, the allocator's arenas and the queues' spare vectors grow it until then).
WARMUP_FRACTION, WARMUP_MIN_S = 0.3, 30
RSS_TOLERANCE = 0.05


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(done, timeout, step=0.1):
    """Polls done() every `step` s for at most `timeout` s; returns its last answer."""
    deadline = time.monotonic() + timeout
    while True:
        value = done()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(step)


def scrape(port):
    """/metrics as {'name{labels}': value}; None when it does not answer."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
            text = r.read().decode()
    except OSError:
        return None
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        key, _, value = line.rpartition(" ")
        out[key] = float(value)
    return out


def series(m, name):
    """The series of `name` in a scrape: (labels as a dict, value) each."""
    for key, value in m.items():
        base, _, rest = key.partition("{")
        if base == name:
            yield dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', rest)), value


def metric(m, name, **labels):
    """The sum of the series of `name` whose labels include `labels`."""
    return int(sum(v for have, v in series(m, name)
                   if all(have.get(k) == want for k, want in labels.items())))


def stream_sum(m, name, prefix, **labels):
    """`name` summed over the streams whose id starts with `prefix`."""
    return int(sum(v for have, v in series(m, name)
                   if have.get("stream", "").startswith(prefix)
                   and all(have.get(k) == want for k, want in labels.items())))


def rss_bytes(pid):
    """(VmRSS, RssAnon, RssFile) in bytes: the heap and the mapped files (code pages, which
    the kernel pages in as code first runs and may drop and fault in again) apart."""
    want = {"VmRSS:": 0, "RssAnon:": 0, "RssFile:": 0}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key = line.split(maxsplit=1)[0] if line.strip() else ""
            if key in want:
                want[key] = int(line.split()[1]) * 1024
    return want["VmRSS:"], want["RssAnon:"], want["RssFile:"]


class Broker:
    """Mosquitto on a fixed loopback port, killed (SIGKILL) and started again at will."""

    def __init__(self, workdir, port):
        self.binary = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        if not os.path.exists(self.binary):
            sys.exit("soak: mosquitto is not installed (Debian's `mosquitto`, `make deps`)")
        self.port, self.workdir, self.proc, self.starts = port, workdir, None, 0
        self.conf = os.path.join(workdir, "mosquitto.conf")
        with open(self.conf, "w") as f:
            f.write(f"per_listener_settings true\npersistence false\nlog_dest stderr\n"
                    f"listener {port} 127.0.0.1\nallow_anonymous true\n")

    def start(self):
        self.starts += 1
        log = open(os.path.join(self.workdir, f"mosquitto-{self.starts}.log"), "w")
        self.proc = subprocess.Popen([self.binary, "-c", self.conf], stderr=log, stdout=log)

        def listening():
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return True
            except OSError:
                return False

        if not wait_until(listening, 10):
            sys.exit(f"soak: mosquitto did not start on port {self.port}")

    def kill(self):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)


def config_text(p, extra_library="", limits_extra="", rename_instance=False):
    declared = []
    for k in range(ZMQ_STREAMS):
        declared.append(f"    - {{id: load-{k}, dims: 1, period_ms: 1}}")
    for k in range(MQTT_STREAMS):
        declared.append(f"    - {{id: mq-{k}, dims: 1, period_ms: 5}}")
    declared.append("    - {id: mqb-0, dims: 1, period_ms: 1}")
    declared.append("    - {id: rate-0, dims: 1, period_ms: 1}")
    mqtt = ("{{host: 127.0.0.1, port: {port}, topics: [\"{topic}\"], stream_template: \"{{3}}\", "
            "reconnect_min_ms: 100, reconnect_max_ms: 1000}}")
    return f"""{"instanse" if rename_instance else "instance"}: soak
backend: cpu
cpu_threads: 2
scheduler: {{tick_ms: 10}}
ingest:
  - pull: "tcp://127.0.0.1:{p['pull']}"
  - mqtt: {mqtt.format(port=p['mqtt'], topic='soak/load/+')}
  - mqtt: {mqtt.format(port=p['mqtt'], topic='soak/burst/+')}
limits:
  max_message_bytes: {MAX_MESSAGE_BYTES}
  memory_budget_bytes: 67108864
  queue_bytes: 16777216
  stream_queue_bytes: {STREAM_QUEUE_BYTES}
  receive_hwm: 64
  max_stream_rate_hz: {RATE_HZ}
  max_stream_burst: {RATE_HZ}
  max_library_bytes: {MAX_LIBRARY_BYTES}
{limits_extra}streams:
  declared:
{chr(10).join(declared)}
libraries:
  - name: shapes
    defaults: {{metric: dtw, mode: stream, threshold: 4}}
    patterns:
      - {{id: shape, file: shapes.csv}}
{extra_library}publish:
  endpoint: "tcp://127.0.0.1:{p['pub']}"
  events_file: events.jsonl
metrics: {{listen: "127.0.0.1:{p['metrics']}"}}
log: {{level: info}}
"""


def configs(p):
    """The good configurations (a reload alternates them) and the broken ones."""
    extra = ("  - name: extra\n    defaults: {metric: dtw, mode: stream, threshold: 1}\n"
             "    patterns:\n      - {id: flat, values: [100, 100, 100, 100]}\n")
    # A recording given as a pattern (huge.csv, 20,000 samples: 2 x 80,000 + 256 bytes
    # estimated), over max_library_bytes.
    huge = ("  - name: huge\n    defaults: {metric: dtw, mode: stream, threshold: 1}\n"
            "    patterns:\n      - {id: long, file: huge.csv}\n")
    good = [config_text(p), config_text(p, extra_library=extra)]
    broken = {
        "yaml_syntax": config_text(p) + "limits: [unclosed\n",
        "unknown_key": config_text(p, rename_instance=True),
        "library_over_limit": config_text(p, extra_library=huge),
        "bad_value": config_text(p).replace(f"max_stream_rate_hz: {RATE_HZ}",
                                            "max_stream_rate_hz: -5"),
    }
    return good, broken


def write_atomically(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


class Soak:
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        bin_dir = os.path.join(args.build_dir, "bin")
        self.warpwatchd = os.path.abspath(os.path.join(bin_dir, "warpwatchd"))
        self.warpwatch = os.path.abspath(os.path.join(bin_dir, "warpwatch"))
        for b in (self.warpwatchd, self.warpwatch):
            if not os.access(b, os.X_OK):
                sys.exit(f"soak: {b} is missing: build first (make build)")
        self.dir = args.workdir or tempfile.mkdtemp(prefix="warpwatch-soak-")
        os.makedirs(self.dir, exist_ok=True)
        self.ports = {k: free_port() for k in ("pull", "pub", "metrics", "mqtt")}
        self.broker = Broker(self.dir, self.ports["mqtt"])
        self.config = os.path.join(self.dir, "warpwatch.yaml")
        self.good, self.broken = configs(self.ports)
        self.reloads = {"applied": 0, "refused": 0}
        self.refused_kinds = {}
        self.broker_kills = 0
        self.tails = []  # (Popen, end time)
        self.tails_started = 0
        self.bursts = []  # (kind, json path, Popen)
        self.rss = []  # (t, (VmRSS, RssAnon, RssFile) bytes)
        self.problems = []  # what went wrong outside the reconciliation

    def load(self, name, extra):
        path = os.path.join(self.dir, f"{name}.json")
        out = open(os.path.join(self.dir, f"{name}.out"), "w")
        cmd = [self.warpwatch, "load", "--json", path, "--seed", str(self.args.seed)] + extra
        return path, subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)

    def start(self):
        self.broker.start()
        subprocess.run([self.warpwatch, "load", "--shapes", str(SHAPES), "--pattern-length",
                        str(SHAPE_LENGTH), "--seed", str(self.args.seed), "--write-patterns",
                        os.path.join(self.dir, "shapes.csv")], check=True,
                       stdout=subprocess.DEVNULL)
        with open(os.path.join(self.dir, "huge.csv"), "w") as f:
            f.write(",".join(str(i % 10) for i in range(20000)) + "\n")
        write_atomically(self.config, self.good[0])
        self.daemon_log = open(os.path.join(self.dir, "warpwatchd.log"), "w")
        self.daemon = subprocess.Popen([self.warpwatchd, "--config", self.config],
                                       cwd=self.dir, stdout=self.daemon_log,
                                       stderr=subprocess.STDOUT)
        up = wait_until(lambda: (m := scrape(self.ports["metrics"])) and
                        metric(m, "warpwatch_mqtt_connected") == 2, 30)
        if not up:
            sys.exit(f"soak: warpwatchd did not come up (see {self.dir}/warpwatchd.log)")

    def run(self):
        seconds = self.args.seconds
        self.start()
        t0 = time.monotonic()
        zmq_json, zmq = self.load("zmq", [
            "--endpoint", f"tcp://127.0.0.1:{self.ports['pull']}", "--streams", str(ZMQ_STREAMS),
            "--rate", str(ZMQ_RATE), "--frame", str(ZMQ_FRAME), "--shapes", str(SHAPES),
            "--pattern-length", str(SHAPE_LENGTH), "--every", str(EVERY), "--duration-s",
            str(seconds), "--faults-every", str(FAULT_EVERY), "--faults",
            "malformed,invalid-id,unknown-id,oversized", "--oversized-bytes",
            str(MAX_MESSAGE_BYTES)])
        mqtt_json, mqtt = self.load("mqtt", [
            "--mqtt", f"127.0.0.1:{self.ports['mqtt']}", "--mqtt-topic-prefix", "soak/load/",
            "--prefix", "mq-", "--streams", str(MQTT_STREAMS), "--rate", str(MQTT_RATE),
            "--frame", str(MQTT_FRAME), "--every", "0", "--duration-s", str(seconds)])
        self.loads = {"zmq": (zmq_json, zmq), "mqtt": (mqtt_json, mqtt)}

        # The faults' schedule: next due time of each kind (seconds since t0).
        due = {"reload": 3.0, "tail": 2.0, "broker": seconds * 0.25, "rate": 5.0, "queue": 8.0}
        broker_back = None
        n_rate = n_queue = 0
        while True:
            now = time.monotonic() - t0
            if now >= seconds:
                break
            if self.daemon.poll() is not None:
                self.problems.append(f"warpwatchd exited with {self.daemon.returncode} at "
                                     f"{now:.0f} s")
                break
            self.rss.append((now, rss_bytes(self.daemon.pid)))
            if now >= due["reload"]:
                self.reload()
                due["reload"] = now + self.rng.uniform(2, 5)
            if now >= due["tail"]:
                tail = subprocess.Popen(
                    [self.warpwatch, "tail", "--endpoint", f"tcp://127.0.0.1:{self.ports['pub']}"],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                self.tails.append((tail, now + self.rng.uniform(0.5, 6)))
                self.tails_started += 1
                due["tail"] = now + self.rng.uniform(1, 5)
            for tail, end in self.tails:
                if tail.poll() is None and now >= end:
                    tail.send_signal(self.rng.choice([signal.SIGTERM, signal.SIGKILL]))
            if broker_back is None and now >= due["broker"] and now < seconds - 15:
                self.broker.kill()
                self.broker_kills += 1
                broker_back = now + self.rng.uniform(1, 4)
            if broker_back is not None and now >= broker_back:
                self.broker.start()
                broker_back = None
                due["broker"] = now + self.rng.uniform(seconds * 0.2, seconds * 0.4)
            if now >= due["rate"] and now < seconds - 5:
                n_rate += 1
                path, proc = self.load(f"rate-{n_rate}", [
                    "--endpoint", f"tcp://127.0.0.1:{self.ports['pull']}", "--prefix", "rate-",
                    "--streams", "1", "--rate", "0", "--frame", str(RATE_BURST["frame"]),
                    "--total", str(RATE_BURST["total"]), "--every", "0", "--period-ms", "0.001"])
                self.bursts.append(("rate", path, proc))
                due["rate"] = now + self.rng.uniform(10, 25)
            if now >= due["queue"] and now < seconds - 5 and broker_back is None:
                n_queue += 1
                path, proc = self.load(f"queue-{n_queue}", [
                    "--mqtt", f"127.0.0.1:{self.ports['mqtt']}", "--mqtt-topic-prefix",
                    "soak/burst/", "--prefix", "mqb-", "--streams", "1", "--rate", "0",
                    "--frame", str(QUEUE_BURST["frame"]), "--total", str(QUEUE_BURST["total"]),
                    "--every", "0", "--period-ms", "0.001"])
                self.bursts.append(("queue", path, proc))
                due["queue"] = now + self.rng.uniform(10, 25)
            time.sleep(0.25)
        if broker_back is not None:
            self.broker.start()
        self.finish()

    def reload(self):
        if self.rng.random() < 0.35:
            kind = self.rng.choice(sorted(self.broken))
            write_atomically(self.config, self.broken[kind])
            self.reloads["refused"] += 1
            self.refused_kinds[kind] = self.refused_kinds.get(kind, 0) + 1
        else:
            write_atomically(self.config, self.good[self.reloads["applied"] % 2])
            self.reloads["applied"] += 1
        self.daemon.send_signal(signal.SIGHUP)
        # The next reload is seconds away: this one is handled before the file changes again.

    def finish(self):
        for name, (path, proc) in self.loads.items():
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.problems.append(f"the {name} load did not end")
                proc.kill()
        for kind, path, proc in self.bursts:
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.problems.append(f"a {kind} burst did not end")
                proc.kill()
        for tail, _ in self.tails:
            if tail.poll() is None:
                tail.terminate()
            try:
                tail.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.problems.append("a warpwatch tail did not end")
                tail.kill()
        # Everything sent has arrived and been matched once the counters stop moving with an
        # empty backlog.
        last = {"key": None}

        def settled():
            m = scrape(self.ports["metrics"])
            if m is None:
                return None
            key = (metric(m, "warpwatch_ingest_accepted_samples_total"),
                   metric(m, "warpwatch_ingest_rejected_total"),
                   metric(m, "warpwatch_mqtt_messages_total"),
                   metric(m, "warpwatch_batch_samples_total"))
            still = key == last["key"] and metric(m, "warpwatch_ingest_backlog_samples") == 0
            last["key"] = key
            return m if still else None

        self.metrics = wait_until(settled, 60, step=1.0)
        if self.metrics is None:
            self.problems.append("the daemon's counters did not settle within 60 s")
            self.metrics = scrape(self.ports["metrics"]) or {}
        with open(os.path.join(self.dir, "rss.tsv"), "w") as f:
            f.write("seconds\trss_bytes\tanon_bytes\tfile_bytes\n")
            f.writelines(f"{t:.2f}\t{b[0]}\t{b[1]}\t{b[2]}\n" for t, b in self.rss)
        alive = self.daemon.poll() is None
        if alive:
            self.daemon.send_signal(signal.SIGTERM)
        try:
            self.exit_status = self.daemon.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.daemon.kill()
            self.exit_status = "hung (killed)"
        self.alive_until_sigterm = alive
        self.broker.stop()

    def reconcile(self):
        m = self.metrics
        rows = []

        def check(label, got, want, ok=None):
            rows.append((label, got, want, (got == want) if ok is None else ok))

        def info(label, value):
            rows.append((label, value, "", None))

        def rejected(reason, prefix=None):
            if prefix is None:
                return metric(m, "warpwatch_ingest_rejected_total", reason=reason)
            return stream_sum(m, "warpwatch_stream_rejected_total", prefix, reason=reason)

        with open(self.loads["zmq"][0]) as f:
            zmq = json.load(f)
        with open(self.loads["mqtt"][0]) as f:
            mq = json.load(f)
        bursts = {"rate": [], "queue": []}
        for kind, path, _ in self.bursts:
            with open(path) as f:
                bursts[kind].append(json.load(f))
        mqtt_msgs = {
            topic: metric(m, "warpwatch_mqtt_messages_total",
                          source=f"mqtt 127.0.0.1:{self.ports['mqtt']} soak/{topic}/+")
            for topic in ("load", "burst")}
        faults = zmq["faults"]
        reasons = [k.split('reason="')[1].rstrip('"}') for k in m
                   if k.startswith("warpwatch_ingest_rejected_total{")]
        per_sample = ["non_increasing_timestamp", "non_finite_value", "queue_full",
                      "rate_limited"]

        # What arrived, by its sender's account (ZeroMQ delivers all; MQTT: what the daemon
        # got, whole frames of a known size).
        zmq_good = zmq["samples"]
        rate_sent = sum(b["samples"] for b in bursts["rate"])
        mqtt_load = MQTT_FRAME * mqtt_msgs["load"]
        mqtt_burst = QUEUE_BURST["frame"] * mqtt_msgs["burst"]
        received = zmq_good + rate_sent + mqtt_load + mqtt_burst
        matched = metric(m, "warpwatch_batch_samples_total")
        accepted = metric(m, "warpwatch_ingest_accepted_samples_total")
        info("samples sent over zmq: load (planted)", zmq_good)
        info("samples sent over zmq: rate bursts", f"{rate_sent} ({len(bursts['rate'])} bursts)")
        info("samples received over mqtt: load", f"{mqtt_load} ({MQTT_FRAME} x "
             f"{mqtt_msgs['load']} messages; {mq['samples']} published)")
        info("samples received over mqtt: queue bursts", f"{mqtt_burst} ({QUEUE_BURST['frame']} x "
             f"{mqtt_msgs['burst']} messages; "
             f"{sum(b['samples'] for b in bursts['queue'])} published)")
        info("samples received, all", received)
        info("samples matched (batch_samples_total)", matched)
        for r in per_sample:
            info(f"samples rejected: {r}", rejected(r))
        dropped = metric(m, "warpwatch_source_dropped_samples_total")
        info("  of them dropped by the overflow policy (mqtt)", dropped)
        check("received = matched + rejected (per sample)", received,
              matched + sum(rejected(r) for r in per_sample))
        check("accepted = matched (backlog drained)", accepted, matched)
        check("queue_full = dropped by overflow (source_dropped_samples_total)",
              rejected("queue_full"), dropped)
        # Per sender.
        check("zmq load: all good samples accepted", stream_sum(
            m, "warpwatch_stream_accepted_samples_total", "load-"), zmq_good)
        check("zmq rate bursts: accepted + rate_limited", stream_sum(
            m, "warpwatch_stream_accepted_samples_total", "rate-") + rejected("rate_limited",
                                                                             "rate-"), rate_sent)
        check("mqtt load: accepted + rejected", stream_sum(
            m, "warpwatch_stream_accepted_samples_total", "mq-") + sum(
                rejected(r, "mq-") for r in per_sample), mqtt_load)
        check("mqtt queue bursts: accepted + queue_full + rate_limited", stream_sum(
            m, "warpwatch_stream_accepted_samples_total", "mqb-") + sum(
                rejected(r, "mqb-") for r in per_sample), mqtt_burst)
        # Whole messages (the load's faults).
        for fault, reason in (("malformed", "malformed_frame"), ("invalid-id", "invalid_stream_id"),
                              ("unknown-id", "unknown_stream"),
                              ("oversized", "oversized_message")):
            check(f"fault messages {fault} = rejected {reason}", rejected(reason), faults[fault])
        others = [r for r in reasons if r not in per_sample and r not in (
            "malformed_frame", "invalid_stream_id", "unknown_stream", "oversized_message")]
        for r in others:
            check(f"rejected {r} (no sender makes it)", rejected(r), 0)
        check("bursts went over every limit (oversized, rate_limited, queue_full > 0)",
              (rejected("oversized_message") > 0, rejected("rate_limited") > 0,
               rejected("queue_full") > 0), (True, True, True))

        # Planted occurrences: each reported exactly once, nothing else.
        names = [p["name"] for p in zmq["patterns"]]
        planted = {(o["stream"], f"shape:{names.index(o['pattern'])}", o["start_index"],
                    o["end_index"]) for o in zmq["occurrences"]}
        reported = {}
        with open(os.path.join(self.dir, "events.jsonl")) as f:
            for line in f:
                e = json.loads(line)
                key = (e["stream"], e["pattern"], e["start_index"], e["end_index"])
                reported[key] = reported.get(key, 0) + 1
        once = sum(1 for k in planted if reported.get(k) == 1)
        info("planted occurrences sent whole", len(planted))
        check("planted occurrences reported exactly once", once, len(planted))
        check("planted occurrences reported more than once",
              sum(1 for k in planted if reported.get(k, 0) > 1), 0)
        check("events that are no planted occurrence", sum(
            n for k, n in reported.items() if k not in planted), 0)

        # Faults of the run.
        check("reloads applied", metric(m, "warpwatch_reloads_total", result="applied"),
              self.reloads["applied"])
        check("reloads refused (" + ", ".join(f"{k} {v}" for k, v in
                                             sorted(self.refused_kinds.items())) + ")",
              metric(m, "warpwatch_reloads_total", result="refused"), self.reloads["refused"])
        lost = metric(m, "warpwatch_mqtt_connections_total", event="lost")
        check(f"broker kills {self.broker_kills}: mqtt connections lost (2 sources each)", lost,
              2 * self.broker_kills)
        info("warpwatch tail subscribers started and ended", self.tails_started)

        # The process.
        check("warpwatchd alive until the SIGTERM", self.alive_until_sigterm, True)
        check("warpwatchd exit status", self.exit_status, 0)
        check("problems during the run", "; ".join(self.problems) or "none", "none")
        warmup = max(WARMUP_FRACTION * self.args.seconds, WARMUP_MIN_S)
        after = [b[0] for t, b in self.rss if t >= warmup]
        for k, part in ((1, "anonymous (heap)"), (2, "file-backed (code)")):
            pages = [b[k] for t, b in self.rss if t >= warmup]
            if pages:
                info(f"RSS {part} after {warmup:.0f} s, MiB min .. max",
                     f"{min(pages) / 2**20:.2f} .. {max(pages) / 2**20:.2f}")
        if after:
            med = statistics.median(after)
            lo, hi = min(after) / med - 1, max(after) / med - 1
            check(f"RSS after {warmup:.0f} s within +-{RSS_TOLERANCE:.0%} of its median "
                  f"{med / 2**20:.1f} MiB ({len(after)} samples)", f"{lo:+.1%} .. {hi:+.1%}",
                  "", ok=-RSS_TOLERANCE <= lo and hi <= RSS_TOLERANCE)
        else:
            check("RSS sampled after warm-up", 0, "> 0", ok=False)
        return rows


def print_table(rows, seconds, workdir):
    print(f"\nsoak reconciliation ({seconds} s; files in {workdir})")
    width = max(len(r[0]) for r in rows)
    failed = 0
    for label, got, want, ok in rows:
        status = "" if ok is None else ("ok" if ok else "FAIL")
        failed += ok is False
        expect = "" if ok is None or want == "" else f"(want {want})"
        print(f"  {label:<{width}}  {str(got):>22}  {status:<4} {expect}")
    print(f"soak: {'FAILED, ' + str(failed) + ' line(s)' if failed else 'passed'}")
    return failed


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int,
                        default=int(os.environ.get("SOAK_SECONDS", "600")))
    parser.add_argument("--build-dir", default=os.environ.get("BUILD_DIR", "build"))
    parser.add_argument("--seed", type=int, default=int(os.environ.get("SOAK_SEED", "1")))
    parser.add_argument("--workdir", help="where the files go (default: a new temporary folder)")
    args = parser.parse_args()
    if args.seconds < 2 * WARMUP_MIN_S:
        sys.exit(f"soak: --seconds must be at least {2 * WARMUP_MIN_S}")
    soak = Soak(args)
    try:
        soak.run()
    except BaseException:
        if getattr(soak, "daemon", None) and soak.daemon.poll() is None:
            soak.daemon.kill()
        soak.broker.stop()
        raise
    rows = soak.reconcile()
    sys.exit(1 if print_table(rows, args.seconds, soak.dir) else 0)


if __name__ == "__main__":
    main()
