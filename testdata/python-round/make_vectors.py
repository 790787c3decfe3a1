"""Writes vectors.txt: CPython's round(x, n) on ties, near-ties and published-looking values.

Run: python3 make_vectors.py > vectors.txt   (any CPython 3; round() on floats is specified
as correctly rounded, half to even on the exact binary value).
"""
import random
import sys

rng = random.Random(20261129)
cases = []
# Exact binary ties at 2 decimals (k/8 and k/4 are exact; x.xx5 ties only where representable).
cases += [(k / 8, 2) for k in range(-40, 41)]
cases += [(k / 1000 + 0.005, 2) for k in range(0, 2000, 7)]  # decimal near-ties, mostly inexact
cases += [(round(rng.uniform(0, 500), 3), 2) for _ in range(300)]  # 3-decimal values: x.xx5 near-ties
cases += [(rng.uniform(0, 3), 6) for _ in range(200)]  # relatives
cases += [(rng.uniform(0, 1000), 2) for _ in range(200)]
cases += [(2.675, 2), (1.005, 2), (0.125, 2), (0.375, 2), (1e-300, 2), (123456789.125, 2), (2.5, 0), (0.5, 0), (-2.5, 0)]
sys.stdout.write("# x ndigits round(x, ndigits), each float as repr(); made by make_vectors.py with CPython %s\n" % sys.version.split()[0])
for x, n in cases:
    sys.stdout.write("%r %d %r\n" % (x, n, round(x, n)))
