"""Balance expectations: a pack's balance.yaml, checked against a simulation (`rulespec
simulate PACK --check`).

A designer writes what they expect of bots' games as data (docs/simulate.md):

    balance:
      - id: no_dominant_colour
        text: no colour wins more than 30% at 4 players
        players: 4
        metric: win.colour.*
        at_most: 0.30

The file is pack data like map.yaml: checked by rulespec/schemas/balance.schema.json when the
pack loads (positioned errors), part of the content hash, and changed by an overlay's
balance.patch.yaml. No game depends on it. Each expectation becomes a Verdict: passed, failed
(RS500, at the expectation in balance.yaml, with the values that broke it) or skipped (another
player count); a `metric` that names no measure of the run is RS501, with the names it could
have meant.
"""
from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field

from .errors import Diagnostic, Span, did_you_mean
from .simulate import Simulation, estimate, is_rate


@dataclass
class Verdict:
    id: str
    text: str
    status: str                  # "passed" | "failed" | "skipped"
    detail: str
    diagnostic: Diagnostic | None = None
    values: dict = field(default_factory=dict)     # metric -> {"mean", "low", "high"[, "outside"]}


def expectations(pack) -> list:
    """[(expectation dict, Span)] of the pack's balance.yaml (none without one)."""
    doc = pack.data.get("balance")
    if doc is None or not isinstance(doc.data, dict):
        return []
    return [(e, doc.span(("balance", i))) for i, e in enumerate(doc.data.get("balance") or [])]


def bounds(e: dict) -> tuple:
    lo, hi = e.get("at_least"), e.get("at_most")
    if e.get("between"):
        lo, hi = e["between"]
    return (float("-inf") if lo is None else lo), (float("inf") if hi is None else hi)


def _bounds_text(e: dict, rate: bool) -> str:
    lo, hi = bounds(e)
    f = (lambda x: f"{100 * x:g}%") if rate else (lambda x: f"{x:g}")
    if lo == float("-inf"):
        return f"at most {f(hi)}"
    if hi == float("inf"):
        return f"at least {f(lo)}"
    return f"between {f(lo)} and {f(hi)}"


def _shown(name: str, est, rate: bool) -> str:
    if rate:
        return f"{name} = {100 * est.mean:.1f}% [{100 * est.low:.1f}, {100 * est.high:.1f}]"
    return f"{name} = {est.mean:.2f} [{est.low:.2f}, {est.high:.2f}]"


def check(sim: Simulation, pack) -> list:
    """The verdicts of the pack's expectations on this run."""
    series = sim.series()
    out = []
    for e, span in expectations(pack):
        eid, text = e.get("id", "?"), e.get("text") or e.get("metric", "")
        counts = e.get("players")
        counts = [counts] if isinstance(counts, int) else counts
        if counts and sim.players not in counts:
            out.append(Verdict(eid, text, "skipped", f"about {', '.join(map(str, counts))} players, "
                                                     f"this run has {sim.players}"))
            continue
        pattern = e["metric"]
        names = [n for n in series if fnmatch.fnmatchcase(n, pattern)]
        if not names:
            hint = did_you_mean(pattern, series) or ("measures of this run: " + ", ".join(
                sorted({n.rsplit(".", 1)[0] + ".*" if n.count(".") > 1 else n for n in series})[:12]))
            d = Diagnostic("RS501", f"balance expectation '{eid}': '{pattern}' names no measure of this run "
                                    f"({len(sim.finished)} finished games)", span, hint)
            out.append(Verdict(eid, text, "failed", f"'{pattern}' names no measure of this run", d))
            continue
        lo, hi = bounds(e)
        judge = e.get("judge", "mean")
        broken, values = [], {}
        for n in names:
            est = estimate(n, series[n])
            values[n] = {"mean": est.mean, "low": est.low, "high": est.high}
            if judge == "every_game":
                outside = [v for v in series[n] if not lo <= v <= hi]
                bad = bool(outside)
                if bad:
                    values[n]["outside"] = len(outside)
            elif judge == "interval":
                bad = est.high < lo or est.low > hi
            else:
                bad = not lo <= est.mean <= hi
            if bad:
                broken.append(n)
        rate = is_rate(names[0])
        want = _bounds_text(e, rate)
        how = {"mean": "the mean", "interval": "the 95% interval", "every_game": "every game"}[judge]
        if not broken:
            out.append(Verdict(eid, text, "passed", f"{how} {want}: " + "; ".join(
                _shown(n, estimate(n, series[n]), rate) for n in names[:4]) + (" ..." if len(names) > 4 else ""),
                values=values))
            continue
        shown = []
        for n in broken:
            s = _shown(n, estimate(n, series[n]), is_rate(n))
            if judge == "every_game":
                s += f", {values[n]['outside']} of {len(series[n])} games outside"
            shown.append(s)
        d = Diagnostic("RS500", f"balance expectation '{eid}' failed ({text}): {how} must be {want}; "
                                + "; ".join(shown) + f" ({sim.players} players, {len(sim.finished)} games)",
                       span, "change the rules, or the expectation if the designer's intent changed; "
                             "`rulespec simulate --out DIR` writes every game's numbers (report.json) and plots")
        out.append(Verdict(eid, text, "failed", "; ".join(shown), d, values))
    return out


def no_expectations(pack) -> Diagnostic:
    return Diagnostic("RS501", f"pack '{pack.id}' declares no balance expectations: --check has nothing to check",
                      Span(str(pack.root / "pack.yaml"), 1, 1),
                      "write them in balance.yaml next to pack.yaml (docs/simulate.md, 'Balance expectations')")
