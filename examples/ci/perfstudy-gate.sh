#!/usr/bin/env bash
# A pull request's benchmark gate: the base and head commits, each checked out and built in a worktree of its own,
# their suite run in randomised interleaved rounds by `perfstudy run`, every benchmark judged, the verdict written
# for the reviewer (Markdown) and for scripts (JSON), and the exit status the gate.
#
#   perfstudy-gate.sh BASE HEAD
#
# Set in the environment (the workflow beside this file does):
#   PERFSTUDY_COMMAND    the suite's command; {worktree} is a commit's checkout, {commit} its hash (required)
#   PERFSTUDY_SETUP      the build, run once per commit in its worktree, outside every measurement (default: none)
#   PERFSTUDY_MEASURE    the harness the command prints: go, pyperf, google_benchmark, ... (default: go)
#   PERFSTUDY_THRESHOLD  the smallest change that fails the gate (default: 5%)
#   PERFSTUDY_MAX_TIME   the run's budget; what is undecided then is inconclusive, not red (default: 3m)
#   PERFSTUDY_OUT        the folder for perfstudy-runs.csv, its .md and .json, and perfstudy.json (default: .)
#
# Exit status: 0 (no benchmark slower beyond the threshold), 1 (one is: the gate is red), 2 (unusable input or a
# failed build: the message says which), or a failing benchmark command's own status.
set -euo pipefail

if [ "$#" -ne 2 ]; then
    echo "usage: $0 BASE HEAD (two commits of the repository here)" >&2
    exit 2
fi
: "${PERFSTUDY_COMMAND:?set PERFSTUDY_COMMAND to the suite's command, with {worktree} where a commit's checkout goes}"
out="${PERFSTUDY_OUT:-.}"
mkdir -p "$out"
rm -f "$out/perfstudy-runs.csv" "$out/perfstudy-runs.csv.json" "$out/perfstudy-runs.csv.md"

status=0
perfstudy run --base "$1" --head "$2" \
    --command "$PERFSTUDY_COMMAND" ${PERFSTUDY_SETUP:+--setup "$PERFSTUDY_SETUP"} \
    --measure "${PERFSTUDY_MEASURE:-go}" --threshold "${PERFSTUDY_THRESHOLD:-5%}" \
    --max-time "${PERFSTUDY_MAX_TIME:-3m}" --out "$out/perfstudy-runs.csv" --no-progress \
    --format json --fail-on-regression > "$out/perfstudy.json" || status=$?

if [ -f "$out/perfstudy-runs.csv.md" ]; then
    cat "$out/perfstudy-runs.csv.md"
    # on GitHub Actions, the verdict on the run's page
    if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
        cat "$out/perfstudy-runs.csv.md" >> "$GITHUB_STEP_SUMMARY"
    fi
fi
exit "$status"
