#!/usr/bin/env bash
# Seeds each target's corpus from the project's fixtures (the corpora themselves are not committed).
set -euo pipefail
cd "$(dirname "$0")"
fixtures=../tests/fixtures
mkdir -p corpus/{import,journal,sse_stream,persona,sanitize,wrap,matchers,app}
for f in "$fixtures"/hostile/*.jsonl "$fixtures"/converse-logs/*/*.json; do
  [ -s "$f" ] || continue
  name=$(basename "$(dirname "$f")")-$(basename "$f")
  cp "$f" "corpus/import/$name"
  cp "$f" "corpus/app/$name"
done
cp "$fixtures"/hostile/*.jsonl corpus/journal/
cp "$fixtures"/converse-logs/resources/env_persona*.txt corpus/persona/
cp "$fixtures"/hostile/escapes.jsonl corpus/sanitize/
cp "$fixtures"/hostile/escapes.jsonl corpus/wrap/
cp "$fixtures"/converse-logs/resources/env_persona1.txt corpus/matchers/
printf 'data: {"choices":[{"delta":{"content":"Hel"}}]}\n\ndata: {"choices":[{"delta":{"content":"lo"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n' \
  > corpus/sse_stream/text
printf ': ping\r\ndata: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"get","arguments":"{\\"q\\""}}]}}]}\r\n\r\ndata: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]},"finish_reason":"tool_calls"}]}\n\n' \
  > corpus/sse_stream/tool
