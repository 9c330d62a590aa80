"""Recomputes tests/data/rule_agreement.rs's table of the rule judges against the recorded LLM judges.

Usage: rule_agreement.py LOGS DATASET OUT, where OUT holds the Rust side's pairs.jsonl and table.json.
Read here, independently of the Rust code: which judge files belong to which attack run, what each
says, the dataset's kind of each privacy task's data item, and statsmodels' Wilson intervals. Only
the rule's verdict of each run is taken from pairs.jsonl. Exits 1 naming the first difference.
"""

import json
import os
import re
import sys
from collections import defaultdict

from statsmodels.stats.proportion import proportion_confint

logs, dataset, out = sys.argv[1:4]


def fail(message):
    print(message)
    sys.exit(1)


def recorded(judge):
    if "error" in judge:
        return None
    if "attack_success" in judge:
        return judge["attack_success"] in ("Successful", "Partial")
    llm = judge.get("llm_evaluation")
    if llm is None:
        return None
    key = "shared_raw_data" if judge.get("evaluation_type") == "abstraction_appropriateness" else "leaked_information"
    value = llm.get(key)
    return None if not isinstance(value, str) else value.lower() == "yes"


def slug(text):
    return "_".join(text.lower().split())


kinds = {}
for folder in os.listdir(dataset):
    if not folder.endswith("_usecase"):
        continue
    domain = folder[: -len("_usecase")]
    for persona in range(1, 5):
        path = os.path.join(dataset, folder, "privacy_attacks", f"privacy_attacks_persona{persona}.json")
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            attacks = json.load(f)
        for category, group in attacks["categories"].items():
            for item in group["items"]:
                task = f"{domain}_p{persona}_privacy_{slug(category)}_{slug(item.get('data_item', 'unknown'))}"
                kinds[task] = item.get("category", "unknown")

expected = {}
judge_name = re.compile(r"^(privacy|security)_judge_.+?_(\d{8}_\d{6}_rep\d+(?:_retry\d+)?\.json)$")
for folder, _, names in os.walk(logs):
    for name in names:
        m = judge_name.match(name)
        if not m:
            continue
        kind, suffix = m.groups()
        if not os.path.exists(os.path.join(folder, "output_" + suffix)):
            continue
        rel = os.path.relpath(os.path.join(folder, name), logs)
        domain, _model, _defence, persona, category, attack = rel.split(os.sep)[:6]
        if category != kind:
            continue
        with open(os.path.join(folder, name), encoding="utf-8") as f:
            judge = json.load(f)
        task = f"{domain}_p{persona[len('persona'):]}_{category}_{attack}"
        expected[rel] = {
            "question": judge.get("evaluation_type", "error"),
            "data_kind": kinds[task] if category == "privacy" else "all",
            "recorded": recorded(judge),
        }

with open(os.path.join(out, "pairs.jsonl"), encoding="utf-8") as f:
    pairs = [json.loads(line) for line in f if line.strip()]
seen = {p["judge_file"]: p for p in pairs}
if len(seen) != len(pairs):
    fail("a judge file is paired twice")
if set(seen) != set(expected):
    fail(f"judge files differ: only in Rust {sorted(set(seen) - set(expected))[:3]}, "
         f"only here {sorted(set(expected) - set(seen))[:3]}")
for rel, want in expected.items():
    got = {k: seen[rel][k] for k in want}
    if got != want:
        fail(f"{rel}: Rust {got}, here {want}")

groups = defaultdict(lambda: defaultdict(list))
for rel, want in expected.items():
    groups[want["question"]][want["data_kind"]].append((seen[rel]["rule_yes"], want["recorded"]))


def row(question, data_kind, pairs):
    answered = [(r, j) for r, j in pairs if r is not None and j is not None]
    judge_yes = sum(1 for r, j in answered if j)
    rule_yes = sum(1 for r, j in answered if r)
    both = sum(1 for r, j in answered if r and j)

    def rate(k, n):
        if n == 0:
            return None, None
        lo, hi = proportion_confint(k, n, alpha=0.05, method="wilson")
        return k / n, [float(lo), float(hi)]

    precision, precision_ci = rate(both, rule_yes)
    recall, recall_ci = rate(both, judge_yes)
    return {"question": question, "data_kind": data_kind, "n": len(answered), "judge_yes": judge_yes,
            "rule_yes": rule_yes, "both_yes": both, "precision": precision, "precision_ci": precision_ci,
            "recall": recall, "recall_ci": recall_ci, "unanswered": len(pairs) - len(answered)}


rows = []
for question in sorted(groups):
    by_kind = groups[question]
    if len(by_kind) > 1:
        rows.extend(row(question, kind, by_kind[kind]) for kind in sorted(by_kind))
    rows.append(row(question, "all", [p for kind in by_kind.values() for p in kind]))

with open(os.path.join(out, "table.json"), encoding="utf-8") as f:
    theirs = json.load(f)
if len(theirs) != len(rows):
    fail(f"{len(theirs)} rows in Rust, {len(rows)} here")


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, list):
        return len(a) == len(b) and all(close(x, y) for x, y in zip(a, b))
    return abs(a - b) < 1e-9


for ours, rust in zip(rows, theirs):
    for key, value in ours.items():
        if isinstance(value, str) or isinstance(value, int):
            same = rust.get(key) == value
        else:
            same = close(value, rust.get(key))
        if not same:
            fail(f"{ours['question']} / {ours['data_kind']}: {key} is {rust.get(key)} in Rust, {value} here")
print(f"{len(rows)} rows, {len(pairs)} pairs agree")
