"""The `simulate` and `compare` commands: from parsed arguments to the terminal, DIR and an
exit code (the work itself is in simulate.py, compare.py, balance.py and plots.py).

Exit codes: 0 when every game ran (and, with --check, every balance expectation held); 1 when a
game failed or an expectation did not hold; 2 on a usage error.
"""
from __future__ import annotations

import json
from pathlib import Path

from . import plots, simulate
from .errors import Diagnostic, RulespecError, Span


def _console():
    """The terminal; written to a file or a pipe (CI logs), wide enough for the tables."""
    import sys
    from rich.console import Console
    return Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 140)


def _err_console():
    from rich.console import Console
    return Console(highlight=False, soft_wrap=True, stderr=True)


def _run(args, pack_ref: str, search_path: list, label: str):
    progress = GameProgress(args.games, _err_console(), label, enabled=not args.quiet)
    with progress:
        return simulate.run(pack_ref, args.players, args.games, args.bots, seed=args.seed, jobs=args.jobs,
                            dask=args.dask, out_dir=args.out, search_path=search_path, on_game=progress)


def _out_folder(args) -> Path | None:
    if not args.out:
        return None
    folder = Path(args.out)
    if folder.exists() and not folder.is_dir():
        raise RulespecError(Diagnostic("RS006", f"--out {args.out[:200]!r} is a file, not a folder", Span("<command line>"),
                                       "give a folder (it is created when missing)"))
    return folder


def _write_plots(con, sims, folder, comparison=None):
    if not plots.available():
        con.print("[yellow]note: no plots: matplotlib is not installed (pip install 'rulespec[sim]')[/yellow]")
        return
    written = plots.simulation_plots(sims, folder, comparison)
    con.print("plots: " + ", ".join(str(p) for p in written))


def _print_failures(con, sim):
    from rich.markup import escape
    for line in failure_lines(sim):
        con.print(f"[red]{escape(line)}[/red]")


def simulate_command(args, search_path: list) -> int:
    from . import balance
    con = _console()
    folder = _out_folder(args)
    sim = _run(args, args.pack, search_path, "games")
    for t in summary_tables(sim):
        con.print(t)
    _print_failures(con, sim)
    if folder is not None:
        con.print(f"report: {simulate.write_report(sim, folder)}")
        _write_plots(con, [sim], folder)
    ok = not sim.failures
    if args.check:
        from .pack import load_pack
        pack = load_pack(sim.pack_root, search_path)
        verdicts = balance.check(sim, pack)
        if not verdicts:
            print(balance.no_expectations(pack).render())
            return 1
        marks = {"passed": "[green]ok  [/green]", "failed": "[red]FAIL[/red]", "skipped": "skip"}
        from rich.markup import escape
        for v in verdicts:
            con.print(f"{marks[v.status]}  balance {v.id}: {escape(v.detail)}")
        for v in verdicts:
            if v.diagnostic is not None:
                print(v.diagnostic.render())
        failed = sum(v.status == "failed" for v in verdicts)
        con.print(f"balance: {sum(v.status == 'passed' for v in verdicts)} passed, {failed} failed, "
                  f"{sum(v.status == 'skipped' for v in verdicts)} skipped")
        if folder is not None:
            _add_verdicts(folder / "report.json", verdicts)
        ok = ok and not failed
    return 0 if ok else 1


def _add_verdicts(path: Path, verdicts):
    data = json.loads(path.read_text(encoding="utf-8"))
    data["balance"] = [{"id": v.id, "text": v.text, "status": v.status, "detail": v.detail, "values": v.values}
                       for v in verdicts]
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


def compare_command(args, search_path: list) -> int:
    from .compare import compare, summary_table
    con = _console()
    folder = _out_folder(args)
    a = _run(args, args.pack_a, search_path, "A games")
    b = _run(args, args.pack_b, search_path, "B games")
    if a.players != b.players:
        raise RulespecError(Diagnostic("RS030", f"the packs have different player counts ({a.players}, {b.players})",
                                       Span("<command line>"), "give --players"))
    c = compare(a, b, correction=args.correction)
    con.print(summary_table(c))
    con.print(f"test: {c.test_name}")
    for sim in (a, b):
        _print_failures(con, sim)
    if folder is not None:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "report.json"
        path.write_text(json.dumps(c.report(), indent=1) + "\n", encoding="utf-8")
        con.print(f"report: {path}")
        _write_plots(con, [a, b], folder, c)
    return 0 if not (a.failures or b.failures) else 1


# ------------------------------------------------------------------ terminal output
def fmt(e, pct: bool = False) -> str:
    """A mean and its interval in one cell: `0.33 [0.21, 0.45]` (or as percentages)."""
    if pct:
        return f"{100 * e.mean:.0f}% [{100 * e.low:.0f}, {100 * e.high:.0f}]"
    return f"{e.mean:.1f} [{e.low:.1f}, {e.high:.1f}]"


def summary_tables(sim: simulate.Simulation) -> list:
    """The terminal summary: win rates (by colour, seat, bot), then length and scores."""
    from rich.table import Table
    agg = sim.aggregates()
    n = len(sim.finished)
    title = (f"{sim.pack_id}, {sim.players} players: {n} games finished"
             + (f", {len(sim.failures)} failed" if sim.failures else "")
             + f" (seeds {sim.seed}..{sim.seed + len(sim.records) - 1})")
    wins = Table(title=title + " — win rate, 95% interval")
    for col in ("colour", "win rate", "seat", "win rate ", "bot", "win rate  "):
        wins.add_column(col, justify="right" if col.startswith("win") else "left")
    groups = [[(k.split(".", 2)[2], agg[k]) for k in agg if k.startswith(f"win.{g}.")] for g in ("colour", "seat", "bot")]
    for i in range(max((len(g) for g in groups), default=0)):
        row = []
        for g in groups:
            row += [g[i][0], fmt(g[i][1], True)] if i < len(g) else ["", ""]
        wins.add_row(*row)
    other = Table(title="per game: mean [95% interval]")
    other.add_column("measure")
    other.add_column("mean [95%]", justify="right")
    for k, label in (("length.years", "Years"), ("length.decisions", "decisions"), ("ended", "ended by the rules")):
        if k in agg:
            other.add_row(label, fmt(agg[k], k == "ended"))
    for c in sim.categories + ["total"]:
        if f"score.{c}" in agg:
            other.add_row(f"score: {sim.category_labels.get(c, c)}", fmt(agg[f"score.{c}"]))
    for e in sim.event_names:
        if f"events.{e}" in agg:
            other.add_row(f"events: {e}", fmt(agg[f"events.{e}"]))
    return [wins, other]


def failure_lines(sim: simulate.Simulation) -> list:
    return [f"FAILED game {r['index']} (seed {r['seed']}): {r.get('code')} {r.get('error')}"
            + (f" [rule at {r['at']}]" if r.get("at") else "") + f"\n  replay: {r.get('replay')}"
            for r in sim.failures]


class GameProgress:
    """A rich progress bar for a run: games done, rate, elapsed and ETA, failures so far."""

    def __init__(self, total: int, console, label: str = "games", enabled: bool = True):
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn,
                                   TimeElapsedColumn, TimeRemainingColumn)
        from rich.text import Text

        class Rate(ProgressColumn):
            def render(self, task):
                return Text(f"{task.speed:.2f} games/s" if task.speed else "- games/s")

        self.failed = 0
        self.progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), Rate(),
                                 TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                                 TextColumn("{task.fields[failed]}"), console=console, transient=False,
                                 disable=not enabled)
        self.task = self.progress.add_task(label, total=total, failed="")

    def __enter__(self):
        self.progress.__enter__()
        return self

    def __exit__(self, *exc):
        return self.progress.__exit__(*exc)

    def __call__(self, record):
        if record.get("status") != "ok":
            self.failed += 1
        self.progress.update(self.task, advance=1, failed=f"[red]{self.failed} failed[/red]" if self.failed else "")
