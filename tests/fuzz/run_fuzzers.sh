#!/usr/bin/env bash
# Runs every fuzz target of a PTO_FUZZ build for a bounded time on a scratch corpus seeded from
# tests/fuzz/corpus/<target>/ (new inputs go to <build>/corpus/<target>/, never into the source tree), then
# prints one summary line per target: executions, seconds, corpus size. A crash leaves its input in
# <build>/crashes/ and fails the script.
# With 0 seconds it only replays the seed corpora (deterministic: what CI runs).
# Usage: tests/fuzz/run_fuzzers.sh <build-dir> [seconds-per-target]
set -euo pipefail
build=${1:?usage: run_fuzzers.sh <build-dir> [seconds]}
seconds=${2:-60}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$build/crashes"
status=0
summary=()
for target in orchestration base_data bench_cli config; do
    exe="$build/tests/fuzz/pto-fuzz-${target//_/-}"
    work="$build/corpus/$target"
    mkdir -p "$work"
    log="$build/fuzz-$target.log"
    echo "fuzzing $target for ${seconds}s (log: $log)"
    if [ "$seconds" -eq 0 ]; then
        mode=(-runs=0)  # run every seed input once, then stop
    else
        mode=(-max_total_time="$seconds")
    fi
    # -timeout: an input running 30 s is a hang; -rss_limit_mb: a leak or runaway allocation.
    if ! ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        "$exe" "${mode[@]}" -timeout=30 -rss_limit_mb=4096 -max_len=4096 -print_final_stats=1 \
        -artifact_prefix="$build/crashes/$target-" "$work" "$here/corpus/$target" >"$log" 2>&1; then
        echo "FAILED: $target (see $log and $build/crashes/)"
        tail -40 "$log"
        status=1
    fi
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
    secs=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | grep -o 'in [0-9]*' | grep -o '[0-9]*' || echo "$seconds")
    summary+=("$target: $runs executions in ${secs}s, corpus $(ls "$work" | wc -l) new + $(ls "$here/corpus/$target" | wc -l) seed inputs")
done
printf '%s\n' "${summary[@]}"
exit $status
