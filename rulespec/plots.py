"""PNG plots of a simulation or a comparison (matplotlib, the `[sim]` extra).

Written next to report.json by `rulespec simulate --out DIR` and `rulespec compare --out DIR`:
- win_rates.png: win rate by colour, by seat and by bot, with 95% intervals and the even
  share (1/N) as a line;
- scores.png: the distribution of every player's score in each of the pack's scoring
  categories (box plots);
- length.png: game length in Years and in decisions (histograms);
- events.png: how often each value of each event key occurs per game (the pack's events:
  actions taken, cards and tiles gained...), with 95% intervals;
- differences.png (compare only): B - A of the aggregates with the smallest p-values, with
  95% intervals, those significant after Holm's correction in colour.
A comparison draws A and B side by side in the first four.
"""
from __future__ import annotations

from pathlib import Path

from .errors import Diagnostic, RulespecError, Span

COLOURS = ("#4c72b0", "#dd8452")      # pack A, pack B


def matplotlib_pyplot():
    """pyplot on the Agg backend (files only, no display), or RS030 naming the extra to install."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise RulespecError(Diagnostic("RS030", "plots need matplotlib, which is not installed", Span("<command line>"),
                                       "pip install 'rulespec[sim]'")) from None
    return plt


def available() -> bool:
    try:
        import matplotlib  # noqa: F401
        return True
    except ImportError:
        return False


def _save(fig, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    import matplotlib.pyplot as plt
    plt.close(fig)
    return path


def _groups(aggs: dict, prefix: str) -> list:
    return sorted((k[len(prefix):], e) for k, e in aggs.items() if k.startswith(prefix))


def _bars(ax, sims_aggs: list, prefix: str, title: str, labels: list, even: float | None = None, pct: bool = True):
    """Bars of one group of aggregates (win.colour. ...) for one or two runs, with intervals."""
    names = sorted({n for aggs in sims_aggs for n, _ in _groups(aggs, prefix)},
                   key=lambda n: (len(n), n) if n.isdigit() else (0, n))
    width = 0.8 / len(sims_aggs)
    scale = 100 if pct else 1
    for j, aggs in enumerate(sims_aggs):
        xs, means, errs = [], [], [[], []]
        for i, n in enumerate(names):
            e = aggs.get(prefix + n)
            if e is None:
                continue
            xs.append(i + (j - (len(sims_aggs) - 1) / 2) * width)
            means.append(scale * e.mean)
            errs[0].append(scale * max(0.0, e.mean - e.low))
            errs[1].append(scale * max(0.0, e.high - e.mean))
        ax.bar(xs, means, width, yerr=errs, capsize=3, color=COLOURS[j], label=labels[j] if len(labels) > 1 else None)
    ax.set_xticks(range(len(names)), names, rotation=30 if max(map(len, names), default=0) > 6 else 0)
    if even is not None:
        ax.axhline(scale * even, color="grey", linestyle="--", linewidth=1, label="even share")
    ax.set_title(title)
    ax.set_ylabel("win rate (%)" if pct else "")
    if len(labels) > 1 or even is not None:
        ax.legend(fontsize=8)


def win_rates(plt, sims: list, path: Path) -> Path:
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.5))
    aggs = [s.aggregates() for s in sims]
    labels = [s.pack_id for s in sims]
    even = 1.0 / sims[0].players
    for ax, (g, title) in zip(axes, (("colour", "by colour"), ("seat", "by seat (1: first in turn order)"),
                                     ("bot", "by bot"))):
        _bars(ax, aggs, f"win.{g}.", f"Win rate {title}", labels, even)
    fig.suptitle(_title(sims, "win rates, 95% intervals"))
    return _save(fig, path)


def _title(sims, what: str) -> str:
    s = sims[0]
    packs = " vs ".join(x.pack_id for x in sims)
    return f"{packs}, {s.players} players, {len(s.records)} games: {what}"


def scores(plt, sims: list, path: Path) -> Path:
    cats = list(dict.fromkeys(c for s in sims for c in s.categories)) + ["total"]
    fig, ax = plt.subplots(figsize=(min(14, max(8, 0.9 * len(cats) * len(sims))), 5.5))
    for j, s in enumerate(sims):
        data = [[row[c] for r in s.finished for row in r["scores"].values() if c in row] for c in cats]
        pos = [i + (j - (len(sims) - 1) / 2) * (0.8 / len(sims)) for i in range(len(cats))]
        keep = [(p, d) for p, d in zip(pos, data) if d]
        if keep:
            bp = ax.boxplot([d for _, d in keep], positions=[p for p, _ in keep], widths=0.7 / len(sims),
                            patch_artist=True, manage_ticks=False)
            for box in bp["boxes"]:
                box.set_facecolor(COLOURS[j])
                box.set_alpha(0.7)
        if len(sims) > 1:
            ax.plot([], [], color=COLOURS[j], linewidth=8, alpha=0.7, label=s.pack_id)
    labels = [sims[0].category_labels.get(c, c) for c in cats]
    ax.set_xticks(range(len(cats)), labels, rotation=25, ha="right")
    ax.set_ylabel("points per player")
    ax.set_title(_title(sims, "score by category (every player of every game)"))
    if len(sims) > 1:
        ax.legend()
    return _save(fig, path)


def length(plt, sims: list, path: Path) -> Path:
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
    for ax, key, label in ((axes[0], "years", "Years"), (axes[1], "decisions", "decisions")):
        data = [[r[key] for r in s.finished] for s in sims]
        flat = [v for d in data for v in d]
        if flat:
            ax.hist(data, bins=min(20, max(3, len(set(flat)))), color=list(COLOURS[:len(sims)]),
                    label=[s.pack_id for s in sims] if len(sims) > 1 else None)
        ax.set_xlabel(f"game length ({label})")
        ax.set_ylabel("games")
        if len(sims) > 1:
            ax.legend()
    fig.suptitle(_title(sims, "game length"))
    return _save(fig, path)


def _event_panels(sims: list) -> list:
    """(event, key) pairs with id values in any run, in the pack's event order."""
    order = list(dict.fromkeys(e for s in sims for e in s.event_names))
    panels = []
    for e in order:
        keys = list(dict.fromkeys(k for s in sims for r in s.finished for k in (r["events"].get(e) or {}).get("by", {})))
        panels += [(e, k) for k in keys]
    return panels


def events(plt, sims: list, path: Path, top: int = 15) -> Path:
    panels = _event_panels(sims)
    aggs = [s.aggregates() for s in sims]
    cols = 3
    rows = max(1, -(-len(panels) // cols))
    fig, axes = plt.subplots(rows, cols, figsize=(6 * cols, 4 * rows), squeeze=False)
    for ax in axes.flat[len(panels):]:
        ax.axis("off")
    if not panels:
        axes[0][0].text(0.5, 0.5, "no events recorded", ha="center")
    for ax, (e, k) in zip(axes.flat, panels):
        prefix = f"events.{e}.{k}."
        names = sorted({n for a in aggs for n, _ in _groups(a, prefix)},
                       key=lambda n: -max(a[prefix + n].mean for a in aggs if prefix + n in a))[:top]
        h = 0.8 / len(sims)
        for j, a in enumerate(aggs):
            ys, means, errs = [], [], [[], []]
            for i, n in enumerate(names):
                est = a.get(prefix + n)
                if est is None:
                    continue
                ys.append(i + (j - (len(sims) - 1) / 2) * h)
                means.append(est.mean)
                errs[0].append(max(0.0, est.mean - est.low))
                errs[1].append(max(0.0, est.high - est.mean))
            ax.barh(ys, means, h, xerr=errs, capsize=2, color=COLOURS[j],
                    label=sims[j].pack_id if len(sims) > 1 else None)
        ax.set_yticks(range(len(names)), names, fontsize=8)
        ax.invert_yaxis()
        ax.set_title(f"{e} by {k} (per game)", fontsize=10)
        if len(sims) > 1:
            ax.legend(fontsize=7)
    fig.suptitle(_title(sims, "event frequencies, 95% intervals"))
    return _save(fig, path)


def differences(plt, comparison, path: Path, top: int = 30) -> Path:
    ranked = sorted(comparison.tests.items(), key=lambda kv: (kv[1].p, kv[0]))[:top]
    fig, ax = plt.subplots(figsize=(10, max(3, 0.32 * len(ranked) + 1.5)))
    for i, (name, t) in enumerate(ranked):
        scale = max(abs(t.mean_a), abs(t.mean_b)) or 1.0   # as a share of the larger mean, so rows compare
        d = t.diff
        colour = "#c44e52" if t.significant else "#8c8c8c"
        ax.errorbar([100 * d.mean / scale], [i], xerr=[[100 * (d.mean - d.low) / scale], [100 * (d.high - d.mean) / scale]],
                    fmt="o", color=colour, capsize=3)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_yticks(range(len(ranked)), [f"{n}  (p adj.={t.p_adjusted:.2g})" for n, t in ranked], fontsize=8)
    ax.invert_yaxis()
    from .stats import CORRECTION_NAMES
    ax.set_xlabel(f"B - A, as % of the larger mean (95% interval); red: significant after "
                  f"{CORRECTION_NAMES[comparison.correction]}")
    ax.set_title(f"{comparison.b.pack_id} (B) vs {comparison.a.pack_id} (A), {len(comparison.pairs)} paired games")
    return _save(fig, path)


def simulation_plots(sims: list, folder, comparison=None) -> list:
    """Write the plots of one run (or of two, side by side, with `comparison`) into folder."""
    plt = matplotlib_pyplot()
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    out = [win_rates(plt, sims, folder / "win_rates.png"), scores(plt, sims, folder / "scores.png"),
           length(plt, sims, folder / "length.png"), events(plt, sims, folder / "events.png")]
    if comparison is not None:
        out.append(differences(plt, comparison, folder / "differences.png"))
    return out
