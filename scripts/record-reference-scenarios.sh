#!/usr/bin/env bash
# Re-records test/agent-sdk/reference/fixtures/ from the reference CLI (Claude Code), offline: each
# scenario of test/agent-sdk/reference/scenarios.json runs against the same scripted model on
# 127.0.0.1 that test/agent-sdk/reference-scenarios.test.ts gives armature.
#   scripts/record-reference-scenarios.sh [/path/to/claude]
# Default binary: $CLAUDE_BIN, else /tmp/peers/claude-code/node_modules/.bin/claude (install it with
# the cc-harness's install-peer.sh: npm i @anthropic-ai/claude-code@2.1.332 in a folder of its own).
set -euo pipefail
cd "$(dirname "$0")/.."
CLAUDE="${1:-${CLAUDE_BIN:-/tmp/peers/claude-code/node_modules/.bin/claude}}"
[ -x "$CLAUDE" ] || { echo "record-reference-scenarios: no reference CLI at $CLAUDE" >&2; exit 2; }
"$CLAUDE" --version
ARMATURE_RECORD_REFERENCE="$CLAUDE" npx vitest run test/agent-sdk/reference-scenarios.test.ts
