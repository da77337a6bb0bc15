"""`rulespec compare PACK_A PACK_B`: does a change of the rules change the games?

Both packs play the same games: the same seeds, seats and bots (rulespec.simulate.plan), so
game i of A and game i of B form a pair, and each aggregate is compared on its per-game
differences B - A with a paired t-test (rulespec.stats.paired_t), two-sided. Pairs where
either game failed are left out. All aggregates the two runs share are tested together, and
Holm's correction keeps the chance of any false "significant" at alpha = 0.05 over the whole
family (or, with `--correction bh`, Benjamini-Hochberg's keeps the expected share of false ones
among the significant at alpha). An aggregate only one pack has (a scoring category the other does not declare) is
listed, not tested.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .simulate import Simulation, absent_value
from .stats import ALPHA, CORRECTION_NAMES, CORRECTIONS, paired_t

TEST_NAME = "paired t-test on the per-game differences B - A (two-sided)"


@dataclass
class Comparison:
    a: Simulation
    b: Simulation
    pairs: list                               # game indexes finished in both runs
    tests: dict = field(default_factory=dict)  # metric -> PairedTest
    only_a: list = field(default_factory=list)
    only_b: list = field(default_factory=list)
    alpha: float = ALPHA
    correction: str = "holm"

    @property
    def significant(self) -> list:
        return [k for k, t in self.tests.items() if t.significant]

    @property
    def test_name(self) -> str:
        return f"{TEST_NAME}, {CORRECTION_NAMES[self.correction]} over all {len(self.tests)} aggregates"

    def report(self) -> dict:
        return {"rulespec_comparison": 1, "test": self.test_name, "correction": self.correction,
                "alpha": self.alpha, "pairs": len(self.pairs),
                "significant": self.significant,
                "differences": {k: t.as_dict() for k, t in self.tests.items()},
                "only_a": self.only_a, "only_b": self.only_b,
                "a": self.a.report(), "b": self.b.report()}


def compare(a: Simulation, b: Simulation, alpha: float = ALPHA, correction: str = "holm") -> Comparison:
    ma, mb = a.series_by_index(), b.series_by_index()
    pairs = sorted(set(ma) & set(mb))
    names_a = {k for i in pairs for k in ma[i]}
    names_b = {k for i in pairs for k in mb[i]}
    out = Comparison(a, b, pairs, alpha=alpha, correction=correction)
    for name in sorted(names_a | names_b):
        xs, ys = [], []
        for i in pairs:
            x, y = ma[i].get(name, absent_value(name)), mb[i].get(name, absent_value(name))
            if x is not None and y is not None:
                xs.append(x)
                ys.append(y)
        if len(xs) < 2:
            (out.only_a if name in names_a else out.only_b).append(name)
            continue
        out.tests[name] = paired_t(xs, ys)
    CORRECTIONS[correction](list(out.tests.values()), alpha)
    return out


def summary_table(c: Comparison, limit: int = 20):
    """The differences that are significant after Holm's correction, else the closest ones."""
    from rich.table import Table
    ranked = sorted(c.tests.items(), key=lambda kv: (kv[1].p_adjusted, kv[1].p, kv[0]))
    sig = [kv for kv in ranked if kv[1].significant]
    rows = (sig or ranked)[:limit]
    how = f"{CORRECTION_NAMES[c.correction]}, alpha {c.alpha}"
    title = (f"{c.b.pack_id} vs {c.a.pack_id}, {c.a.players} players, {len(c.pairs)} paired games: "
             + (f"{len(sig)} of {len(c.tests)} aggregates differ ({how})" if sig else
                f"no aggregate of {len(c.tests)} differs significantly ({how}); the closest:"))
    t = Table(title=title)
    for col in ("aggregate", f"A: {c.a.pack_id}", f"B: {c.b.pack_id}", "B - A [95%]", "p",
                f"p ({c.correction})"):
        t.add_column(col, justify="left" if col == "aggregate" else "right", no_wrap=True)
    for name, r in rows:
        d = r.diff
        t.add_row(name + (" *" if r.significant else ""), _num(r.mean_a), _num(r.mean_b),
                  f"{_num(d.mean, '+')} [{_num(d.low, '+')}, {_num(d.high, '+')}]", f"{r.p:.2g}", f"{r.p_adjusted:.2g}")
    return t


def _num(x: float, sign: str = "") -> str:
    """A number in a few characters: 1597, 35.4, 0.65."""
    return f"{x:{sign}.0f}" if abs(x) >= 100 else f"{x:{sign}.2f}" if abs(x) < 10 else f"{x:{sign}.1f}"
