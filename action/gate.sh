#!/usr/bin/env bash
# The "Run flamespace gate" step of action.yml: fetch the base if the checkout lacks it, run
# the gate, hand its exit code and report to the next steps. Always exits 0 itself, so that
# the comment is posted; the action's last step fails with the gate's exit code.
#
# Inputs (environment): GATE_BASE, GATE_COMMAND, GATE_RUNS, GATE_ARGS (split as a shell
# would, quotes respected, nothing expanded), GATE_OUT_DIR. Outputs: exit-code and report in
# $GITHUB_OUTPUT; report.md appended to $GITHUB_STEP_SUMMARY.
set -uo pipefail

fail() {  # a setup error: say it as GitHub shows errors, and hand exit code 1 on
    echo "::error title=flamespace gate::$1"
    echo "exit-code=1" >> "${GITHUB_OUTPUT:-/dev/null}"
    exit 0
}

[ -n "${GATE_BASE:-}" ] || fail "no base ref: outside a pull_request event, give the action's 'base' input"
[ -n "${GATE_COMMAND:-}" ] || fail "no command: give the action's 'command' input (e.g. bench/workload.py)"
out_dir=${GATE_OUT_DIR:-flamespace-gate}

# split_into NAME TEXT: the array NAME gets TEXT's words as a shell would split them
# (quotes respected, nothing expanded); fails on unbalanced quotes.
split_into() {
    local words
    words=$(mktemp) || return 1
    if ! python -c '
import shlex, sys
try:
    words = shlex.split(sys.argv[1])
except ValueError as error:
    sys.exit(f"{error}: {sys.argv[1]}")
sys.stdout.write("".join(w + "\0" for w in words))' "$2" > "$words"; then
        rm -f "$words"
        return 1
    fi
    mapfile -d '' -t "$1" < "$words"
    rm -f "$words"
}
split_into command_words "$GATE_COMMAND" || fail "cannot split the command into words: $GATE_COMMAND"
split_into extra_args "${GATE_ARGS:-}" || fail "cannot split the args into words: ${GATE_ARGS:-}"

# actions/checkout fetches one commit by default: the base must be fetched to be checked out.
if ! git cat-file -e "${GATE_BASE}^{commit}" 2>/dev/null; then
    echo "flamespace gate: fetching $GATE_BASE"
    git fetch --no-tags --depth=1 origin "$GATE_BASE" || fail "cannot fetch the base $GATE_BASE from origin"
    git cat-file -e "${GATE_BASE}^{commit}" 2>/dev/null || GATE_BASE=FETCH_HEAD  # a branch name: what was fetched
fi

flamespace gate --base "$GATE_BASE" -n "${GATE_RUNS:-20}" -o "$out_dir" "${extra_args[@]}" -- "${command_words[@]}"
status=$?
echo "exit-code=$status" >> "${GITHUB_OUTPUT:-/dev/null}"
if [ -f "$out_dir/report.md" ] && [ "$status" -ne 1 ]; then
    echo "report=$out_dir/report.md" >> "${GITHUB_OUTPUT:-/dev/null}"
    cat "$out_dir/report.md" >> "${GITHUB_STEP_SUMMARY:-/dev/null}"
fi
exit 0
