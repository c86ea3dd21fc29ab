#!/bin/sh
# The scale bench's fake reviewer (bench/scale.bench.ts): what test/support/fake-agents/fake-reviewer.mjs
# answers with `--verdict WORD` and its default finding, in POSIX sh, so that a review costs a shell and
# a `cmp` rather than a node process.
#   sh scale-reviewer.sh [--verdict WORD] prompt_file      (the prompt on stdin as well)
# The prompt on stdin must be the prompt file's (read to its end by `cmp`), as the node one checks.
verdict=minor
if [ "${1:-}" = --verdict ]; then
  verdict=$2
  shift 2
fi
if [ -z "${1:-}" ]; then
  cat >/dev/null
elif ! cmp -s - "$1"; then
  echo 'fake-reviewer: the prompt file and stdin differ' >&2
  exit 9
fi
printf 'VERDICT: %s\n%s\n' "$verdict" '- [medium] src/a.ts:1 — fake finding'
