#!/usr/bin/env bash
# warpwatch.service as `cmake --install` writes it, installed into a scratch root with prefix
# /usr (as the package has it): `systemd-analyze verify` has nothing to say about it, and
# `systemd-analyze security --offline=yes` puts its exposure at LIMIT (3.0) or less. Neither
# needs a running systemd (CI's container has none).
#   test_unit.sh BUILD_DIR LIMIT
set -euo pipefail
build=$1
limit=$2

fail() { echo "FAIL: $*" >&2; exit 1; }
command -v systemd-analyze >/dev/null || fail "systemd-analyze not found (Debian: systemd; make deps)"
[ -x /bin/kill ] || fail "/bin/kill not found (Debian: procps; make deps)"

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
DESTDIR=$root cmake --install "$build" --prefix /usr >/dev/null
unit=$root/usr/lib/systemd/system/warpwatch.service
[ -f "$unit" ] || fail "cmake --install wrote no $unit"
grep -qx 'ExecStart=/usr/bin/warpwatchd --config /etc/warpwatch/warpwatch.yaml' "$unit" ||
  fail "ExecStart= does not name the installed warpwatchd and configuration: $(grep ^ExecStart "$unit")"

# verify: the unit's syntax and settings, and its commands inside the root: warpwatchd as
# installed there, and the /bin/kill of ExecReload= that a Debian system has (procps).
# Only this unit is judged (--recursive-errors=no: the root holds no sysinit.target), and
# man: references are not looked up (the man pages are made when packaging).
mkdir -p "$root/bin"
cp /bin/kill "$root/bin/kill"
if ! said=$(systemd-analyze verify --man=no --recursive-errors=no --root="$root" "$unit" 2>&1); then
  fail "systemd-analyze verify: $said"
fi
[ -z "$said" ] || fail "systemd-analyze verify has warnings: $said"
echo "systemd-analyze verify: clean"

# security: --threshold (tenths) makes systemd-analyze fail above the limit, and the summary
# line must say the same.
tenths=$(awk -v l="$limit" 'BEGIN { printf "%d", l * 10 + 0.5 }')
# UNIT_FILE -> its summary line; status 0 when the exposure is within the limit by both
# systemd-analyze's status and the summary's number.
score() {
  local name status=0 report summary exposure
  name=$(basename "$1")
  report=$(SYSTEMD_COLORS=0 systemd-analyze security --offline=yes --root="$root" \
    --threshold="$tenths" "$1" 2>&1) || status=$?
  summary=$(grep "Overall exposure level for $name:" <<<"$report") ||
    fail "no summary line for $name in: $report"
  echo "$summary"
  exposure=$(sed -E "s/.*$name: ([0-9.]+) .*/\1/" <<<"$summary")
  if awk -v e="$exposure" -v l="$limit" 'BEGIN { exit !(e <= l) }'; then
    [ "$status" -eq 0 ] || fail "$name: exposure $exposure, yet systemd-analyze failed: $report"
    return 0
  fi
  [ "$status" -ne 0 ] || fail "$name: exposure $exposure > $limit, yet systemd-analyze passed it"
  return 1
}
score "$unit" || fail "exposure of warpwatch.service above $limit"

# The limit bites: the same service without its sandbox is over it.
bare=$root/usr/lib/systemd/system/warpwatch-bare.service
printf '[Service]\nType=notify\nExecStart=/usr/bin/warpwatchd\n' >"$bare"
if score "$bare" >/dev/null; then
  fail "a unit without sandboxing passed the $limit limit: the check would pass anything"
fi
