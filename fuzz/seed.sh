#!/usr/bin/env bash
# Seeds each target's corpus from the project's fixtures (the corpora themselves are not committed).
set -euo pipefail
cd "$(dirname "$0")"
fixtures=../tests/fixtures
mkdir -p corpus/{import,journal,sse_stream,persona,sanitize,wrap,matchers,app,http_body,inspect,inspect_refs,mcp_server}
for f in "$fixtures"/hostile/*.jsonl "$fixtures"/converse-logs/*/*.json; do
  [ -s "$f" ] || continue
  name=$(basename "$(dirname "$f")")-$(basename "$f")
  cp "$f" "corpus/import/$name"
  cp "$f" "corpus/app/$name"
done
cp "$fixtures"/hostile/*.jsonl corpus/journal/
# inspect: a real log Inspect wrote (zstd), and a sample's JSON to be zipped by the target.
cp "$fixtures"/inspect/*.eval corpus/inspect/
printf '\x01{"version":2,"eval":{"task":"t","model_roles":{"auditor":{"model":"a"},"target":{"model":"b"}}}}\xff{"id":1,"epoch":1,"input":"hi","target":"","messages":[{"role":"user","content":"attachment://a"},{"role":"assistant","content":[{"type":"reasoning","reasoning":"r"},{"type":"text","text":"ok"}],"tool_calls":[{"id":"c","function":"f","arguments":{"x":"attachment://a"}}]},{"role":"tool","content":"r","tool_call_id":"c","function":"f","error":{"type":"timeout","message":"m"}}],"scores":{"s":{"value":"C","explanation":"e"},"d":{"value":{"a":1}}},"attachments":{"a":"A"},"events":[{"event":"model","role":"target","input_refs":[[0,9]],"output":{"choices":[{"message":{"role":"assistant","content":"x"}}]}}],"events_data":{"messages":[{"role":"user","content":"p"}]}}' \
  > corpus/inspect/audit-sample
# A sample with a branch (span, BranchEvent, an anchor in another branch, a score inside it).
printf '\x02{"version":2,"status":"success","eval":{"task":"t"}}\xff{"id":"b","epoch":1,"messages":[{"role":"user","content":"q"},{"role":"assistant","content":"a"}],"events":[{"event":"anchor","anchor_id":"x"},{"event":"span_begin","id":"s1","type":"branch","name":"one"},{"event":"branch","span_id":"s1","from_anchor":"x"},{"event":"anchor","anchor_id":"y","span_id":"s1"},{"event":"model","span_id":"s1","input":[{"role":"user","content":"q"}],"output":{"choices":[{"message":{"role":"assistant","content":"b"}}]}},{"event":"score","span_id":"s1","scorer":"s","score":{"value":"C"}},{"event":"span_end","id":"s1"},{"event":"span_begin","id":"s2","parent_id":"s1","type":"branch","name":"one"},{"event":"branch","span_id":"s2","from_anchor":"y"},{"event":"model","span_id":"s2","input":[],"output":{"choices":[{"message":{"role":"assistant","content":"c"}}]}}]}' \
  > corpus/inspect/branch-sample
# inspect_refs decodes any bytes into a sample with attachments and condensed events: varied
# bytes (a real log, journals) make varied samples.
cp "$fixtures"/inspect/*.eval corpus/inspect_refs/
cp "$fixtures"/hostile/*.jsonl corpus/inspect_refs/
cp "$fixtures"/converse-logs/resources/env_persona*.txt corpus/persona/
cp "$fixtures"/hostile/escapes.jsonl corpus/sanitize/
cp "$fixtures"/hostile/escapes.jsonl corpus/wrap/
cp "$fixtures"/converse-logs/resources/env_persona1.txt corpus/matchers/
printf 'data: {"choices":[{"delta":{"content":"Hel"}}]}\n\ndata: {"choices":[{"delta":{"content":"lo"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n' \
  > corpus/sse_stream/text
printf ': ping\r\ndata: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"get","arguments":"{\\"q\\""}}]}}]}\r\n\r\ndata: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":":1}"}}]},"finish_reason":"tool_calls"}]}\n\n' \
  > corpus/sse_stream/tool
# http_body: one byte (odd: streamed), then a whole HTTP response as a server sends it.
json='{"choices":[{"message":{"role":"assistant","content":"Hello"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}'
printf '\x00HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s' "${#json}" "$json" \
  > corpus/http_body/json
printf '\x00HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n{"choices":[{"me\r\n30\r\nssage":{"content":"Hi"},"finish_reason":"stop"}]} \r\n0\r\n\r\n' \
  > corpus/http_body/chunked
printf '\x01HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n2f\r\ndata: {"choices":[{"delta":{"content":"Hel"}}]}\n\n\r\n4d\r\ndata: {"choices":[{"delta":{"content":"lo"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n\r\n0\r\n\r\n' \
  > corpus/http_body/sse-chunked
printf '\x01HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"get","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}\n\n' \
  > corpus/http_body/sse-tool
printf '\x00HTTP/1.1 500 Internal Server Error\r\nContent-Type: application/json\r\nContent-Length: 38\r\n\r\n{"error":{"message":"overloaded, sk-"}}' \
  > corpus/http_body/error
printf '\x01HTTP/1.1 429 Too Many Requests\r\nRetry-After: 1\r\nContent-Length: 5\r\n\r\nslow!' > corpus/http_body/retry
printf '\x00HTTP/1.1 200 OK\r\nContent-Length: 99999999\r\n\r\n{"choices":[' > corpus/http_body/declared-huge
head -c 6000 /dev/zero | tr '\0' 'a' | { printf '\x00HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{"choices":[{"message":{"content":"'; cat; printf '"}}]}'; } \
  > corpus/http_body/over-cap
# mcp_server: whole requests as an agent sends them (TOKEN stands for the episode's token).
mcp_post() {
  printf 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer TOKEN\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\n%sContent-Length: %d\r\n\r\n%s' "$2" "${#1}" "$1"
}
mcp_post '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"f","version":"0"}}}' '' > corpus/mcp_server/initialize
mcp_post '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"send_email","arguments":{"recipient":"e@x","body":"b"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}' 'MCP-Protocol-Version: 2026-07-28\r\n' > corpus/mcp_server/call-stateless
mcp_post '{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}' 'MCP-Protocol-Version: 2026-07-28\r\n' > corpus/mcp_server/list-stateless
printf 'GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer TOKEN\r\nAccept: text/event-stream\r\nOrigin: https://evil.example\r\n\r\n' > corpus/mcp_server/get-origin
printf 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}' > corpus/mcp_server/no-token
