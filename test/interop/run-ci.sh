#!/usr/bin/env bash
# The real-agent round trips (issue 4) for .ci/run: builds, installs the pinned Codex CLI, both pinned Claude Code releases,
# the pinned GitHub Copilot CLI, Gemini CLI, Qwen Code and the other pinned agents (agents.ts) into .cache/agents (reused when present), runs test/interop, and
# says plainly what happened and how long it took.
# An agent that cannot be installed fails the run, unless SESSIONS_ALLOW_NO_AGENTS=1 (then: a loud SKIP, exit 0).
set -uo pipefail
cd "$(dirname "$0")/../.."

log="$(mktemp "${TMPDIR:-/tmp}/sessions-interop.XXXXXX.log")"
start=$(date +%s)
npm run test:interop 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
elapsed=$(( $(date +%s) - start ))

if [ "$status" -ne 0 ]; then
  echo
  echo "=================================================================="
  if grep -q "INTEROP FAILED: could not install" "$log"; then
    echo "INTEROP FAILED: a pinned agent could not be installed (see above)."
    echo "Set SESSIONS_ALLOW_NO_AGENTS=1 to skip the real-agent tests instead."
  else
    echo "INTEROP FAILED (exit $status) after ${elapsed}s: see the failures above."
    echo "A failing suite keeps its sandbox (the agent's files and every request body it sent): see '[interop] kept' above."
  fi
  echo "=================================================================="
  rm -f "$log"
  exit "$status"
fi

if grep -q "SKIP (SESSIONS_ALLOW_NO_AGENTS=1)" "$log"; then
  echo
  echo "=================================================================="
  echo "INTEROP SKIPPED for these agents (SESSIONS_ALLOW_NO_AGENTS=1):"
  grep "SKIP (SESSIONS_ALLOW_NO_AGENTS=1)" "$log" | sed 's/^.*SKIP (SESSIONS_ALLOW_NO_AGENTS=1): interop tests for /  - /'
  echo "Nothing was proven against them."
  echo "=================================================================="
fi
rm -f "$log"
echo "interop: done in ${elapsed}s"
