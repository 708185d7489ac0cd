#!/usr/bin/env bash
# warpwatch.service under a real systemd, on a host where systemd is not running (a
# container, a build machine). A manual check, not part of ctest: it needs root. It boots
# systemd as PID 1 of private pid, mount, network, cgroup, UTS and IPC namespaces, installs
# the package there (dpkg -i, so the postinst's sysusers.d and tmpfiles.d run), starts the
# unit with its sandbox as shipped, and checks what the sandbox must leave working:
# READY=1 once the sockets are bound, an event from the PULL socket to a PUB subscriber and
# to the events file, /metrics and /healthz, reload, stop (drain, exit status 0), and the
# sandbox in force (the warpwatch user, no capabilities, seccomp, a private user namespace,
# /proc without its non-process files). Nothing reaches the host: /etc, /usr and /var are
# overlays, /run and /tmp are tmpfs, the network namespace holds only lo; the one trace is a
# cgroup folder, removed at the end. The only change to the unit is a drop-in with
# DefaultDependencies=no, so that starting it does not pull sysinit.target (sysctl, udev,
# module loading) into the namespaces.
#   run_in_namespace.sh DEB [SAMPLES.csv]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
self=$here/$(basename "$0")

fail() { echo "FAIL: $*" >&2; exit 1; }

case "${1:-}" in
--pid1)  # inside the namespaces, before systemd
  work=$2
  umount -R /sys/fs/cgroup
  mount -t cgroup2 cgroup2 /sys/fs/cgroup
  mount -t tmpfs tmpfs "$work/overlay"
  for d in etc usr var; do
    mkdir -p "$work/overlay/$d/upper" "$work/overlay/$d/work"
    mount -t overlay overlay \
      -o "lowerdir=/$d,upperdir=$work/overlay/$d/upper,workdir=$work/overlay/$d/work" "/$d"
  done
  mount -t tmpfs tmpfs /run
  mount -t tmpfs tmpfs /tmp
  mkdir -p /run/systemd/system/warpwatch.service.d
  printf '[Unit]\nDefaultDependencies=no\n' >/run/systemd/system/idle.target
  printf '[Unit]\nDefaultDependencies=no\n' \
    >/run/systemd/system/warpwatch.service.d/namespace.conf
  ip link set lo up
  export container=warpwatch-test
  exec /lib/systemd/systemd --system --unit=idle.target --log-target=console
  ;;
--checks)  # inside the namespaces, systemd running
  deb=$2 samples=$3
  systemctl start systemd-journald.socket systemd-journald.service
  dpkg -i "$deb" >/dev/null || fail "dpkg -i $deb"
  getent passwd warpwatch >/dev/null || fail "postinst made no warpwatch user"
  [ "$(stat -c %U:%G:%a /etc/warpwatch)" = root:warpwatch:750 ] ||
    fail "/etc/warpwatch is $(stat -c %U:%G:%a /etc/warpwatch)"
  systemctl start warpwatch || { journalctl -u warpwatch -o cat --no-pager; fail "start"; }
  echo "started: $(systemctl show -p StatusText --value warpwatch)"
  pid=$(systemctl show -p MainPID --value warpwatch)
  [ "$(stat -c %U /proc/"$pid")" = warpwatch ] || fail "runs as $(stat -c %U /proc/"$pid")"
  grep -q '^CapEff:\s*0000000000000000$' /proc/"$pid"/status || fail "has capabilities"
  grep -q '^NoNewPrivs:\s*1$' /proc/"$pid"/status || fail "NoNewPrivs is off"
  grep -q '^Seccomp:\s*2$' /proc/"$pid"/status || fail "no seccomp filter"
  [ "$(readlink /proc/"$pid"/ns/user)" != "$(readlink /proc/1/ns/user)" ] ||
    fail "no private user namespace"
  others=$(find /proc/"$pid"/root/proc -mindepth 1 -maxdepth 1 ! -name '[0-9]*' | wc -l)
  [ "$others" -le 3 ] || fail "/proc is not pid-only: $others non-process entries"
  timeout 10 warpwatch tail --endpoint tcp://127.0.0.1:5556 --count 1 >/tmp/event &
  sleep 1
  warpwatch replay "$samples" --endpoint tcp://127.0.0.1:5555 --stream pump-1 --rate 1000
  wait $! || fail "no event reached the subscriber"
  grep -q '"pattern":"bump:0"' /tmp/event || fail "unexpected event: $(cat /tmp/event)"
  echo "event: $(cut -c1-100 /tmp/event)..."
  [ "$(curl -s 127.0.0.1:9464/healthz)" = ok ] || fail "/healthz"
  curl -s 127.0.0.1:9464/metrics | grep -q '^warpwatch_events_published_total{rule="shapes"} 1$' ||
    fail "/metrics does not count the event"
  grep -q '"pattern":"bump:0"' /var/lib/warpwatch/events.jsonl || fail "events file"
  [ "$(stat -c %U:%a /var/lib/warpwatch/events.jsonl)" = warpwatch:640 ] || fail "events file mode"
  systemctl reload warpwatch || fail "reload"
  systemctl stop warpwatch
  [ "$(systemctl show -p Result --value warpwatch)" = success ] || fail "stop"
  [ "$(systemctl show -p ExecMainStatus --value warpwatch)" = 0 ] || fail "exit status"
  journalctl -u warpwatch -o cat --no-pager | tail -3
  echo "PASS"
  ;;
*)
  deb=$(realpath "${1:?usage: run_in_namespace.sh DEB [SAMPLES.csv]}")
  samples=$(realpath "${2:-$here/../../config/examples/data/pump-1.csv}")
  [ "$(id -u)" -eq 0 ] || fail "needs root"
  if [ -d /sys/fs/cgroup/unified ]; then v2=/sys/fs/cgroup/unified; else v2=/sys/fs/cgroup; fi
  # Outside /etc /usr /var /run /tmp, which the namespace covers (an overlay's upper folder
  # may not lie in its lower one).
  work=$(mktemp -d /dev/shm/warpwatch-ns.XXXXXX)
  mkdir "$work/overlay"
  cp "$deb" "$work/warpwatch.deb"
  cp "$samples" "$work/samples.csv"
  cgroup=$v2/warpwatch-ns-$$
  mkdir "$cgroup"
  (
    echo $BASHPID >"$cgroup/cgroup.procs"
    exec unshare --cgroup --mount --pid --fork --uts --ipc --net --propagation private \
      --mount-proc "$self" --pid1 "$work"
  ) >"$work/systemd.log" 2>&1 &
  unshare_pid=$!
  cleanup() {
    [ -n "${pid1:-}" ] && kill -9 "$pid1" 2>/dev/null
    wait "$unshare_pid" 2>/dev/null || true
    find "$cgroup" -depth -type d -exec rmdir {} + 2>/dev/null || true
    rm -rf "$work"
  }
  trap cleanup EXIT
  up() {
    pid1=$(pgrep -P "$unshare_pid" || true)
    [ -n "$pid1" ] || return 1
    [[ $(nsenter -t "$pid1" -a systemctl is-system-running 2>/dev/null) =~ ^(running|degraded)$ ]]
  }
  for _ in $(seq 100); do  # systemd up within 10 s
    up && break
    sleep 0.1
  done
  up || { cat "$work/systemd.log"; fail "systemd did not come up"; }
  nsenter -t "$pid1" -a "$self" --checks "$work/warpwatch.deb" "$work/samples.csv"
  ;;
esac
