#!/usr/bin/env bash
# The "Comment on the pull request" step of action.yml: post GATE_REPORT on pull request
# GATE_PR, or edit the comment an earlier run of the gate posted (found by its first line,
# MARKER), so a pull request carries one gate comment however often it is pushed to.
# Needs GH_TOKEN with pull-requests: write; without it (a fork's pull request) it warns only.
set -uo pipefail

MARKER='<!-- flamespace gate -->'
body=$(mktemp)
trap 'rm -f "$body"' EXIT
{ echo "$MARKER"; cat "$GATE_REPORT"; } > "$body"

repo=${GITHUB_REPOSITORY:?}
previous=$(gh api "repos/$repo/issues/$GATE_PR/comments" --paginate \
    --jq ".[] | select(.body | startswith(\"$MARKER\")) | .id" 2>/dev/null | tail -n 1)
if [ -n "$previous" ]; then
    gh api --silent -X PATCH "repos/$repo/issues/comments/$previous" -F "body=@$body"
else
    gh pr comment "$GATE_PR" --repo "$repo" --body-file "$body"
fi || echo "::warning title=flamespace gate::could not comment on pull request $GATE_PR (the workflow needs 'permissions: pull-requests: write'; a fork's pull request gets a read-only token): the report is in the job summary"
exit 0
