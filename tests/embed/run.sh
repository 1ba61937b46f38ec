#!/bin/sh
# The installable library: `cmake --install` puts liblogdx.so.N (with its soname), the
# headers and logdx.pc in a prefix; a program built with `pkg-config --cflags --libs
# logdx` against them (examples/embed/diagnose.c) gives the very JSON report the CLI
# gives; the library exports exactly the public API (ldx_*, declared in include/logdx/).
# Run in the build folder (ctest does): run.sh SRCDIR
set -u
src=$1
build=$(pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export NO_COLOR=1
fail=0
bad() { echo "embed: FAILED: $*"; fail=1; }
command -v pkg-config >/dev/null 2>&1 || { echo "embed: pkg-config is needed"; exit 1; }
cmake --install "$build" --prefix "$tmp/prefix" >"$tmp/install.log" 2>&1 || {
  echo "embed: cmake --install failed:"; tail -20 "$tmp/install.log"; exit 1; }
so=$(find "$tmp/prefix" -name 'liblogdx.so.[0-9]*' -type f | head -1)
[ -n "$so" ] || { echo "embed: no liblogdx.so.N installed"; exit 1; }
libdir=$(dirname "$so")
soname=$(readelf -d "$so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
case $soname in
liblogdx.so.[0-9]*) [ -L "$libdir/$soname" ] || bad "no $soname link beside $(basename "$so")" ;;
*) bad "soname is '$soname'" ;;
esac
[ -L "$libdir/liblogdx.so" ] || bad "no liblogdx.so link for -llogdx"
for h in "$src"/include/logdx/*.h; do
  [ -f "$tmp/prefix/include/logdx/$(basename "$h")" ] || bad "header $(basename "$h") not installed"
done
pc=$(find "$tmp/prefix" -name logdx.pc | head -1)
[ -n "$pc" ] || bad "logdx.pc not installed"
# a program built as a user would: pkg-config only (and, against a sanitizer build of
# the library, the same sanitizer, whose runtime must come first)
export PKG_CONFIG_PATH="$(dirname "$pc")"
san=
grep -q '^LOGDX_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null && san="-fsanitize=address,undefined"
grep -q '^LOGDX_TSAN:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null && san="-fsanitize=thread"
# shellcheck disable=SC2046,SC2086
cc -Wall -Werror $san "$src/examples/embed/diagnose.c" $(pkg-config --cflags --libs logdx) \
  -o "$tmp/diagnose" 2>"$tmp/cc.log" || { bad "the example does not build:"; cat "$tmp/cc.log"; }
if [ -x "$tmp/diagnose" ]; then
  needed=$(readelf -d "$tmp/diagnose" | sed -n 's/.*Shared library: \[\(liblogdx[^]]*\)\]/\1/p')
  [ "$needed" = "$soname" ] || bad "the program needs '$needed', not the soname $soname"
  for log in torchrun-oom-cascade multirank-nccl_watchdog_timeout healthy-ddp xid-codes; do
    in="$src/tests/golden/$log/input.log"
    (cd "$tmp" && LD_LIBRARY_PATH="$libdir" ./diagnose "$in" >"$log.lib.json" 2>"$log.lib.err")
    "$build/logdx" --format json "$in" >"$tmp/$log.cli.json" 2>/dev/null
    cmp -s "$tmp/$log.lib.json" "$tmp/$log.cli.json" ||
      { bad "$log: the library's report differs from the CLI's:"; diff "$tmp/$log.cli.json" "$tmp/$log.lib.json" | head -10; }
  done
fi
# exports: the public API and nothing else
nm -D --defined-only "$so" | awk '{print $3}' | grep -v '^LOGDX_' | sed 's/@.*//' | sort -u >"$tmp/exported"
grep -v '^ldx_' "$tmp/exported" >"$tmp/foreign" && { bad "exported beyond the API:"; head "$tmp/foreign"; }
cat "$src"/include/logdx/*.h | grep -v 'static inline' |
  grep -o '\bldx_[a-z0-9_]*(' | tr -d '(' | sort -u >"$tmp/declared"
comm -23 "$tmp/exported" "$tmp/declared" >"$tmp/undeclared"
[ -s "$tmp/undeclared" ] && { bad "exported but not declared in include/logdx/:"; head "$tmp/undeclared"; }
# declared names that are types or macros (ldx_foo_t(...)) are not functions: only check
# that every declared function the library defines is exported
nm --defined-only "$so" 2>/dev/null | awk '$2 ~ /[Tt]/ {print $3}' | sort -u >"$tmp/defined"
comm -12 "$tmp/declared" "$tmp/defined" | comm -23 - "$tmp/exported" >"$tmp/hidden"
[ -s "$tmp/hidden" ] && { bad "declared in include/logdx/ but not exported:"; head "$tmp/hidden"; }
[ $fail = 0 ] && echo "embed: $(wc -l <"$tmp/exported") symbols exported; the installed library's report equals the CLI's"
exit $fail
