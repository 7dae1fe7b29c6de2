#!/usr/bin/env bash
# The vap GitHub Action's install step (action.yml), run in the action's own checkout:
# install from the lockfile, build, pack the package as it would be published, and install
# that tarball globally, with its runtime dependencies only. The npm cache (actions/setup-node
# with cache: npm, keyed by this checkout's package-lock.json) keeps the downloads. A second
# use of the action in the same job skips this step (VAP_ACTION_INSTALLED).
set -euo pipefail

npm ci --no-audit --no-fund
npm run build
tmp="${RUNNER_TEMP:-$(mktemp -d)}"
tarball="$(npm pack --silent --pack-destination "$tmp" | tail -n 1)"
npm install --global --no-audit --no-fund "$tmp/$tarball"
if ! version="$(vap --version)"; then
  echo "::error title=vap::vap is not on PATH after npm install --global (npm's global prefix is $(npm prefix --global))"
  exit 1
fi
echo "$version installed from $tarball"
if [ -n "${GITHUB_ENV:-}" ]; then echo "VAP_ACTION_INSTALLED=${GITHUB_ACTION_PATH:-$PWD}" >> "$GITHUB_ENV"; fi
