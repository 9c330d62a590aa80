#!/usr/bin/env python3
"""An OpenAI-compatible server whose every reply streams slowly: DELTAS deltas, one per
INTERVAL seconds (for benches/measure_stream_frames.sh). Usage: stream_server.py PORT"""
import json, sys, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

DELTAS, INTERVAL = 2000, 0.002
WORDS = "the assistant considers the offer and the user's budget carefully before it replies ".split()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        text = " ".join(WORDS[i % len(WORDS)] for i in range(DELTAS))
        if not body.get("stream"):
            reply = json.dumps({"choices": [{"message": {"role": "assistant", "content": json.dumps({"text": text, "details": "d"})}, "finish_reason": "stop"}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

        def send(data):
            chunk = f"data: {data}\n\n".encode()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            self.wfile.flush()

        pieces = ['{"text": "'] + [w + " " for w in (WORDS[i % len(WORDS)] for i in range(DELTAS))] + ['", "details": "d"}']
        for piece in pieces:
            send(json.dumps({"choices": [{"delta": {"content": piece}, "finish_reason": None}]}))
            time.sleep(INTERVAL)
        send(json.dumps({"choices": [{"delta": {}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 10, "completion_tokens": DELTAS}}))
        send("[DONE]")
        self.wfile.write(b"0\r\n\r\n")


ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
