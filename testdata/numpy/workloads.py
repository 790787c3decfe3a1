#!/usr/bin/env python3
"""The InferenceX random-dataset length draw, done the way the benchmark does it, with numpy.

Independent of the Rust generator: used by the differential test (the committed fixtures must
equal what numpy draws) and by `cargo xtask bench fixtures` (the Python side of the ratio).

    python3 testdata/numpy/workloads.py emit POINTS_JSON          # all five seeds as JSON on stdout
    python3 testdata/numpy/workloads.py bench POINTS_JSON REPEATS # timing of generating all five
                                                                  # (one warm-up, then median)
"""
import json
import sys
import time

import numpy as np

SEEDS = [0, 1, 2, 3, 4]
RANGE_RATIO = 0.8  # RANDOM_RANGE_RATIO in the InferenceX workflow
REQUESTS_PER_CONCURRENCY = 10  # num_prompts = 10 x concurrency


def draw(seed, isl, osl, concurrency):
    # INFX utils/bench_serving/benchmark_serving.py, random dataset: one seed per process,
    # the prefix draw (size 0), input lengths, then output lengths.
    np.random.seed(seed)
    num_prompts = REQUESTS_PER_CONCURRENCY * concurrency
    np.random.randint(0, 1, size=0)
    input_lens = np.random.randint(int(isl * RANGE_RATIO), isl + 1, size=num_prompts)
    output_lens = np.random.randint(int(osl * RANGE_RATIO), osl + 1, size=num_prompts)
    return input_lens, output_lens


def generate_all(points):
    return [
        [(p, *draw(seed, p["isl"], p["osl"], p["concurrency"])) for p in points]
        for seed in SEEDS
    ]


def load_points(path):
    with open(path) as f:
        return json.load(f)["points"]


def main(argv):
    if len(argv) >= 2 and argv[0] == "emit":
        points = load_points(argv[1])
        seeds = []
        for seed, drawn in zip(SEEDS, generate_all(points)):
            seeds.append({
                "seed": seed,
                "range_ratio": RANGE_RATIO,
                "requests_per_concurrency": REQUESTS_PER_CONCURRENCY,
                "points": [
                    {"isl": p["isl"], "osl": p["osl"], "concurrency": p["concurrency"],
                     "input_lens": i.tolist(), "output_lens": o.tolist()}
                    for p, i, o in drawn
                ],
            })
        json.dump({"numpy_version": np.__version__, "seeds": seeds}, sys.stdout)
        return 0
    if len(argv) >= 3 and argv[0] == "bench":
        points = load_points(argv[1])
        generate_all(points)  # warm-up, untimed (imports and start-up are before it)
        times = []
        for _ in range(int(argv[2])):
            start = time.perf_counter()
            generate_all(points)
            times.append(time.perf_counter() - start)
        times.sort()
        json.dump({"numpy_version": np.__version__, "median_s": times[len(times) // 2],
                   "min_s": times[0], "repeats": len(times)}, sys.stdout)
        return 0
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
