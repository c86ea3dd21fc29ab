#!/bin/sh
# The scale bench's fake agent (bench/scale.bench.ts): test/support/fake-agents/fake-agent.mjs's
# `slow-push`, `broken` and `revise` modes in POSIX sh, so that a fake worker costs a shell and two git
# commands rather than a node process. Like the node one it is a real process in the worktree the runner
# made, really commits (the runner pushes), and ends with the same FINAL REPORT lines.
#   sh scale-agent.sh [--resume] prompt_file
#   SCALE_AGENT_DELAY_MS  how long a first session works before it commits (slow-push; default 2000)
#   SCALE_AGENT_BROKEN    space-separated `owner/name#n`: those tickets' first session commits a `broken`
#                         line at once (CI fails on it); every resume revises its file (one more
#                         `revised` line), as FAKE_AGENT_RESUME_MODE=revise does
set -u
resuming=
if [ "${1:-}" = --resume ]; then
  resuming=1
  shift
fi
prompt=${1:-${BLITZ_PROMPT_FILE:-}}
issue=${BLITZ_ISSUE:-0}
mode=slow-push
if [ -n "$resuming" ]; then
  mode=revise
else
  case " ${SCALE_AGENT_BROKEN:-} " in
    *" ${BLITZ_REPO:-}#$issue "*) mode=broken ;;
  esac
fi
if [ -n "$prompt" ] && [ ! -f "$prompt" ]; then
  echo "scale-agent: prompt file missing: $prompt" >&2
  exit 2
fi
first='no prompt'
[ -n "$prompt" ] && IFS= read -r first <"$prompt"
echo "fake agent ($mode) on issue #$issue: $first"

file="fake-$issue.txt"
content="done by fake agent for #$issue"

# Commits $file: `git add`, then `git commit`; when the commit fails, nothing new is fine (a resumed
# session may find its change already committed), anything else is a failure.
commit() {
  git add -- "$file" || exit 1
  if ! git -c user.name='Fake Agent' -c user.email=fake@blitz.invalid commit --quiet \
    -m "fake agent: $file" >/dev/null; then
    git diff --cached --quiet -- "$file" || exit 1
  fi
}

report() {
  printf '%s\n' 'FINAL REPORT' 'PR: none — branch pushed' 'TESTS: fake tests — 1 passed' \
    'REVIEW: none' 'UNCERTAINTIES:' '- none' 'OUT-OF-SCOPE BUGS:' '- none' "STATUS: $1"
}

case $mode in
  slow-push)
    # Whole seconds, a line each (the log grows as a working CLI's does), then the rest.
    ms=${SCALE_AGENT_DELAY_MS:-2000}
    waited=0
    while [ $((ms - waited)) -ge 1000 ]; do
      sleep 1
      waited=$((waited + 1000))
      echo "working… ${waited}ms"
    done
    rest=$((ms - waited))
    [ "$rest" -gt 0 ] && sleep "0.$(printf %03d "$rest")"
    printf '%s\n' "$content" >"$file"
    commit
    report 'done — pushed'
    ;;
  broken)
    printf '%s\n' "broken by fake agent for #$issue" >"$file"
    commit
    report 'done — pushed'
    ;;
  revise)
    # The file again with one more `revised` line than it has (read with the shell's own `read`).
    revised=0
    if [ -f "$file" ]; then
      while IFS= read -r line; do
        case $line in revised*) revised=$((revised + 1)) ;; esac
      done <"$file"
    fi
    {
      printf '%s\n' "$content"
      i=0
      while [ "$i" -le "$revised" ]; do
        echo revised
        i=$((i + 1))
      done
    } >"$file"
    commit
    report 'done — revised and pushed'
    ;;
esac
