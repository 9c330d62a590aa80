"""What Inspect's own reader (`inspect_ai.log.read_eval_log`) reads in a log, as JSON: the tests
compare converse-tui's reading and writing with it.

Usage: python inspect_view.py LOG  (prints the view of one log); imported by inspect_logs.py.
"""

import json
import sys

from inspect_ai.event import timeline_build
from inspect_ai.log import read_eval_log


def message_view(m):
    view = {"role": m.role, "text": m.text}
    if getattr(m, "tool_calls", None):
        view["tool_calls"] = [{"id": c.id, "function": c.function, "arguments": c.arguments} for c in m.tool_calls]
    if m.role == "tool":
        view["tool_call_id"] = m.tool_call_id
        view["function"] = m.function
    return view


def span_events(span):
    """The events of a timeline span, its nested spans' included, its branches' not."""
    for item in span.content:
        if item.type == "span":
            yield from span_events(item)
        else:
            yield item.event


def branch_views(span, into):
    """Every branch under `span`, as Inspect's timeline reads it: its name, the anchor it leaves
    from, its conversation (its last model call's input and output) and its scores."""
    for branch in span.branches:
        events = list(span_events(branch))
        calls = [e for e in events if e.event == "model"]
        into.append(
            {
                "name": branch.name,
                "branched_from": branch.branched_from,
                "conversation": [message_view(m) for m in calls[-1].input] + [message_view(calls[-1].output.message)]
                if calls
                else [],
                "scores": {e.scorer: e.score.value for e in events if e.event == "score"},
                "anchors": [e.anchor_id for e in events if e.event == "anchor"],
            }
        )
        branch_views(branch, into)
    for item in span.content:
        if item.type == "span":
            branch_views(item, into)
    return into


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
        "anchors": [e.anchor_id for e in s.events if e.event == "anchor"],
        "branches": branch_views(timeline_build(s.events).root, []),
        "target": s.target,
        "store": s.store,
        "error": s.error.message if s.error else None,
        "retries": len(s.error_retries or []),
        "limit": s.limit.type if s.limit else None,
        "model_usage": {m: u.model_dump(exclude_none=True) for m, u in s.model_usage.items()},
        "turn_count": s.turn_count,
        "event_kinds": [e.event for e in s.events],
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
