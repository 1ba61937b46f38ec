#!/bin/sh
# The Debian package cpack makes from this build is lintian-clean (no error, no
# warning) and holds what a package must: the binary, the compressed man page, the
# completions, the copyright and changelog. Run in the build folder (ctest does).
# Skipped (77) where lintian or dpkg-deb is missing, unless CI is set.
set -u
build=$(pwd)
if ! command -v lintian >/dev/null 2>&1 || ! command -v dpkg-deb >/dev/null 2>&1 ||
  ! command -v cpack >/dev/null 2>&1; then
  echo "package: lintian, dpkg-deb or cpack not installed (sh tests/deps.sh)"
  [ "${CI:-}" = true ] && exit 1
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
if ! cpack -G DEB -B "$tmp" --config "$build/CPackConfig.cmake" >"$tmp/cpack.log" 2>&1; then
  echo "package: cpack failed:"
  tail -20 "$tmp/cpack.log"
  exit 1
fi
deb=$(ls "$tmp"/*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || { echo "package: no .deb made"; exit 1; }
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|' >"$tmp/files"
for f in /usr/bin/logdx /usr/share/man/man1/logdx.1.gz /usr/share/doc/logdx/copyright \
  /usr/share/doc/logdx/changelog.gz /usr/share/bash-completion/completions/logdx \
  /usr/share/zsh/vendor-completions/_logdx; do
  grep -qx "$f" "$tmp/files" || { echo "package: $f is not in the package"; fail=1; }
done
# the man page is the one --help is made from, readable by man
mkdir "$tmp/x"
dpkg-deb -x "$deb" "$tmp/x"
gzip -dc "$tmp/x/usr/share/man/man1/logdx.1.gz" | grep -q '^\.TH LOGDX 1' ||
  { echo "package: the man page does not decompress to logdx.1"; fail=1; }
"$tmp/x/usr/bin/logdx" --version >/dev/null 2>&1 || { echo "package: its logdx does not run"; fail=1; }
# --fail-on: lintian's own exit status says whether a tag of these levels was emitted
lintian --fail-on error,warning --tag-display-limit 0 "$deb" >"$tmp/lintian.out" 2>&1
rc=$?
grep -v '^running with root privileges' "$tmp/lintian.out" | grep . >"$tmp/tags"
if [ $rc != 0 ] || grep -q '^[EW]:' "$tmp/tags"; then
  echo "package: lintian:"
  cat "$tmp/tags"
  fail=1
fi
[ $fail = 0 ] && echo "package: $(basename "$deb") is lintian-clean"
exit $fail
