#!/bin/sh
# The --format html page in a real browser: logdx writes a report over several golden
# logs (one with markup and invalid UTF-8 in its evidence), the page is checked to be
# self-contained and escaped, and headless Chromium renders it to a PNG that must not
# be blank. Skips (77) where Chromium is not installed: `LOGDX_BROWSER_TESTS=1 sh
# tests/deps.sh` installs it.
#
#   run.sh LOGDX     the screenshot is kept as html-report.png in the current folder
#                    (or $LOGDX_HTML_SHOT) to look at
set -u
logdx=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
golden="$here/../golden"
shot=${LOGDX_HTML_SHOT:-$PWD/html-report.png}

browser=""
for b in chromium chromium-browser; do
  if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
done
if [ -z "$browser" ]; then
  echo "html: skipped: chromium is not installed (LOGDX_BROWSER_TESTS=1 sh tests/deps.sh)"
  exit 77
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "html: FAIL: $*"
  exit 1
}

# 1. the page
(cd "$golden" && "$logdx" --format html torchrun-oom-cascade/input.log html-escape/input.log \
  folds-leak/input.log graph-capture/input.log version-advice/input.log healthy-ddp/input.log) \
  >"$tmp/report.html"
rc=$?
[ "$rc" -le 1 ] || fail "logdx exited $rc"
[ -s "$tmp/report.html" ] || fail "empty report"

# 2. self-contained: nothing to fetch, nothing to run
if grep -Eiq '<(script|link|img|iframe|object|embed)[ >]|@import|url\(|https?://[^"<]*\.(css|js|woff2?)' \
  "$tmp/report.html"; then
  fail "the page loads or runs something: $(grep -Eio '<(script|link|img|iframe|object|embed)[ >]|@import|url\(' "$tmp/report.html" | head -3)"
fi
grep -q '&lt;script&gt;alert(&quot;x&amp;y&quot;)&lt;/script&gt;' "$tmp/report.html" ||
  fail "evidence markup is not escaped"
grep -q '<svg viewBox' "$tmp/report.html" || fail "no class chart"
grep -q 'class="sev sev-high"' "$tmp/report.html" || fail "no severity badge"

# 3. the screenshot
mkdir "$tmp/profile"
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$tmp/profile" --screenshot="$tmp/report.png" --window-size=1280,2000 \
  "file://$tmp/report.html" >"$tmp/chromium.log" 2>&1
brc=$?
if [ ! -s "$tmp/report.png" ]; then
  tail -20 "$tmp/chromium.log"
  fail "chromium wrote no screenshot (exit $brc)"
fi
cp "$tmp/report.png" "$shot" 2>/dev/null || true

# a PNG of the window's size (width and height are big-endian at bytes 16..23)
sig=$(od -An -tx1 -N8 "$tmp/report.png" | tr -d ' \n')
[ "$sig" = "89504e470d0a1a0a" ] || fail "not a PNG"
dims=$(od -An -tu1 -j16 -N8 "$tmp/report.png" |
  awk '{ printf "%dx%d", (($1*256+$2)*256+$3)*256+$4, (($5*256+$6)*256+$7)*256+$8 }')
[ "$dims" = "1280x2000" ] || fail "screenshot is $dims, not 1280x2000"
# a blank or nearly blank page compresses to a few KB; this one has text everywhere
size=$(wc -c <"$tmp/report.png" | tr -d ' ')
[ "$size" -gt 40000 ] || fail "screenshot is only $size bytes: blank page?"
# with the real ImageMagick: more than a handful of colours (text, badges, bars)
colours=""
if convert -version 2>/dev/null | grep -q 'Version: ImageMagick'; then
  colours=$(convert "$tmp/report.png" -format %k info: 2>/dev/null)
  if [ -z "$colours" ] || [ "$colours" -le 16 ]; then
    fail "screenshot has only ${colours:-?} colours"
  fi
fi
echo "html: ok ($dims, $size bytes${colours:+, $colours colours}; screenshot: $shot)"
