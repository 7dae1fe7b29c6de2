#!/usr/bin/env bash
# The vap GitHub Action's main step (action.yml). It builds vap's command line from the
# action's inputs, which arrive in the environment (VAP_INPUT_*), never spliced into a
# script; runs it with its reports in the reports folder; and writes the step's outputs
# (exit-code, reports-dir, markdown, html, junit). It exits 0 whatever vap did: vap's code
# is the output exit-code, which the action's last step exits with, so that the comment
# and the upload still happen in between.
set -uo pipefail
shopt -s nullglob

input() { local name="VAP_INPUT_$1"; printf '%s' "${!name:-}"; }
is_true() { case "$(printf '%s' "$1" | tr '[:upper:]' '[:lower:]')" in true | yes | 1 | on) return 0 ;; *) return 1 ;; esac; }
output() {
  # name<<delimiter, as GitHub reads a value of several lines; the delimiter is random.
  local delimiter="vap_$RANDOM$RANDOM$RANDOM"
  if [ -n "${GITHUB_OUTPUT:-}" ]; then printf '%s<<%s\n%s\n%s\n' "$1" "$delimiter" "$2" "$delimiter" >> "$GITHUB_OUTPUT"; fi
}
usage() {
  echo "::error title=vap action::$1"
  output exit-code 2
  exit 0
}

command="$(input COMMAND)"
reports="$(input REPORTS_DIR)"
reports="${reports:-vap-reports}"

# The key and the base URL only when given: empty inputs leave the job's VAP_API_KEY and VAP_BASE_URL alone.
key="$(input API_KEY)"
base_url="$(input BASE_URL)"
to_key="$(input TO_API_KEY)"
for secret in "$key" "$to_key"; do
  if [ -n "$secret" ]; then echo "::add-mask::$secret"; fi
done
if [ "$command" != promote ]; then
  if [ -n "$key" ]; then export VAP_API_KEY="$key"; fi
  if [ -n "$base_url" ]; then export VAP_BASE_URL="$base_url"; fi
fi

# promote reads two organizations: each key goes in its profile's own variable
# (VAP_API_KEY_PROD for profile prod), as VAP_API_KEY would stand for both.
profile_var() {
  local name="$1" profile="$2"
  printf '%s_%s' "$name" "$(printf '%s' "$profile" | tr '[:lower:]' '[:upper:]' | tr -c 'A-Z0-9' '_')"
}

profile=()
if [ -n "$(input PROFILE)" ]; then profile=(--profile "$(input PROFILE)"); fi

# The gates and the baseline, as evals run, preview, push --eval and promote take them
# (promote checks the source's runs with them); vap.yaml's gates: fill what is not given.
gates=()
if [ -n "$(input MIN_SCORE)" ]; then gates+=(--min-score "$(input MIN_SCORE)"); fi
while IFS= read -r criterion || [ -n "$criterion" ]; do
  criterion="$(printf '%s' "$criterion" | tr -d '[:space:]')"
  if [ -n "$criterion" ]; then gates+=(--min-criterion "$criterion"); fi
done < <(input MIN_CRITERION | tr ',' '\n')
if [ -n "$(input ALLOW_FAILED_ITERATIONS)" ]; then gates+=(--allow-failed-iterations "$(input ALLOW_FAILED_ITERATIONS)"); fi
if [ -n "$(input BASELINE)" ]; then gates+=(--baseline "$(input BASELINE)"); fi
if is_true "$(input FAIL_ON_REGRESSION)"; then gates+=(--fail-on-regression); fi
if [ -n "$(input MIN_EFFECT)" ]; then gates+=(--min-effect "$(input MIN_EFFECT)"); fi

# More arguments: one per line, each kept whole.
extra=()
while IFS= read -r arg || [ -n "$arg" ]; do
  if [ -n "$arg" ]; then extra+=("$arg"); fi
done < <(input ARGS)

mkdir -p "$reports" || usage "cannot create the reports folder $reports"
reports_abs="$(cd "$reports" && pwd)"
# The outputs name the reports this command wrote, not those an earlier one left in the folder (nothing is removed).
stamp="$(mktemp "${RUNNER_TEMP:-/tmp}/vap-run.XXXXXX")"
report=(--report "markdown=$reports_abs/evals.md" --report "html=$reports_abs/evals.html" --report "junit=$reports_abs/evals.xml" --report "json=$reports_abs/evals.json")

args=()
case "$command" in
  diff)
    args=(diff "${profile[@]}" "${extra[@]}")
    ;;
  preview)
    label="$(input LABEL)"
    label="${label:-${GITHUB_HEAD_REF:-}}"
    args=(preview "${profile[@]}")
    if [ -n "$label" ]; then args+=(--label "$label"); fi
    args+=("${gates[@]}" "${report[@]}" "${extra[@]}")
    ;;
  push)
    reason="$(input REASON)"
    if [ -z "$reason" ] && [ -n "${GITHUB_SHA:-}" ]; then reason="${GITHUB_HEAD_REF:-${GITHUB_REF_NAME:-}}@${GITHUB_SHA:0:12}"; fi
    args=(push --yes "${profile[@]}")
    if [ -n "$reason" ]; then args+=(--reason "$reason"); fi
    if is_true "$(input EVALUATE)"; then args+=(--eval "${gates[@]}" "${report[@]}"); fi
    args+=("${extra[@]}")
    ;;
  promote)
    if [ -z "$(input FROM)" ] || [ -z "$(input TO)" ]; then usage "command: promote needs the inputs from and to (the profile that passed, and the one to carry it to)"; fi
    if [ -n "$key" ] || [ -n "$to_key" ]; then
      if [ -z "$key" ] || [ -z "$to_key" ]; then usage "command: promote needs both keys, api-key (of from) and to-api-key (of to), or neither (then the job's own configuration)"; fi
      export "$(profile_var VAP_API_KEY "$(input FROM)")=$key" "$(profile_var VAP_API_KEY "$(input TO)")=$to_key"
      if [ -n "$base_url" ]; then export "$(profile_var VAP_BASE_URL "$(input FROM)")=$base_url"; fi
      to_url="$(input TO_BASE_URL)"
      if [ -z "$to_url" ]; then to_url="$base_url"; fi
      if [ -n "$to_url" ]; then export "$(profile_var VAP_BASE_URL "$(input TO)")=$to_url"; fi
      unset VAP_API_KEY VAP_BASE_URL
    fi
    args=(promote --from "$(input FROM)" --to "$(input TO)" --yes "${gates[@]}" "${extra[@]}")
    ;;
  evals-run)
    if [ -z "$(input EVAL)" ] || [ -z "$(input AGENT)" ]; then usage "command: evals-run needs the inputs eval (the suite id) and agent (the agent id)"; fi
    args=(evals run "$(input EVAL)" --agent "$(input AGENT)" --wait "${gates[@]}" "${report[@]}" "${extra[@]}")
    ;;
  *)
    usage "command \"$command\" is not one of: diff, preview, push, promote, evals-run"
    ;;
esac

echo "vap ${args[*]}"
if [ "$command" = diff ]; then
  # The plan on the log, in a file, on the job's summary and (on a pull request) in a comment of its own.
  vap "${args[@]}" | tee "$reports_abs/plan.txt"
  code=${PIPESTATUS[0]}
  # A fence longer than any run of backticks in the plan, so that nothing in it can close the block.
  longest="$(grep -o '`\+' "$reports_abs/plan.txt" | awk '{ if (length($0) > n) n = length($0) } END { print n + 0 }')"
  fence='```'
  while [ "${#fence}" -le "$longest" ]; do fence="$fence\`"; done
  {
    echo "<!-- vap-plan profile=$(printf '%s' "$(input PROFILE)" | tr -c 'A-Za-z0-9_.:=-' '_') -->"
    echo "### The plan${profile[1]:+ against ${profile[1]}}"
    echo
    if [ "$code" -ne 0 ]; then
      echo "vap diff exited $code."
      echo
    fi
    echo "${fence}diff"
    cat "$reports_abs/plan.txt"
    echo "$fence"
  } > "$reports_abs/plan.md"
  if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then cat "$reports_abs/plan.md" >> "$GITHUB_STEP_SUMMARY"; fi
else
  vap "${args[@]}"
  code=$?
fi

# The reports of this command: written since it started.
list() { local f out=''; for f in "$@"; do if [ "$f" -nt "$stamp" ]; then out="${out:+$out$'\n'}$f"; fi; done; printf '%s' "$out"; }
output exit-code "$code"
output reports-dir "$reports_abs"
if [ "$command" = diff ]; then output markdown "$reports_abs/plan.md"; else output markdown "$(list "$reports_abs"/evals*.md)"; fi
output html "$(list "$reports_abs"/evals*.html)"
output junit "$(list "$reports_abs"/evals*.xml)"
rm -f "$stamp"
echo "vap exited with $code"
exit 0
