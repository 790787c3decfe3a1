#!/usr/bin/env python3
"""Regenerate testdata/numpy/known_answers.json with real numpy.

The file is the known-answer evidence that oracles::numpy is numpy's legacy generator: raw
MT19937 words after np.random.seed(s) (proving rand_mt's seeding and word order), sequences of
randint calls on one generator (every rule of the legacy int64 path: size 0, a single value,
masked 32-bit rejection, the 64-bit path, the full int64 span, errors), and Python's
int(length * ratio) truncation. Run from anywhere:

    python3 testdata/numpy/known_answers.py          # rewrite the file
    python3 testdata/numpy/known_answers.py --check  # exit 1 if the file differs
"""
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "known_answers.json")

I64_MIN, I64_END = -(2**63), 2**63

# Seeds: 0 (InferenceX), small, numpy's own default-looking ones, and the u32 edge.
WORD_SEEDS = [0, 1, 42, 5489, 2**31, 2**32 - 1]
# Windows of the raw word stream: the start, across the first state regeneration (624), the second.
WORD_WINDOWS = [(0, 8), (620, 8), (1244, 8)]

# Each sequence is replayed on ONE generator seeded once; calls are (low, high, size).
SEQUENCES = [
    (0, [(819, 1025, 5)]),
    (0, [(819, 1025, 0), (819, 1025, 5)]),  # size 0 first: the generator is untouched
    (0, [(819, 1025, 5), (819, 1025, 0), (819, 1025, 5)]),  # size 0 between two draws
    (0, [(819, 1025, 10), (819, 1025, 10)]),  # InferenceX 1k1k-c1: inputs then outputs
    (0, [(6553, 8193, 10), (819, 1025, 10)]),  # 8k1k-c1
    (1, [(0, 2, 16), (5, 5, 0), (7, 8, 4), (0, 10, 8)]),  # size 0 on an empty range; one value
    (2, [(5, 5, 3), (0, 10, 4)]),  # an error draws nothing
    (3, [(0, 0, 1), (6, 5, 2), (0, 3, 6)]),
    (4, [(-5, 5, 20), (-(2**40), -(2**40) + 3, 10)]),
    (5, [(0, 2**32, 6), (0, 2**32 - 1, 6)]),  # rng 2^32-1 (raw words) and 2^32-2
    (6, [(0, 2**32 + 1, 6), (0, 2**32 + 2, 6)]),  # rng 2^32: the 64-bit path
    (7, [(-(2**40), 2**40, 8), (2**62, I64_END, 8)]),
    (8, [(I64_MIN, I64_END, 6)]),  # rng 2^64-1: the 64-bit draw as is
    (9, [(I64_MIN, I64_END - 1, 4), (I64_MIN + 1, I64_END, 4)]),  # rng 2^64-2
    (10, [(I64_MIN - 1, 0, 1), (0, I64_END + 1, 1), (I64_MIN, 0, 0), (0, I64_END, 3)]),
    (2**32 - 1, [(819, 1025, 700), (1, 2**33, 5)]),  # crosses a state regeneration
    (123456789, [(0, 1, 5), (0, 7, 50), (100, 101, 0), (-3, 3, 25)]),
]

TRUNCATIONS = [(1024, 0.8), (8192, 0.8), (100, 0.57), (10, 0.7), (3, 0.1), (4096, 0.9), (1, 0.8)]


def raw_words(seed, first, count):
    rs = np.random.RandomState(seed)
    return [int(w) for w in rs._bit_generator.random_raw(first + count)[first:]]


def replay(seed, calls):
    np.random.seed(seed)
    out = []
    for low, high, size in calls:
        call = {"low": low, "high": high, "size": size}
        try:
            call["values"] = [int(v) for v in np.random.randint(low, high, size=size)]
        except ValueError as e:
            call["error"] = str(e)
        out.append(call)
    return {"seed": seed, "calls": out}


def build():
    return {
        "about": "Known answers from real numpy for oracles::numpy; regenerate with "
        "testdata/numpy/known_answers.py",
        "numpy_version": np.__version__,
        "words": [
            {"seed": s, "first": first, "u32": raw_words(s, first, count)}
            for s in WORD_SEEDS
            for first, count in WORD_WINDOWS
        ],
        "sequences": [replay(seed, calls) for seed, calls in SEQUENCES],
        "truncations": [
            {"length": n, "ratio": r, "lower": int(n * r)} for n, r in TRUNCATIONS
        ],
    }


def render(doc):
    # One record per line: compact, and a change shows as one changed line in a diff.
    lines = ["{"]
    lines.append(f'  "about": {json.dumps(doc["about"])},')
    lines.append(f'  "numpy_version": {json.dumps(doc["numpy_version"])},')
    for key in ("words", "sequences", "truncations"):
        lines.append(f'  "{key}": [')
        rows = [json.dumps(r, separators=(", ", ": ")) for r in doc[key]]
        lines.append(",\n".join("    " + r for r in rows))
        lines.append("  ]," if key != "truncations" else "  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main():
    doc = build()
    text = render(doc)
    if "--check" in sys.argv[1:]:
        # The known answers are the values; which numpy wrote the file is not one of them.
        with open(OUT) as f:
            committed = json.load(f)
        for key in ("words", "sequences", "truncations"):
            if committed.get(key) != doc[key]:
                first = next(
                    (i for i, (a, b) in enumerate(zip(committed.get(key) or [], doc[key])) if a != b),
                    min(len(committed.get(key) or []), len(doc[key])),
                )
                print(f"{OUT}: `{key}[{first}]` differs from what numpy {np.__version__} gives", file=sys.stderr)
                return 1
        print(f"{OUT} matches numpy {np.__version__} (written with {committed.get('numpy_version')})")
        return 0
    tmp = OUT + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, OUT)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
