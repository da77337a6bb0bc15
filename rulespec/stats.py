"""The statistics of simulations, in plain Python (no numpy or scipy), so that `rulespec
simulate --check` runs in a content repository's CI without the `[sim]` extra.

What is computed, and why these:
- a mean with its 95% interval from Student's t (`mean_interval`): game length, scores,
  event counts;
- a rate with its 95% Wilson score interval (`rate_interval`): win rates and the rate of games
  ended by the rules. A win share is 1 for the winner, 1/k for each of k tied winners, 0
  otherwise, so a win rate is a mean; Wilson's interval stays within 0-100% and is not empty
  when every game went the same way (0 wins in 10 games: 0% [0, 28]), where a t interval is;
- the paired t-test (`paired_t`) for `rulespec compare`: the same seeds and bots are played on
  both packs, so each game of A has its twin in B and the test works on the per-game
  differences (two-sided; a difference with no spread at all is exact: p = 0, or 1 when it is 0);
- Holm's correction (`holm`) for the number of aggregates compared, so that among a hundred
  aggregates a few "significant" ones are not expected by chance alone (it bounds the chance of
  any false positive); or Benjamini-Hochberg's (`benjamini_hochberg`), which bounds the share
  of false positives among those called significant: more findings, for exploring.

The t distribution's CDF is computed exactly through the regularized incomplete beta function
(a continued fraction, Numerical Recipes §6.4); its quantile by bisection on the CDF.
"""
from __future__ import annotations

import math
from statistics import NormalDist
from dataclasses import dataclass

CONFIDENCE = 0.95
ALPHA = 0.05


@dataclass
class Estimate:
    """A mean and its 95% interval over n values."""
    mean: float
    low: float
    high: float
    n: int
    sd: float = 0.0

    def as_dict(self) -> dict:
        return {"mean": _r(self.mean), "low": _r(self.low), "high": _r(self.high), "n": self.n, "sd": _r(self.sd)}


def _r(x: float) -> float:
    return round(float(x), 6)


def mean_interval(values, confidence: float = CONFIDENCE) -> Estimate:
    """The mean of `values` and its t interval; one value (or none) has no spread: the
    interval is the mean itself."""
    xs = [float(v) for v in values]
    n = len(xs)
    if n == 0:
        return Estimate(0.0, 0.0, 0.0, 0)
    m = sum(xs) / n
    if n == 1:
        return Estimate(m, m, m, 1)
    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    half = t_quantile(0.5 + confidence / 2, n - 1) * sd / math.sqrt(n)
    return Estimate(m, m - half, m + half, n, sd)


def rate_interval(values, confidence: float = CONFIDENCE) -> Estimate:
    """The mean of values in [0, 1] (win shares, 0/1 outcomes) and its Wilson score interval."""
    xs = [float(v) for v in values]
    n = len(xs)
    if n == 0:
        return Estimate(0.0, 0.0, 0.0, 0)
    p = sum(xs) / n
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    sd = math.sqrt(sum((x - p) ** 2 for x in xs) / (n - 1)) if n > 1 else 0.0
    # the Wilson interval holds p in exact arithmetic; rounding can put a bound a hair past it
    return Estimate(p, max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half)), n, sd)


def _betacf(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz)."""
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c, d = 1.0, 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-14:
            break
    return h


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    lbeta = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(lbeta) * _betacf(a, b, x) / a
    return 1.0 - math.exp(lbeta) * _betacf(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's t with df degrees of freedom."""
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    tail = 0.5 * betainc(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


def t_quantile(p: float, df: float) -> float:
    """The t value below which a fraction p of Student's t lies (bisection on t_cdf)."""
    if not 0.0 < p < 1.0:
        raise ValueError("p must be between 0 and 1")
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        hi *= 2.0
    for _ in range(100):
        mid = (lo + hi) / 2.0
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2.0


@dataclass
class PairedTest:
    """The paired t-test of B - A over n pairs: the mean difference, its 95% interval, the
    two-sided p-value (and, after `holm`, the adjusted one and the verdict)."""
    mean_a: float
    mean_b: float
    diff: Estimate
    t: float
    p: float
    p_adjusted: float = 1.0
    significant: bool = False

    def as_dict(self) -> dict:
        return {"a": _r(self.mean_a), "b": _r(self.mean_b), "diff": self.diff.as_dict(),
                "t": _r(self.t) if math.isfinite(self.t) else (1e9 if self.t > 0 else -1e9),
                "p": _r(self.p), "p_adjusted": _r(self.p_adjusted), "significant": self.significant}


def paired_t(a: list, b: list) -> PairedTest:
    """The paired t-test on the differences b[i] - a[i] (same length)."""
    if len(a) != len(b):
        raise ValueError("a paired test needs as many values in both samples")
    d = [float(y) - float(x) for x, y in zip(a, b)]
    est = mean_interval(d)
    n = len(d)
    mean_a = sum(map(float, a)) / n if n else 0.0
    mean_b = sum(map(float, b)) / n if n else 0.0
    if n < 2 or est.sd == 0.0:
        # no spread: the difference is what it is in every pair
        exact = est.mean == 0.0
        t = 0.0 if exact else math.copysign(math.inf, est.mean)
        return PairedTest(mean_a, mean_b, est, t, 1.0 if exact or n < 2 else 0.0)
    t = est.mean / (est.sd / math.sqrt(n))
    p = 2.0 * (1.0 - t_cdf(abs(t), n - 1))
    return PairedTest(mean_a, mean_b, est, t, min(1.0, max(0.0, p)))


def holm(tests: list, alpha: float = ALPHA) -> list:
    """Holm's step-down correction over `tests` (PairedTest), in place: each gets its adjusted
    p-value, and `significant` when that is below alpha. Returns the tests."""
    m = len(tests)
    order = sorted(range(m), key=lambda i: tests[i].p)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * tests[i].p))
        tests[i].p_adjusted = running
        tests[i].significant = running < alpha
    return tests


def benjamini_hochberg(tests: list, alpha: float = ALPHA) -> list:
    """Benjamini-Hochberg's step-up correction over `tests`, in place (as `holm`)."""
    m = len(tests)
    order = sorted(range(m), key=lambda i: tests[i].p, reverse=True)
    running = 1.0
    for k, i in enumerate(order):
        rank = m - k                       # 1-based rank from the smallest p
        running = min(running, tests[i].p * m / rank)
        tests[i].p_adjusted = min(1.0, running)
        tests[i].significant = tests[i].p_adjusted < alpha
    return tests


CORRECTIONS = {"holm": holm, "bh": benjamini_hochberg}
CORRECTION_NAMES = {"holm": "Holm's correction", "bh": "Benjamini-Hochberg's correction"}
