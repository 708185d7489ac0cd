#!/usr/bin/env python3
"""The operators' console in a real browser (tests/console/README.md).

A real warpwatchd on a free loopback port with a tokens file (a read and a write token),
fed InfluxDB line protocol over loopback TCP; Debian's chromium, headless, driven by
selenium through chromium-driver. Asserts: every page loads with no SEVERE entry in the
browser's console; the overview's rates move; an event planted by the test appears on the
events page and its page draws the overlay and the plot; a read-only token cannot change a
pattern's threshold or deploy a learnt one ("read-only token"); a write token can;
select -> learn -> deploy creates a pattern whose next planted occurrence is reported; with
10,000 streams the streams page answers typing (six queries, each timed and printed: the
100 ms target is judged from those figures, not asserted); the page weighs under 1 MB. Exit 77 (ctest: skipped) only when chromium,
chromium-driver or selenium is absent.

usage: run_console.py WARPWATCHD [--screenshots DIR]
"""
import hashlib
import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

try:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:
    # Debian's python3-selenium is in the system interpreter's path, not a pyenv's.
    if os.path.exists("/usr/bin/python3") and os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    print("SKIPPED: python3-selenium is not installed")
    sys.exit(77)

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
BULK_STREAMS = 10000
FAILURES = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        FAILURES.append(what)
    return ok


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Feeder:
    """Line protocol over one loopback TCP connection: 'ID v=VALUE TIME_NS'."""

    def __init__(self, port):
        deadline = time.monotonic() + 10
        while True:
            try:
                self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        self.lock = threading.Lock()
        self.t = {}

    def send(self, stream, values):
        lines = []
        with self.lock:
            t = max(self.t.get(stream, 0) + 10_000_000, time.time_ns() - 10_000_000 * len(values))
            for v in values:
                lines.append("%s v=%r %d\n" % (stream, float(v), t))
                t += 10_000_000
            self.t[stream] = t - 10_000_000
            self.sock.sendall("".join(lines).encode())

    def send_lines(self, lines):
        with self.lock:
            self.sock.sendall(("\n".join(lines) + "\n").encode())


def background(feeder, stop):
    """Three streams of small noise, 100 samples/s each, until stop."""
    k = 0
    while not stop.is_set() and k < 100000:
        for s in ("pump-1", "pump-2", "fan-1"):
            feeder.send(s, [0.2 * ((k * 7 + len(s)) % 5 - 2) / 2])
        k += 1
        time.sleep(0.01)


def api(port, token, path, method="GET", body=None):
    req = urllib.request.Request("http://127.0.0.1:%d/api/v1/%s" % (port, path), method=method,
                                 data=None if body is None else json.dumps(body).encode(),
                                 headers={"Authorization": "Bearer " + token,
                                          "Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as r:
        return json.loads(r.read() or b"null")


def wait(driver, seconds, what, fn):
    try:
        return WebDriverWait(driver, seconds, poll_frequency=0.1).until(lambda d: fn(d))
    except Exception:
        notes = [e.text for e in driver.find_elements(By.ID, "notice")]
        check(False, "%s (waited %d s; notice %r; browser log %s)"
              % (what, seconds, notes, [e["message"] for e in driver.get_log("browser")][-5:]))
        return None


def severe(driver, allowed=()):
    bad = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"
           and not any(a in e["message"] for a in allowed)]
    return bad


def main():
    warpwatchd = sys.argv[1]
    shots = sys.argv[sys.argv.index("--screenshots") + 1] if "--screenshots" in sys.argv else None
    if not CHROMIUM or not CHROMEDRIVER:
        print("SKIPPED: chromium or chromium-driver is not installed")
        sys.exit(77)
    with tempfile.TemporaryDirectory(prefix="warpwatch_console_") as tmp:
        write_token, read_token = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        with open(os.path.join(tmp, "tokens"), "w") as f:
            for name, role, token in (("ops", "write", write_token), ("viewer", "read", read_token)):
                f.write("%s %s %s\n" % (name, role, hashlib.sha256(token.encode()).hexdigest()))
        port, influx = free_port(), free_port()
        base = "http://127.0.0.1:%d/" % port
        with open(os.path.join(tmp, "warpwatch.yaml"), "w") as f:
            f.write("backend: cpu\ncpu_threads: 1\n"
                    "streams: {auto_create: true, auto_period_ms: 10}\n"
                    "limits: {max_streams: 20000}\n"
                    "ingest:\n  - influx: tcp://127.0.0.1:%d\n"
                    "    stream_template: '{measurement}'\n    fields: [v]\n"
                    "publish: {endpoint: 'tcp://127.0.0.1:*'}\n"
                    "state: {dir: state, checkpoint_ms: 0}\n"
                    "libraries:\n  - name: shapes\n"
                    "    defaults: {metric: dtw, mode: stream, threshold: 1}\n"
                    "    patterns:\n      - {id: blip, values: [5, -5]}\n"
                    "http:\n  listen: 127.0.0.1:%d\n  tokens_file: tokens\n"
                    "  external_url: http://127.0.0.1:%d\n" % (influx, port, port))
        log = open(os.path.join(tmp, "warpwatchd.log"), "w")
        daemon = subprocess.Popen([warpwatchd, "-c", os.path.join(tmp, "warpwatch.yaml")],
                                  stdout=log, stderr=subprocess.STDOUT)
        stop = threading.Event()
        driver = None
        try:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                try:
                    urllib.request.urlopen(base + "healthz", timeout=2)
                    break
                except OSError:
                    if daemon.poll() is not None:
                        sys.exit("warpwatchd exited with status %d" % daemon.returncode)
                    time.sleep(0.1)
            feeder = Feeder(influx)
            threading.Thread(target=background, args=(feeder, stop), daemon=True).start()

            options = webdriver.ChromeOptions()
            options.binary_location = CHROMIUM
            for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                      "--window-size=1280,800", "--no-first-run", "--disable-extensions"):
                options.add_argument(a)
            options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
            driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
            driver.set_page_load_timeout(30)

            def shot(name):
                if shots:
                    os.makedirs(shots, exist_ok=True)
                    time.sleep(0.5)
                    driver.save_screenshot(os.path.join(shots, name + ".png"))

            # The token, asked once, kept for the tab (sessionStorage).
            driver.get(base)
            form = wait(driver, 10, "the token form is shown",
                        lambda d: d.find_element(By.ID, "token-form").is_displayed())
            driver.find_element(By.ID, "token").send_keys(read_token + "\n")

            # Overview: the rates move (two polls, then two more).
            first = wait(driver, 15, "the overview shows a rate of samples in",
                         lambda d: float(d.find_element(By.ID, "ov-in").get_attribute("data-value") or 0) > 0
                         and d.find_element(By.ID, "ov-in").text)
            time.sleep(4.5)
            second = driver.find_element(By.ID, "ov-in").text
            check(first and second and first != "–" and second != "–",
                  "overview: samples/s in shown (%r, then %r)" % (first, second))
            check(float(driver.find_element(By.ID, "ov-in").get_attribute("data-value")) > 100,
                  "overview: samples/s in > 100 (three streams at 100 Hz)")
            check(driver.find_element(By.ID, "ov-backend").text == "cpu", "overview: backend cpu")
            weight = driver.execute_script(
                "return performance.getEntriesByType('navigation').concat(performance.getEntriesByType('resource'))"
                ".reduce((a, e) => a + (e.decodedBodySize || 0), 0)")
            check(0 < weight <= 1_000_000, "page weight %d bytes <= 1 MB" % weight)
            shot("overview")

            # A planted event: the events page lists it, its page draws the overlay.
            feeder.send("pump-1", [0, 0, 5.25, -4.5, 0, 0, 0, 0])
            driver.get(base + "#/events")
            row = wait(driver, 15, "events: the planted event is listed",
                       lambda d: d.find_elements(By.CSS_SELECTOR, "#events tr[data-event]"))
            if row:
                text = row[0].text
                check("pump-1" in text and "shapes / blip" in text, "events: its row names pump-1 and shapes / blip: %r" % text)
                shot("events")
                row[0].find_element(By.TAG_NAME, "a").click()
                wait(driver, 10, "event: the overlay is drawn",
                     lambda d: d.find_elements(By.CSS_SELECTOR, "#overlay-chart[data-drawn='true'] canvas"))
                wait(driver, 10, "event: the plot.svg is loaded",
                     lambda d: d.execute_script("const i = document.getElementById('event-plot');"
                                                "return i && i.complete && i.naturalWidth > 0"))
                check(len(driver.find_elements(By.CSS_SELECTOR, "#steps tbody tr")) >= 2, "event: the steps are listed")
                check(any('"explanation"' in j.get_attribute("textContent") for j in driver.find_elements(By.ID, "event-json")),
                      "event: its JSON is shown")
                shot("event")
                # The link the sinks carry opens this page.
                eid = driver.current_url.rsplit("/", 1)[1]
                listed = api(port, read_token, "events?stream=pump-1")["events"][0]
                check(listed["explain_url"] == base + "#/events/" + eid, "explain_url is the console's page: %s" % listed["explain_url"])

            # Streams, a stream, patterns: each loads.
            driver.get(base + "#/streams")
            wait(driver, 10, "streams: three rows", lambda d: len(d.find_elements(By.CSS_SELECTOR, "#streams tr[data-stream]")) == 3)
            wait(driver, 10, "streams: the last event of pump-1 is shown",
                 lambda d: "blip" in d.find_element(By.CSS_SELECTOR, "tr[data-stream='pump-1'] .last-event").text)
            shot("streams")
            driver.get(base + "#/streams/pump-1")
            wait(driver, 10, "stream: the chart is drawn",
                 lambda d: int(d.find_element(By.ID, "stream-chart").get_attribute("data-samples") or 0) > 10)
            shot("stream")
            driver.get(base + "#/patterns")
            save = wait(driver, 10, "patterns: shapes/blip listed",
                        lambda d: d.find_elements(By.CSS_SELECTOR, "tr[data-pattern='shapes/blip'] button"))
            shot("patterns")
            bad = severe(driver)
            check(not bad, "no SEVERE entry in the browser console: %s" % bad)

            # A read-only token cannot change a pattern.
            if save:
                thr = driver.find_element(By.ID, "thr-shapes-blip")
                thr.clear()
                thr.send_keys("1.5")
                [b for b in save if b.text == "Save"][0].click()
                wait(driver, 10, "read token: the change is refused as read-only",
                     lambda d: "read-only token" in d.find_element(By.CSS_SELECTOR, "tr[data-pattern='shapes/blip']").text)
                check(api(port, read_token, "libraries/shapes/patterns/blip")["threshold"] == 1.0,
                      "read token: the threshold is still 1")
            severe(driver, allowed=("403",))  # the refused PUT is logged: expected

            # A write token can (asked again after "Forget token").
            driver.find_element(By.ID, "forget-token").click()
            wait(driver, 10, "the token form is shown again", lambda d: d.find_element(By.ID, "token-form").is_displayed())
            driver.find_element(By.ID, "token").send_keys(write_token + "\n")
            driver.get(base + "#/patterns")
            wait(driver, 10, "patterns: listed for the write token", lambda d: d.find_elements(By.ID, "thr-shapes-blip"))
            thr = driver.find_element(By.ID, "thr-shapes-blip")
            thr.clear()
            thr.send_keys("1.5")
            [b for b in driver.find_elements(By.CSS_SELECTOR, "tr[data-pattern='shapes/blip'] button") if b.text == "Save"][0].click()
            wait(driver, 10, "write token: the threshold is set",
                 lambda d: api(port, write_token, "libraries/shapes/patterns/blip")["threshold"] == 1.5)

            learn_flow(driver, port, base, feeder, read_token, write_token, shot)

            # 10,000 streams: the streams page answers typing within 100 ms.
            t = time.time_ns()
            for start in range(0, BULK_STREAMS, 1000):
                feeder.send_lines(["bulk-%05d v=0 %d" % (i, t) for i in range(start, start + 1000)])
            wait(driver, 30, "10,000 streams created",
                 lambda d: api(port, read_token, "streams?q=bulk-&limit=1")["total"] == BULK_STREAMS)
            driver.get(base + "#/streams")
            wait(driver, 10, "streams: 10,003 in all",
                 lambda d: "10,003 streams" in d.find_element(By.ID, "streams-total").text)
            times = []
            for q in ("bulk-0042", "bulk-0", "pump", "bulk-00", "bulk-1", "bulk-09999"):
                ms = driver.execute_async_script("""
                    const [q, done] = arguments;
                    const input = document.getElementById('stream-q'), table = document.getElementById('streams');
                    const t0 = performance.now();
                    input.value = q;
                    input.dispatchEvent(new Event('input'));
                    const poll = () => table.dataset.q === q ? done(performance.now() - t0)
                      : (performance.now() - t0 > 5000 ? done(-1) : requestAnimationFrame(poll));
                    poll();""", q)
                times.append(ms)
            # Measured and printed; the 100 ms target is judged from these figures (a target
            # lives in a benchmark's report, not in a timed assertion on a shared CI machine).
            # Each search must be answered (5 s at most).
            check(all(ms >= 0 for ms in times), "streams page, 10,000 streams: every search answered")
            print("measure streams page, 10,000 streams: typing answered in %s ms (max %.1f, "
                  "median %.1f; the target is 100)" % (", ".join("%.1f" % m for m in times),
                                                        max(times), sorted(times)[len(times) // 2]),
                  flush=True)
            check(len(driver.find_elements(By.CSS_SELECTOR, "#streams tr[data-stream]")) == 1,
                  "streams: 'bulk-09999' leaves one row")
            driver.execute_script("document.getElementById('stream-q').value='';"
                                  "document.getElementById('stream-q').dispatchEvent(new Event('input'))")
            time.sleep(1)
            shot("streams-10000")
            driver.set_window_size(390, 844)
            driver.get(base + "#/")
            time.sleep(2.5)
            shot("overview-phone")
            bad = severe(driver, allowed=("403",))
            check(not bad, "no SEVERE entry in the browser console after the flows: %s" % bad)
        finally:
            stop.set()
            if driver:
                driver.quit()
            daemon.terminate()
            daemon.wait(timeout=30)
            log.close()
        if FAILURES:
            print(open(os.path.join(tmp, "warpwatchd.log")).read()[-3000:])
            sys.exit("console: %d check(s) failed: %s" % (len(FAILURES), "; ".join(FAILURES)))
    print("console: every check passed")


def learn_flow(driver, port, base, feeder, read_token, write_token, shot):
    """Select -> learn (threshold table, backtest) -> deploy on fan-1; the next occurrence is an event."""
    doc = api(port, write_token, "openapi.json")
    if not check("/api/v1/learn" in doc["paths"] and "/api/v1/backtest" in doc["paths"],
                 "learn: the daemon serves POST /api/v1/learn and /api/v1/backtest"):
        return
    shape = [0, 3, 6, 3, 0, -3, -6, -3, 0]
    starts = []
    for _ in range(3):
        feeder.send("fan-1", shape)
        starts.append(feeder.t["fan-1"])
        time.sleep(0.3)
    driver.get(base + "#/streams/fan-1")
    wait(driver, 10, "learn: the chart of fan-1", lambda d: d.find_elements(By.CSS_SELECTOR, "#stream-chart canvas"))
    for end in starts:
        # Half a period either side: the page's numbers are doubles (ns lose their last bits).
        begin, end = end - 10_000_000 * (len(shape) - 1) - 5_000_000, end + 5_000_000
        driver.execute_script("const [a, b] = arguments; const f = document.getElementById('sel-from'),"
                              " t = document.getElementById('sel-to'); f.value = a; t.value = b;"
                              " f.dispatchEvent(new Event('input'));", str(begin), str(end))
        driver.find_element(By.ID, "add-example").click()
    driver.find_element(By.ID, "learn").click()
    wait(driver, 60, "learn: the threshold table", lambda d: d.find_elements(By.CSS_SELECTOR, "#threshold-table tbody tr"))
    wait(driver, 60, "learn: the backtest's count", lambda d: d.find_element(By.ID, "backtest-result").get_attribute("data-total"))
    name = driver.find_element(By.ID, "pat-name")
    name.clear()
    name.send_keys("wave")
    lib = driver.find_element(By.ID, "pat-lib")
    lib.clear()
    lib.send_keys("shapes")
    shot("learn")
    # A read-only token cannot deploy: the same page, the tab's session holding the read token.
    set_token = "sessionStorage.setItem('warpwatch.token', arguments[0])"
    name.clear()
    name.send_keys("wave-ro")
    driver.execute_script(set_token, read_token)
    driver.find_element(By.ID, "deploy").click()
    wait(driver, 20, "read token: deploy refused as read-only",
         lambda d: "read-only token" in d.find_element(By.ID, "deploy-result").text)
    names = [p["id"] for lib in api(port, read_token, "libraries")["libraries"] for p in lib["patterns"]]
    check("wave-ro" not in names, "read token: deploy created no pattern (%s)" % names)
    driver.execute_script(set_token, write_token)
    name.clear()
    name.send_keys("wave")
    driver.find_element(By.ID, "deploy").click()
    wait(driver, 20, "learn: deployed", lambda d: "Deployed shapes/wave" in d.find_element(By.ID, "deploy-result").text)
    time.sleep(0.5)
    feeder.send("fan-1", [0] * 20 + shape + [0] * 20)
    deadline = time.monotonic() + 15
    found = False
    while time.monotonic() < deadline and not found:
        found = bool(api(port, write_token, "events?stream=fan-1&pattern=wave")["events"])
        time.sleep(0.2)
    check(found, "learn: the next occurrence of the learnt shape is reported as an event of shapes/wave")


if __name__ == "__main__":
    main()
