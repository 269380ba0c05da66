#!/bin/sh
# Docs check: every command the examples' READMEs give under a build directory names `build/` (the
# directory the README's setup creates) and a program the build has. Quick commands run as written (in a
# scratch directory, `build/` mapped to the real build directory); measurement commands (valgrind, 200
# repetitions) only run with --help appended, which proves the program exists and parses its command line.
# Usage: example_commands_test.sh SOURCE_DIR BUILD_DIR
set -eu
src=$1
build=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/pto-readme-commands.XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=0
checked=0
for readme in "$src"/examples/*/README.md; do
    # Lines inside ``` blocks, continuation lines joined, comments dropped.
    awk '/^```/ { inside = !inside; next }
         inside { line = line $0
                  if (line ~ /\\$/) { sub(/\\$/, "", line); next }
                  sub(/[ \t]+#.*$/, "", line); print line; line = "" }' "$readme" |
        grep -E '(^|[ /])build[^ /]*/(examples|bench)/' > "$work/commands" || true
    while IFS= read -r command; do
        checked=$((checked + 1))
        if printf '%s\n' "$command" | grep -Eq '(^|[ ])build[^ /]+/'; then
            echo "FAILED: $readme: the command names a build directory other than build/: $command"
            failed=1
            continue
        fi
        program=$(printf '%s\n' "$command" | grep -Eo 'build/(examples|bench)/[^ ]+' | head -n 1)
        if [ ! -x "$build/${program#build/}" ]; then
            echo "FAILED: $readme: $program is not built (in $build): $command"
            failed=1
            continue
        fi
        mapped=$(printf '%s\n' "$command" | sed "s|build/examples/|$build/examples/|g; s|build/bench/|$build/bench/|g")
        case "$command" in
            valgrind* | *"--reps 200"*)
                run=$(printf '%s\n' "$mapped" | sed 's/^valgrind .* \([^ ]*\/\(examples\|bench\)\/[^ ]*\)/\1/')
                run="$run --help"
                ;;
            *) run=$mapped ;;
        esac
        if (cd "$work" && sh -c "$run") > "$work/out.txt" 2>&1; then
            echo "ok: $command"
        else
            echo "FAILED: $readme: $run"
            tail -n 20 "$work/out.txt"
            failed=1
        fi
    done < "$work/commands"
done
[ "$checked" -gt 0 ] || { echo "FAILED: no command found in the examples' READMEs"; exit 1; }
exit $failed
