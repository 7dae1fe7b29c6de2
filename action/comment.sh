#!/usr/bin/env bash
# The vap GitHub Action's comment step (action.yml): one pull-request comment per Markdown
# report, found and updated in place by the report's hidden marker (`vap github comment`).
# A comment that cannot be written (a pull request from a fork gets a read-only token) is a
# warning: the step's result is vap's own.
set -uo pipefail

if [ -n "${VAP_INPUT_GITHUB_TOKEN:-}" ]; then export GITHUB_TOKEN="$VAP_INPUT_GITHUB_TOKEN"; fi
while IFS= read -r file; do
  if [ -z "$file" ] || [ ! -f "$file" ]; then continue; fi
  if ! vap github comment "$file"; then
    echo "::warning title=vap::could not update the pull-request comment of $(basename "$file") (see the error above)"
  fi
done <<< "${VAP_REPORTS_MARKDOWN:-}"
exit 0
