# Every headline cell and its 95% interval from the per-point table (docs/points.md, "Recipe"):
# python3 headline_from_points.py points.csv [measured]   prints `<tier>.<arm>.<metric> mean low high`.
import csv, sys, numpy as np
rows = [r for r in csv.DictReader(open(sys.argv[1])) if len(sys.argv) < 3 or r["measured_tier"] == "1"]
for tier in ["strict", "measured_or_resolved", "all"]:
    for arm in dict.fromkeys(r["arm"] for r in rows):
        for col, key in [("tpot_shape_error", "tpot_shape"), ("tpot_ape", "tpot_mape"), ("ttft_shape_error", "ttft_shape"), ("ttft_ape", "ttft_mape")]:
            sel = [(r["scenario"], r["label"], abs(float(r[col]))) for r in rows if r[tier] == "1" and r["arm"] == arm and r[col]]
            sweeps = list(dict.fromkeys(s[:2] for s in sel))  # corpus order: the bootstrap's sweep indices
            if not sel: continue
            sums, n = (np.array([sum(f(e) for *k, e in sel if tuple(k) == s) for s in sweeps]) for f in (float, lambda e: 1))
            np.random.seed(20261201); pick = np.random.randint(0, len(sweeps), size=(10000, len(sweeps)))
            low, high = np.percentile(sums[pick].sum(1) / n[pick].sum(1), [2.5, 97.5]) if len(sweeps) > 1 else (np.nan, np.nan)
            print(f"{tier}.{arm}.{key} {np.mean([e for *_, e in sel]):.2f} {low:.2f} {high:.2f}")
