"""The percentile bootstrap of oracles::bootstrap, computed by numpy for the differential test
(harness/tests/numpy_differential.rs).

Reads {"seed", "resamples", "cases": [{"sums", "counts", "b_sums"?, "b_counts"?}]} on stdin:
per-sweep sums of |e| and comparison counts (a paired case also gives the second arm's). For
each case: np.random.seed(seed); idx = np.random.randint(0, n, size=(resamples, n)); the
resampled pooled mean |e| (minus the second arm's, paired); np.percentile(..., [2.5, 97.5])
with numpy's default method. Writes {"numpy_version", "intervals": [{"low", "high"}]}.
"""

import json
import sys

import numpy as np


def main():
    request = json.load(sys.stdin)
    intervals = []
    for case in request["cases"]:
        sums = np.asarray(case["sums"], dtype=np.float64)
        counts = np.asarray(case["counts"], dtype=np.float64)
        n = len(sums)
        np.random.seed(request["seed"])
        idx = np.random.randint(0, n, size=(request["resamples"], n))
        figures = sums[idx].sum(axis=1) / counts[idx].sum(axis=1)
        if "b_sums" in case:
            b_sums = np.asarray(case["b_sums"], dtype=np.float64)
            b_counts = np.asarray(case["b_counts"], dtype=np.float64)
            figures = figures - b_sums[idx].sum(axis=1) / b_counts[idx].sum(axis=1)
        low, high = np.percentile(figures, [2.5, 97.5])
        intervals.append({"low": float(low), "high": float(high)})
    json.dump({"numpy_version": np.__version__, "intervals": intervals}, sys.stdout)


if __name__ == "__main__":
    main()
