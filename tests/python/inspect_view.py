"""What Inspect's own reader (`inspect_ai.log.read_eval_log`) reads in a log, as JSON: the tests
compare converse-tui's reading and writing with it.

Usage: python inspect_view.py LOG  (prints the view of one log); imported by inspect_logs.py.
"""

import json
import sys

from inspect_ai.log import read_eval_log


def message_view(m):
    view = {"role": m.role, "text": m.text}
    if getattr(m, "tool_calls", None):
        view["tool_calls"] = [{"id": c.id, "function": c.function, "arguments": c.arguments} for c in m.tool_calls]
    if m.role == "tool":
        view["tool_call_id"] = m.tool_call_id
        view["function"] = m.function
    return view


def sample_view(s):
    view = {
        "id": s.id,
        "epoch": s.epoch,
        "input": s.input,
        "messages": [message_view(m) for m in s.messages],
        "scores": {
            name: {"value": sc.value, "answer": sc.answer, "explanation": sc.explanation, "metadata": sc.metadata}
            for name, sc in (s.scores or {}).items()
        },
        "metadata": s.metadata,
        "attachments": len(s.attachments),
        "tool_events": [{"id": e.id, "function": e.function, "result": e.result} for e in s.events if e.event == "tool"],
    }
    target_calls = [e for e in s.events if e.event == "model" and e.role == "target"]
    if target_calls:
        last = target_calls[-1]
        view["target_conversation"] = [message_view(m) for m in last.input] + [message_view(last.output.message)]
    return view


def log_view(path):
    log = read_eval_log(path)
    return {
        "status": log.status,
        "task": log.eval.task,
        "model": log.eval.model,
        "samples": [sample_view(s) for s in log.samples],
    }


if __name__ == "__main__":
    print(json.dumps(log_view(sys.argv[1])))
