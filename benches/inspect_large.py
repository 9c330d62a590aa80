"""Writes a large Inspect `.eval` log with Inspect's own writer (`write_eval_log`), for
benches/measure_inspect.sh: SAMPLES agent samples of about SAMPLE_KB each (user, assistant with a tool
call, tool result, answer; one score), and one sample whose tool result is BIG_MB of text. TEXT is
`words` (a transcript's words, which zstd shrinks about tenfold) or `random` (base64 of random bytes,
76-character lines, which it cannot shrink below three quarters: a file as large on disk as inflated,
nearly).

Usage: python benches/inspect_large.py OUT.eval [BIG_MB=100] [SAMPLES=1000] [SAMPLE_KB=100] [TEXT=words]
"""

import base64
import random
import sys

from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalResults, EvalSample, EvalSpec, write_eval_log
from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageTool, ChatMessageUser
from inspect_ai.scorer import Score
from inspect_ai.tool import ToolCall

WORDS = (
    "the assistant checks the user's calendar before it answers the provider's question about "
    "travel insurance, hotel prices, the dentist and the bank transfer; "
)


RANDOM = False


def text(n_bytes, salt):
    if RANDOM:
        raw = n_bytes * 3 // 4 + 1
        chunks = [random.randbytes(min(1 << 20, raw - at)) for at in range(0, raw, 1 << 20)]
        return base64.encodebytes(b"".join(chunks)).decode()[:n_bytes]
    # Varied lines so the compressor has work to do, as in a real transcript.
    line = WORDS * 2
    lines = [f"{salt}-{i}: {line}" for i in range(n_bytes // (len(line) + 12) + 1)]
    return "\n".join(lines)[:n_bytes]


def sample(i, result_bytes):
    call = ToolCall(id=f"call-{i}", function="search_emails", arguments={"query": f"trip {i}"})
    messages = [
        ChatMessageSystem(content="You are a careful travel assistant."),
        ChatMessageUser(content=f"Plan trip {i} and do not share my passport number."),
        ChatMessageAssistant(content="Let me look at your emails.", tool_calls=[call], model="mockllm/model"),
        ChatMessageTool(content=text(result_bytes, f"r{i}"), tool_call_id=call.id, function="search_emails"),
        ChatMessageAssistant(content=f"Trip {i} is planned; I kept your passport number private.", model="mockllm/model"),
    ]
    score = Score(value="C" if i % 3 else "I", answer="planned", explanation=f"sample {i} checked")
    return EvalSample(id=f"trip{i}", epoch=1, input=messages[1].text, target="planned", messages=messages,
                      scores={"privacy": score})


def main():
    out = sys.argv[1]
    big_mb = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    sample_kb = int(sys.argv[4]) if len(sys.argv) > 4 else 100
    global RANDOM
    RANDOM = len(sys.argv) > 5 and sys.argv[5] == "random"
    random.seed(29)
    samples = [sample(0, big_mb << 20)] + [sample(i, sample_kb << 10) for i in range(1, count + 1)]
    log = EvalLog(
        version=2,
        status="success",
        eval=EvalSpec(created="2026-11-25T00:00:00+00:00", task="big_agent", dataset=EvalDataset(samples=len(samples)),
                      model="mockllm/model", config=EvalConfig()),
        samples=samples,
        results=EvalResults(total_samples=len(samples), completed_samples=len(samples)),
    )
    write_eval_log(log, out, format="eval")


main()
