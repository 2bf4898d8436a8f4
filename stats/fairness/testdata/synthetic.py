"""The seeded synthetic rows shared by bench_fairlearn.py and generate.py.

The same formula is written in Go in stats/fairness/synthetic_test.go;
golden.json holds a small case made with it, so the two cannot drift apart.

Row i (0-based) takes h = splitmix64(i + SEED) and reads four 16-bit fields:

  p = (h & 0xFFFF) % 100          gender: p < 45 female, p < 95 male, else nonbinary
  q = ((h >> 16) & 0xFFFF) % 100  race:   q < 60 white, < 75 black, < 88 asian, < 97 hispanic, else other
  r = ((h >> 32) & 0xFFFF) % 1000 y_true = r < 300 (r < 350 for male)
  s = ((h >> 48) & 0xFFFF) % 1000 y_pred = s < 800 (< 700 for female) when y_true,
                                           s < 150 (< 200 for male) otherwise
"""

import numpy as np

SEED = 20260917
GENDERS = np.array(["female", "male", "nonbinary"], dtype=object)
RACES = np.array(["white", "black", "asian", "hispanic", "other"], dtype=object)


def splitmix64(n):
    with np.errstate(over="ignore"):
        z = (np.arange(n, dtype=np.uint64) + np.uint64(SEED)) * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def synthetic_rows(n):
    """Return gender, race (object arrays of str), y_true, y_pred (int arrays of 0/1)."""
    h = splitmix64(n)
    m16 = np.uint64(0xFFFF)
    p = (h & m16) % np.uint64(100)
    q = ((h >> np.uint64(16)) & m16) % np.uint64(100)
    r = ((h >> np.uint64(32)) & m16) % np.uint64(1000)
    s = ((h >> np.uint64(48)) & m16) % np.uint64(1000)
    g = np.where(p < 45, 0, np.where(p < 95, 1, 2))
    race = np.select([q < 60, q < 75, q < 88, q < 97], [0, 1, 2, 3], 4)
    yt = r < np.where(g == 1, 350, 300)
    yp = np.where(yt, s < np.where(g == 0, 700, 800), s < np.where(g == 1, 200, 150))
    return GENDERS[g], RACES[race], yt.astype(np.int64), yp.astype(np.int64)
