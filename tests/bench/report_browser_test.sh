#!/bin/sh
# Renders pto-bench's HTML report of a short sweep in headless Chromium: the screenshot must not be blank
# and the DOM must hold one chart per drawn panel with the expected series. Exits 77 (ctest: skipped) when
# no Chromium is installed. Needs PTO_BENCH (the pto-bench executable).
set -eu
browser=""
for candidate in chromium chromium-browser google-chrome; do
    if command -v "$candidate" >/dev/null 2>&1; then browser=$candidate; break; fi
done
if [ -z "$browser" ]; then
    echo "SKIPPED: no chromium, chromium-browser or google-chrome on PATH (apt-get install chromium)"
    exit 77
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/pto-report-browser.XXXXXX")
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAILED: $*"; exit 1; }

"$PTO_BENCH" --case qwen3,paged_attention --mode manual,tensormap --tier non-spmd,spmd-4 --reps 3 --warmup 1 \
    --peers --json "$dir/r.json" --report "$dir/r.html" > "$dir/bench.txt" 2>&1 || fail "pto-bench: $(cat "$dir/bench.txt")"

# Chromium's own profile and cache in the scratch dir; --no-sandbox for containers running as root.
flags="--headless --no-sandbox --disable-gpu --user-data-dir=$dir/profile --no-first-run --hide-scrollbars"
# shellcheck disable=SC2086
"$browser" $flags --window-size=1200,3000 --screenshot="$dir/shot.png" "file://$dir/r.html" > "$dir/chromium.txt" 2>&1 ||
    fail "chromium --screenshot: $(cat "$dir/chromium.txt")"
# shellcheck disable=SC2086
"$browser" $flags --dump-dom "file://$dir/r.html" > "$dir/dom.html" 2> "$dir/chromium-dom.txt" ||
    fail "chromium --dump-dom: $(cat "$dir/chromium-dom.txt")"

# The screenshot: a PNG of the window's size, and not one flat colour (a blank page compresses to a few
# hundred bytes drawn from few distinct byte values).
[ -s "$dir/shot.png" ] || fail "no screenshot"
signature=$(od -An -tx1 -N8 "$dir/shot.png" | tr -d ' \n')
[ "$signature" = "89504e470d0a1a0a" ] || fail "the screenshot is not a PNG"
width=$(od -An -tu1 -j16 -N4 "$dir/shot.png" | awk '{print $1*16777216+$2*65536+$3*256+$4}')
height=$(od -An -tu1 -j20 -N4 "$dir/shot.png" | awk '{print $1*16777216+$2*65536+$3*256+$4}')
[ "$width" -ge 1000 ] && [ "$height" -ge 1000 ] || fail "screenshot is ${width}x${height}"
size=$(wc -c < "$dir/shot.png")
[ "$size" -gt 20000 ] || fail "the screenshot is $size bytes: blank?"
distinct=$(od -An -v -tu1 "$dir/shot.png" | tr -s ' ' '\n' | sort -u | wc -l)
[ "$distinct" -gt 200 ] || fail "the screenshot has only $distinct distinct byte values: blank?"

# The DOM as the browser parsed it: four panels with a chart (orchestration, makespan, peers, paged
# attention), the baseline panel saying why it is empty, and the series each chart must have.
count() { grep -o "$1" "$dir/dom.html" | wc -l; }
[ "$(count 'class="panel"')" -eq 5 ] || fail "expected 5 panels, found $(count 'class="panel"')"
[ "$(count 'data-chart="')" -eq 4 ] || fail "expected 4 charts, found $(count 'data-chart="')"
for chart in orchestration makespan peers paged_attention; do
    grep -q "data-chart=\"$chart\"" "$dir/dom.html" || fail "no chart $chart"
done
for series in 'manual' 'tensormap' 'manual lower bound' 'tensormap lower bound' 'pto' 'tbb_flow_graph' \
    'omp_depend' 'orchestration' 'end to end'; do
    grep -q "data-series=\"$series\"" "$dir/dom.html" || fail "no series '$series'"
done
grep -q 'class="missing"' "$dir/dom.html" || fail "the baseline panel does not say why it is empty"
echo "report rendered: ${width}x${height} screenshot, $size bytes, $distinct distinct byte values"
