"""Writes Inspect AI logs of every shape converse-tui must read and write back, with Inspect's own
`eval()` and `eval_set()` against mockllm, and prints what Inspect's readers read in them.

Usage: python inspect_shapes.py OUT_DIR

Writes OUT_DIR/shapes.eval and OUT_DIR/shapes.json (one task: a sample whose id holds `/`, a sample that writes its store, a
message-limited sample, an errored sample, a sample retried after an error; a system message; scorers
giving C/I, P, N, booleans, numbers and a dict) and OUT_DIR/set/ (an `eval_set` of two tasks: its
eval-set.json, logs.json and two logs). Prints one JSON object: per log, `log_view` of it.
"""

import json
import os
import shutil
import sys

import inspect_ai.model._model as _model

# mockllm counts tokens with tiktoken, which downloads its tables: count offline instead.
_model.count_text_tokens = lambda text: max(1, len(text) // 4)

from inspect_ai import Task, eval, eval_set  # noqa: E402
from inspect_ai.dataset import Sample  # noqa: E402
from inspect_ai.log import read_eval_log, write_eval_log  # noqa: E402
from inspect_ai.model import ModelOutput, get_model  # noqa: E402
from inspect_ai.scorer import Score, mean, scorer, accuracy, match  # noqa: E402
from inspect_ai.solver import generate, solver, system_message, use_tools  # noqa: E402
from inspect_ai.tool import tool  # noqa: E402
from inspect_ai.util import store  # noqa: E402
from inspect_view import log_view  # noqa: E402  (beside this script)

ATTEMPTS = {}


@tool
def lookup():
    async def execute(city: str):
        """Look up a city.

        Args:
            city: the city
        """
        return "Paris is the capital of France."

    return execute


@solver
def shaped():
    async def solve(state, generate):
        sid = str(state.sample_id)
        if sid == "errored":
            raise RuntimeError("the tool server went away")
        if sid == "retried":
            ATTEMPTS[sid] = ATTEMPTS.get(sid, 0) + 1
            if ATTEMPTS[sid] == 1:
                raise ConnectionError("a flaky connection, first attempt")
        if sid == "store":
            store().set("plan", {"steps": ["ask", "answer"], "done": True})
            store().set("visits", 3)
        return await generate(state)

    return solve


@scorer(metrics=[mean()])
def partial():
    async def score(state, target):
        return Score(value="P", answer="half", explanation="half right")

    return score


@scorer(metrics=[mean()])
def boolean():
    async def score(state, target):
        return Score(value=True, explanation="a boolean")

    return score


@scorer(metrics=[mean()])
def number():
    async def score(state, target):
        return Score(value=0.25, explanation="a quarter")

    return score


@scorer(metrics=[{"clarity": [mean()], "safety": [mean()]}])
def dims():
    async def score(state, target):
        return Score(value={"clarity": 0.5, "safety": 1.0}, explanation="two dimensions", metadata={"rubric": "v1"})

    return score


@scorer(metrics=[accuracy()])
def unanswered():
    async def score(state, target):
        return Score(value="N", explanation="no answer")

    return score


def shapes_task():
    return Task(
        name="shapes",
        dataset=[
            Sample(input="What is the capital of France?", target="Paris", id="qa/paris", metadata={"kind": "qa"}),
            Sample(input="Make a plan.", target="plan", id="store"),
            Sample(input="Talk for a long time.", target="long", id="limited"),
            Sample(input="This one breaks.", target="x", id="errored"),
            Sample(input="This one is retried.", target="Paris", id="retried"),
        ],
        solver=[system_message("You are a careful assistant."), use_tools(lookup()), shaped()],
        scorer=[match(location="any"), partial(), boolean(), number(), dims(), unanswered()],
        message_limit=6,
    )


def outputs():
    # Each sample's calls in turn (max_samples=1 keeps the order): the limited sample calls the tool
    # until its message limit stops it.
    tool_call = ModelOutput.for_tool_call("mockllm/model", "lookup", {"city": "Paris"})
    return [
        tool_call,
        ModelOutput.from_content("mockllm/model", "Paris."),
        ModelOutput.from_content("mockllm/model", "Plan: ask, then answer."),
        tool_call,
        tool_call,
        tool_call,
        tool_call,
        ModelOutput.from_content("mockllm/model", "It is Paris."),
    ] + [ModelOutput.from_content("mockllm/model", "spare")] * 8


def shapes_log(out_dir):
    model = get_model("mockllm/model", custom_outputs=outputs())
    log = eval(
        shapes_task(),
        model=model,
        log_dir=out_dir,
        log_format="eval",
        display="none",
        max_samples=1,
        fail_on_error=False,
        retry_on_error=1,
    )[0]
    path = os.path.join(out_dir, "shapes.eval")
    shutil.move(log.location, path)
    return path


def small_task(name, answer):
    return Task(
        name=name,
        dataset=[Sample(input="Capital of France?", target="Paris", id="q1")],
        solver=generate(),
        scorer=match(location="any"),
    )


def set_logs(out_dir):
    set_dir = os.path.join(out_dir, "set")
    model = get_model("mockllm/model", custom_outputs=[ModelOutput.from_content("mockllm/model", "Paris.")] * 4)
    ok, logs = eval_set(
        [small_task("set_a", "Paris."), small_task("set_b", "Paris.")],
        model=model,
        log_dir=set_dir,
        display="none",
    )
    assert ok, "the eval set did not finish"
    return sorted(log.location for log in logs)


def main():
    out_dir = sys.argv[1]
    shapes = shapes_log(out_dir)
    # The same log as a plain `.json` log, as Inspect's writer writes one.
    shapes_json = os.path.join(out_dir, "shapes.json")
    write_eval_log(read_eval_log(shapes), shapes_json, format="json")
    views = {"shapes.eval": log_view(shapes), "shapes.json": log_view(shapes_json)}
    for location in set_logs(out_dir):
        views["set/" + os.path.basename(location)] = log_view(location)
    print(json.dumps(views))


main()
