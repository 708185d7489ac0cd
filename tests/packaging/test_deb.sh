#!/usr/bin/env bash
# The Debian package as `make package` builds it (cpack with this build's CPackConfig.cmake):
# dpkg-deb lists exactly the expected files, with the files under /etc as conffiles; its
# control names warpwatch at the project's version with its dependencies; and, unpacked,
# the warpwatch it holds accepts the configuration it holds (check-config on
# /etc/warpwatch/warpwatch.yaml, whose pattern file resolves next to it).
#   test_deb.sh BUILD_DIR VERSION
set -euo pipefail
build=$1
version=$2

fail() { echo "FAIL: $*" >&2; exit 1; }
for tool in cpack dpkg-deb dpkg-shlibdeps help2man; do
  command -v "$tool" >/dev/null || fail "$tool not found (make deps)"
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cpack --config "$build/CPackConfig.cmake" -B "$work/out" >"$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log"; fail "cpack failed"; }
debs=("$work"/out/warpwatch_"$version"_*.deb)
if [ ${#debs[@]} -ne 1 ] || [ ! -f "${debs[0]}" ]; then
  fail "expected one warpwatch_${version}_*.deb in: $(ls "$work/out")"
fi
deb=${debs[0]}

echo "dpkg-deb -c $(basename "$deb"):"
dpkg-deb -c "$deb"
files=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $6 }' | sort)
expected=$(sort <<'LIST'
./etc/warpwatch/patterns/bumps.csv
./etc/warpwatch/warpwatch.yaml
./usr/bin/warpwatch
./usr/bin/warpwatchd
./usr/lib/systemd/system/warpwatch.service
./usr/lib/sysusers.d/warpwatch.conf
./usr/lib/tmpfiles.d/warpwatch.conf
./usr/share/doc/warpwatch/README.md
./usr/share/doc/warpwatch/docs/README.md
./usr/share/doc/warpwatch/docs/spec.md
./usr/share/doc/warpwatch/docs/architecture.md
./usr/share/doc/warpwatch/docs/configuration.md
./usr/share/doc/warpwatch/docs/ingest.md
./usr/share/doc/warpwatch/docs/sinks.md
./usr/share/doc/warpwatch/docs/operations.md
./usr/share/doc/warpwatch/docs/cli.md
./usr/share/doc/warpwatch/docs/benchmarks.md
./usr/share/doc/warpwatch/docs/glossary.md
./usr/share/doc/warpwatch/copyright
./usr/share/man/man1/warpwatch.1.gz
./usr/share/man/man1/warpwatchd.1.gz
LIST
)
[ "$files" = "$expected" ] || fail "the package's files differ from the expected ones:
$(diff <(echo "$expected") <(echo "$files") || true)"

field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = warpwatch ] || fail "Package: $(field Package)"
[ "$(field Version)" = "$version" ] || fail "Version: $(field Version), project $version"
depends=$(field Depends)
echo "Depends: $depends"
for needed in systemd procps libzmq5 libyaml-cpp libsystemd0 libstdc++6; do
  grep -q "$needed" <<<"$depends" || fail "Depends lacks $needed: $depends"
done

dpkg-deb -e "$deb" "$work/control"
conffiles=$(sort "$work/control/conffiles")
[ "$conffiles" = "$(printf '/etc/warpwatch/patterns/bumps.csv\n/etc/warpwatch/warpwatch.yaml')" ] ||
  fail "conffiles: $conffiles"
for script in postinst prerm postrm; do
  [ -x "$work/control/$script" ] || fail "no executable $script in the package"
done

dpkg-deb -x "$deb" "$work/root"
if ! summary=$("$work/root/usr/bin/warpwatch" check-config "$work/root/etc/warpwatch/warpwatch.yaml" 2>&1); then
  fail "the packaged warpwatch refused the packaged configuration: $summary"
fi
echo "$summary"
grep -q 'warpwatch.yaml: OK$' <<<"$summary" || fail "check-config did not say OK"
grep -q 'shapes: 2 patterns' <<<"$summary" || fail "patterns/bumps.csv (2 rows) not loaded"
[ "$("$work/root/usr/bin/warpwatchd" --version)" = "$version" ] || fail "warpwatchd --version"

grep -qx 'ExecStart=/usr/bin/warpwatchd --config /etc/warpwatch/warpwatch.yaml' \
  "$work/root/usr/lib/systemd/system/warpwatch.service" || fail "the packaged unit's ExecStart="
grep -q 'd /etc/warpwatch 0750 root warpwatch' "$work/root/usr/lib/tmpfiles.d/warpwatch.conf" ||
  fail "tmpfiles.d does not name /etc/warpwatch"
zcat "$work/root/usr/share/man/man1/warpwatchd.1.gz" | grep -q '^\.TH WARPWATCHD "1"' ||
  fail "warpwatchd.1 is not a man page"
zcat "$work/root/usr/share/man/man1/warpwatch.1.gz" | grep -q 'warpwatch check-config' ||
  fail "warpwatch.1 lacks the verbs' options"
echo "package OK: $(basename "$deb")"
