#!/usr/bin/env python3
"""Answer randint sequences with real numpy, for the live differential test.

Reads JSON on stdin: [{"seed": S, "calls": [{"low": L, "high": H, "size": N}, ...]}, ...]
and writes the same list with each call's "values" (or numpy's ValueError text as "error"),
each sequence replayed on the legacy global generator after np.random.seed(S).
"""
import json
import sys

import numpy as np


def main():
    sequences = json.load(sys.stdin)
    for seq in sequences:
        np.random.seed(seq["seed"])
        for call in seq["calls"]:
            try:
                values = np.random.randint(call["low"], call["high"], size=call["size"])
                call["values"] = [int(v) for v in values]
            except ValueError as e:
                call["error"] = str(e)
    json.dump({"numpy_version": np.__version__, "sequences": sequences}, sys.stdout)


if __name__ == "__main__":
    main()
