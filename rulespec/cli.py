"""The `rulespec` command line: validate, show, map, play, replay, scenario, test, bench,
golden, migrate, simulate, compare. The pack is the first positional argument of the commands that take one (`rulespec
play wars_of_italy`; default base_3to5). Content problems are printed as diagnostics, never
tracebacks.

Exit codes: 0 success, 1 content errors (or failed expectations), 2 usage errors.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

from .cache_folder import keep_compiled_modules

# before the project's own imports: where no bytecode may be written beside the sources, their
# compiled forms are kept in the cache folder, not compiled again at every start (cache_folder.py)
keep_compiled_modules()

from .errors import Diagnostic, RulespecError, Span  # noqa: E402
from .packtest import DEFAULT_PLAYOUTS  # noqa: E402

DEFAULT_PACK = "base_3to5"
# the bots of interpreter/bots.py, each in a few words (the --bots help; docs/bots.md says more)
BOTS_HELP = {
    "random": "random moves weighted by the pack's playout hints (the default; fast, the bot of playouts)",
    "uniform": "every legal move equally likely, hints ignored (for fuzzing; its games rarely end)",
    "planner": "samples a few random continuations of its turn and follows the one the pack's scoring "
               "and heuristics value most (slower, stronger)",
    "eager": "random but keen: says yes to optional steps, picks larger numbers, rarely stops a choice early",
    "sticky": "eager, and repeats the choices it made before, so that plans add up",
    "first": "always the first legal move (deterministic, for tests)",
    "greedy": "one move ahead: the move after which the pack's scoring and heuristics value its position "
              "most (a random one 10% of the time)",
    "greedy_eval": "one decision ahead with the pack's `evaluation` (payments as one macro-move); "
                   "knobs: greedy_eval:horizon=turn,samples=2",
    "mcts": "UCT search with a fixed iteration budget, cheap rollouts cut off by the pack's `evaluation`; "
            "knobs: mcts:iterations=48,rollout=8 (slow)",
}
BOT_NAMES = tuple(BOTS_HELP)
BOTS_OPTION_HELP = "who plays every seat (default: %(default)s; docs/bots.md):\n" + "\n".join(
    f"- {k}: {v}" for k, v in BOTS_HELP.items()).replace("%", "%%")


def _bot_spec(text: str) -> str:
    """--bots NAME[:KNOB=VALUE,...]: a bot of interpreter/bots.py with its knobs, checked."""
    from interpreter.bots import parse_bot
    try:
        parse_bot(text)
    except RulespecError as e:
        raise argparse.ArgumentTypeError(f"{e.first.message} ({e.first.hint})") from None
    return text


class UsageError(RulespecError):
    """A command-line argument that cannot be used (exit 2, like argparse's own errors)."""


def _arg_span(argv: list, option: str) -> Span:
    """Where `option` (an option such as --players, or a value) is on the command line: line 1
    of `<command line>`, at the column of its token in the arguments joined by spaces."""
    col = 1
    for tok in argv:
        if tok == option or tok.startswith(option + "="):
            return Span("<command line>", 1, col, 1, col + len(tok))
        col += len(tok) + 1
    return Span("<command line>", 1, 1)


def _place_on_command_line(diagnostics, argv: list, codes=None):
    """Diagnostics about an argument (a path too long, a pack not found) that name it without
    a position: placed at the argument on the command line."""
    for d in diagnostics:
        if d.span.line or (codes is not None and d.code not in codes):
            continue
        for tok in argv:
            if d.span.file and tok.startswith(d.span.file.rstrip("…")):
                d.span = _arg_span(argv, tok)
                break


def _usage(argv: list, option: str, message: str, hint: str) -> UsageError:
    span = _arg_span(argv, option)
    line = " ".join(argv)
    return UsageError(Diagnostic("RS030", message, span, hint, source_line=line if len(line) <= 300 else ""))


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's help layout, keeping the line breaks a help text has (the list of bots)."""

    def _split_lines(self, text, width):
        split = super()._split_lines          # (a comprehension has no zero-argument super)
        return [line for part in text.splitlines() for line in split(part, width)]


class _Parser(argparse.ArgumentParser):
    """argparse, whose errors also name the argument's place on the command line (RS030)."""

    argv: list = []

    def __init__(self, *a, **kw):
        kw.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*a, **kw)

    def error(self, message):
        self.print_usage(sys.stderr)
        m = re.match(r"argument ([^:\s]+)(?:/[^:\s]+)*: ", message)
        opt = m.group(1) if m else ""
        if opt and not opt.startswith("-"):          # a positional argument: its value
            opt = next((a for a in self.argv if not a.startswith("-")), opt)
        d = _usage(self.argv, opt, message, "see `rulespec COMMAND --help`").first
        print(d.render(), file=sys.stderr)
        self.exit(2)


def _count(minimum: int):
    """An argparse type: a whole number of at least `minimum`."""
    def parse(text):
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, not '{text[:40]}'") from None
        if n < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, not {n}")
        if n > 10 ** 9:
            raise argparse.ArgumentTypeError(f"{n} is too large")
        return n
    parse.__name__ = "count"
    return parse


def _seed(text):
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, not '{text[:40]}'") from None
    if abs(n) >= 1 << 64:
        raise argparse.ArgumentTypeError("at most 20 digits")
    return n


def _search_path(args, extra=()) -> list:
    """The search path of a command: --pack-path folders, then packs named on the command line."""
    return list(getattr(args, "pack_path", None) or []) + [p for p in extra if os.path.isdir(str(p))]


def _console():
    from rich.console import Console
    return Console(highlight=False, soft_wrap=True)


# ------------------------------------------------------------------ validate
def cmd_validate(args) -> int:
    from validator.static import validate_pack
    from .diagnostic_order import github_lines, render_text
    named = [p for p in args.packs if len(str(p)) < 1024]
    reports = [validate_pack(ref, _search_path(args, named)) for ref in (args.packs or [DEFAULT_PACK])]
    for r in reports:
        _place_on_command_line(r.diagnostics, args.argv, ("RS005",))
    fails = {r.pack_ref: bool(r.errors or (args.strict and r.warnings)) for r in reports}
    # playouts run only on packs whose static checks passed; their findings join the pack's
    playouts = {}
    if args.playouts:
        from validator.playouts import run_playouts
        for r in reports:
            if not fails[r.pack_ref]:
                summary = {}
                playouts[r.pack_ref] = (run_playouts(r.pack, args.playouts, args.seed, summary), summary)
                fails[r.pack_ref] = bool(playouts[r.pack_ref][0])
    if args.format == "json":
        out = []
        for r in reports:
            found, summary = playouts.get(r.pack_ref, ([], None))
            diags = r.diagnostics + found
            entry = {"pack": r.pack_ref, "errors": sum(d.severity == "error" for d in diags),
                     "warnings": len(r.warnings), "diagnostics": [d.to_json() for d in diags]}
            if summary is not None:
                entry["playouts"] = {str(k): {"games": v["games"], "ended_by_rules": v["ended"],
                                              "years": v["years"]} for k, v in summary.items()}
            out.append(entry)
        print(json.dumps(out if len(out) > 1 else out[0], indent=2))
    for r in reports:
        found, summary = playouts.get(r.pack_ref, ([], None))
        if args.format == "github":         # root causes only (rulespec.diagnostic_order)
            for line in github_lines(r.diagnostics + found, args.strict, args.all):
                print(line)
        elif args.format == "text":         # root causes, each counting what it caused
            for text in render_text(r.diagnostics + found, args.all):
                print(text, file=sys.stdout)
                print()
            name = r.pack.id if r.pack else (r.pack_ref if len(r.pack_ref) <= 80 else r.pack_ref[:80] + "…")
            status = "FAILED" if fails[r.pack_ref] else "ok"
            print(f"{name}: {len(r.errors) + len(found)} error(s), {len(r.warnings)} warning(s) — {status}")
            if summary is not None:
                for players, row in summary.items():
                    years = row["years"]
                    mean = sum(years) / len(years) if years else 0
                    print(f"{name} playouts, {players} players: {row['ended']}/{row['games']} ended by the rules, "
                          f"{mean:.1f} Years on average (longest {max(years, default=0)})")
    return 1 if any(fails.values()) else 0


# ------------------------------------------------------------------ show
def cmd_show(args) -> int:
    from .pack import load_pack
    from . import show
    pack = load_pack(args.pack, _search_path(args))
    if args.kind is not None:
        return _show_one(args, pack)
    if args.unverified:
        rows, chosen = show.unverified(pack), show.decisions(pack)
        if args.json:
            print(show.to_json({"pack": pack.id, "counts": show.unverified_summary(rows),
                                "items": [dict(zip(("evidence", "what", "note", "where"), r), status="to check")
                                          for r in rows],
                                "decisions": [dict(zip(("evidence", "what", "note", "where"), r), status="decision")
                                              for r in chosen]}))
            return 0
        from rich.table import Table
        con = _console()
        for title, found in (
                (f"To check: values in {pack.id} not taken from the rulebook (inferred, placeholder)", rows),
                (f"Decisions: readings chosen in {pack.id} between contradicting sources, or house rules", chosen)):
            table = Table(title=title)
            for col in ("evidence", "what", "note", "where"):
                table.add_column(col, overflow="fold")
            for r in found:
                table.add_row(*r)
            con.print(table)
        counts = show.unverified_summary(rows)
        con.print("counts: " + ", ".join(f"{k}: {v}" for k, v in sorted(counts.items())) + f"; total: {len(rows)}")
        con.print(f"decisions: {len(chosen)} (readings we chose, not values to check)")
        return 0
    if args.diff:
        from . import packdiff
        base = load_pack(args.diff, _search_path(args))
        entries = packdiff.pack_changes(pack, base)
        if args.json:
            print(show.to_json(packdiff.to_json(entries)))
        else:
            print(packdiff.render(entries, pack, base))
        return 0
    if args.json:
        print(show.to_json(show.pack_json(pack)))
    else:
        print(show.pack_text(pack))
    return 0


def _show_one(args, pack) -> int:
    """`show PACK KIND ID`: one declaration or YAML item, with where it was defined and changed."""
    from . import show
    from .errors import did_you_mean
    kinds = show.kinds(pack)
    if args.kind not in kinds:
        raise _usage(args.argv, args.kind, f"pack '{pack.id}' has nothing of kind '{args.kind}'",
                     did_you_mean(args.kind, kinds) or f"kinds: {', '.join(kinds)}")
    ids = show.ids(pack, args.kind)
    if args.id is not None:
        args.id = show.canonical_id(pack, args.kind, args.id)
    if args.id is None:
        raise _usage(args.argv, args.kind, f"`show PACK {args.kind}` needs the id of one {args.kind}",
                     f"e.g. `rulespec show {args.pack} {args.kind} {ids[0]}`")
    if args.id not in ids:
        listed = ", ".join(ids[:12]) + (", …" if len(ids) > 12 else "")
        raise _usage(args.argv, args.id, f"pack '{pack.id}' has no {args.kind} '{args.id}'",
                     did_you_mean(args.id, ids) or f"the {args.kind} ids: {listed}")
    if args.diff:                       # the diff of this one declaration or item
        from . import packdiff
        from .pack import load_pack
        base = load_pack(args.diff, _search_path(args))
        entries = packdiff.only(packdiff.pack_changes(pack, base), args.kind, args.id)
        print(show.to_json(packdiff.to_json(entries)) if args.json else packdiff.render(entries, pack, base))
        return 0
    if args.json:
        decl = next((d for (k, i), d in pack.decls.items() if k == args.kind and str(i) == args.id), None)
        item = show.item_collections(pack).get(args.kind, {}).get(args.id)
        print(show.to_json({"declaration": show.decl_json(decl) if decl else None,
                            "item": {"data": item[0], "path": list(item[1]), "value": item[2]} if item else None}))
    else:
        print(show.describe(pack, args.kind, args.id))
    return 0


# ------------------------------------------------------------------ map
def cmd_map(args) -> int:
    """The board as SVG or PNG: drawn with matplotlib when it is installed (rulespec/mapplot.py,
    optionally with a saved game's state), else as the hand-made SVG of rulespec/mapdraw.py."""
    from .pack import load_pack
    from .board import Board
    from .mapdraw import draw_map_svg
    from . import plots
    from interpreter.replay import open_output
    png = args.out.lower().endswith(".png")
    fancy = plots.available()
    if (png or args.game) and not fancy:
        raise _usage(args.argv, "--game" if args.game else args.out,
                     "a PNG map, or a map with a game, is drawn with matplotlib, which is not installed",
                     "pip install 'rulespec[sim]', or write an SVG without --game")
    existed = os.path.exists(args.out)
    out = open_output(args.out, "map", _arg_span(args.argv, args.out))      # before any work
    done = False
    try:
        pack = load_pack(args.pack, _search_path(args))
        if "map" not in pack.data:
            raise RulespecError(f"pack '{pack.id}' has no map.yaml", code="RS003", span=Span(str(pack.root / "pack.yaml"), 1, 1))
        state = _map_game(args, pack) if args.game else None
        players = len(state["players"]) if state else args.players or (pack.players[0] if pack.players else 4)
        if pack.players and players not in pack.players:
            raise _usage(args.argv, "--players", f"pack '{pack.id}' is played by {', '.join(map(str, pack.players))} "
                                                 f"players, not {players}", "give one of the pack's player counts")
        setup = pack.data.get("setup")
        board = Board.from_pack_data(pack.data["map"].data, setup.data if setup else None, players)
        title = f"{pack.name} — {players} players" + (f", Year {state['year']} of {args.game}" if state else "")
        if fancy and (png or args.out.lower().endswith(".svg")):
            from .mapplot import draw_map
            out.close()
            draw_map(board, pack.data["map"].data, title, args.out, state)
        else:
            if not args.out.lower().endswith(".svg"):
                print("note: only SVG and PNG output are supported; writing SVG", file=sys.stderr)
            out.write(draw_map_svg(board, pack.data["map"].data, title))
        done = True
    finally:
        out.close()
        if not done and not existed:            # nothing drawn: no empty file left behind
            try:
                os.unlink(args.out)
            except OSError:
                pass
    print(f"wrote {args.out}: {len(board.cities)} cities")
    return 0


def _map_game(args, pack):
    """The final state of the game log --game (a game cut short too), replayed on the pack."""
    from interpreter.api import Engine
    from interpreter.replay import replay
    return replay(args.game, Engine(pack), check=False, allow_truncated=True, search_path=_search_path(args))


# ------------------------------------------------------------------ play / replay / scenario
DEFAULT_PLAYERS = 4


def _players(args, pack) -> int:
    """--players, else 4, else (a pack not played by 4: `rulespec play wars_of_italy`) the
    pack's smallest player count."""
    if args.players is not None:
        return args.players
    if not pack.players or DEFAULT_PLAYERS in pack.players:
        return DEFAULT_PLAYERS
    return min(pack.players)


def cmd_play(args) -> int:
    from interpreter.replay import LogWriter
    if args.human:              # a person at the table (rulespec/terminal.py, docs/play.md)
        from .terminal import play_human
        return play_human(args, _search_path(args), _players)
    # the log is opened before any work (a bad path fails now, not after the game) and written
    # as the game goes: a game that stops early keeps its moves
    log = LogWriter(args.log, _arg_span(args.argv, args.log)) if args.log else None
    try:
        return _play(args, log)
    finally:
        if log is not None:
            log.close()


def _play(args, log) -> int:
    from interpreter.api import Engine
    from interpreter.bots import play_game
    from interpreter.events import account
    from rulespec.pack import load_pack
    from rich.markup import escape
    from rich.table import Table
    con = _console()
    engine = Engine(load_pack(args.pack, _search_path(args)))
    players = _players(args, engine.pack)
    record = []
    last_year = [None]

    def on_start(state):
        if log is not None:
            log.header(engine, state["players"], args.seed, {})

    def on_move(turn, mv, events, after):
        pending = turn["pending"] or {}
        who = pending.get("player") or "-"
        record.append((who, mv))
        if log is not None:
            log.move(who, mv, events)
        if turn["year"] != last_year[0]:
            last_year[0] = turn["year"]
            con.print(f"[bold]{engine.rs.game['round_name']} {turn['year']}[/bold]")
        if not args.quiet:
            prompt = pending.get("prompt") or pending.get("kind")
            con.print(f"  {who}: {escape(mv)}   [dim]({escape(str(prompt))})[/dim]")
        for text in account(events):       # the account's lines (interpreter/events.py)
            con.print(f"  [yellow]{escape(text)}[/yellow]")

    state, moves = play_game(engine, players, args.seed, args.bots, on_move=on_move, on_start=on_start)
    if log is not None:
        log.finish(state)
        con.print(f"log written to {args.log}")
    if not engine.is_over(state):
        con.print(f"[red]the game stopped before its end after {len(moves)} moves[/red]")
        return 1
    if state.get("unfinished"):
        con.print(f"[red]no end condition was met within the pack's bound of "
                  f"{engine.rs.game['max_rounds']} {engine.rs.game['round_name'].lower()}s: scores at that point[/red]")
    scores = engine.scores(state)
    table = Table(title=f"Final scores after {len(moves)} moves, {engine.rs.game['round_name']} {state['year']}")
    cats = [s["id"] for s in engine.rs.scoring]
    table.add_column("category")
    for p in state["players"]:
        table.add_column(p, justify="right")
    for c in cats + ["total", "tie_break"]:
        table.add_row(next((s["label"] for s in engine.rs.scoring if s["id"] == c), c),
                      *[str(scores[p][c]) for p in state["players"]])
    con.print(table)
    con.print("winner(s): " + ", ".join(engine.winners(state)))
    return 0


def cmd_serve(args) -> int:
    """`rulespec serve`: the browser table (rulespec/web/, docs/play.md); needs the [web] extra."""
    try:
        from .web.app import serve
    except ImportError as e:
        raise _usage(args.argv, "serve", f"rulespec serve needs Starlette and uvicorn ({e.name} is missing)",
                     "pip install -e '.[web]'") from None
    return serve(args.pack, args.port, args.bots, _search_path(args))


def cmd_replay(args) -> int:
    from interpreter.api import Engine
    from interpreter.replay import replay, state_hash
    from rulespec.pack import load_pack
    engine = Engine(load_pack(args.pack, _search_path(args))) if args.pack else None
    state = replay(args.log, engine, allow_truncated=args.allow_truncated, search_path=_search_path(args))
    print(f"replayed {args.log}: year {state['year']}, over={state['over']}, state {state_hash(state)[:16]}")
    return 0


def _scenario_targets(args) -> list:
    """The scenario files named by the arguments, each with the search path to run it with:
    a pack (a folder holding a pack.yaml, or a pack id) stands for its scenarios/*.yaml, run
    with the pack in the search path (so they may name it by id or leave `pack:` out); another
    folder for its *.yaml; anything else is a file. A pack or folder without scenarios is a
    failure of its own: [(what, file or None, search path, RulespecError or None)]."""
    from .pack import _ID, find_pack
    from .packtest import pack_scenarios, relative_path
    out = []
    base = _search_path(args)
    for t in args.targets or [DEFAULT_PACK]:
        path = Path(t)
        try:
            is_dir, exists = path.is_dir(), path.exists()
        except (OSError, ValueError):       # a name too long, a NUL: run_scenario says which
            is_dir = exists = False
        if is_dir and not (path / "pack.yaml").is_file():
            files = sorted(f for f in path.glob("*.yaml") if f.is_file())
            out += [(relative_path(str(f)), f, base, None) for f in files] or \
                [(t, None, base, _no_scenarios(args, t, f"no scenario files (*.yaml) in the folder {t[:200]!r}"))]
            continue
        if not is_dir and (exists or not _ID.fullmatch(t)):
            out.append((t, t, base, None))
            continue
        try:
            folder = find_pack(t, base)
        except RulespecError as e:
            out.append((t, None, base, e))
            continue
        files = pack_scenarios(folder)
        where = relative_path(str(folder / "scenarios"))
        out += [(relative_path(str(f)), f, [*base, folder], None) for f in files] or \
            [(t, None, base, _no_scenarios(args, t, f"pack '{t[:80]}' has no scenarios: no *.yaml in {where}"))]
    return out


def _no_scenarios(args, target, message) -> RulespecError:
    return RulespecError(Diagnostic("RS003", message, _arg_span(args.argv, target),
                                    "a pack's scenarios are the *.yaml files of its scenarios/ folder (docs/scenarios.md)"))


def cmd_scenario(args) -> int:
    from interpreter.scenario import run_scenario
    failed = total = 0
    for name, f, search_path, problem in _scenario_targets(args):
        total += 1
        try:
            if problem is not None:
                raise problem
            out = run_scenario(f, search_path)
        except RulespecError as e:          # a broken scenario file fails alone
            failed += 1
            _place_on_command_line(e.diagnostics, args.argv)
            print(f"FAIL  {name}: cannot run\n{e.render()}")
            continue
        if out.ok:
            print(f"ok    {name}: {out.name} ({out.moves} moves)")
        else:
            failed += 1
            print(f"FAIL  {name}: {out.name}")
            for line, text in out.failures:
                print(f"  {name}:{line}: {text}")
    print(f"{total - failed} passed, {failed} failed")
    return 1 if failed else 0


# ------------------------------------------------------------------ test
def cmd_test(args) -> int:
    """Validate, run the pack's scenarios, play random games: one report, one exit code."""
    from . import packtest
    from .pack import find_pack
    from interpreter.replay import open_output
    try:
        folder = find_pack(args.pack, _search_path(args))
    except RulespecError as e:
        d = e.first
        raise _usage(args.argv, args.pack, d.message, d.hint) from None
    try:        # before any work; a report that cannot be written is a usage error here (exit 2)
        out = open_output(args.out, "report", _arg_span(args.argv, args.out)) if args.out else None
    except RulespecError as e:
        raise UsageError(e.diagnostics) from None
    try:
        stream = args.format == "text" and out is None

        def progress(check):                # text on a terminal: each check as it ends
            if stream:
                print(packtest.check_text(check), flush=True)

        result = packtest.run(folder, args.playouts, args.seed, _search_path(args, [folder]), args.strict, progress)
        if stream:
            print(packtest.summary_line(result))
        else:
            report = packtest.REPORTS[args.format](result)
            if out is not None:
                out.write(report if report.endswith("\n") else report + "\n")
                print(f"{packtest.summary_line(result)} (report written to {args.out})")
            else:
                print(report, end="" if report.endswith("\n") else "\n")
    finally:
        if out is not None:
            out.close()
    return 0 if result.ok else 1


def cmd_bench(args) -> int:
    """Playout speed in CPU time, optionally against another revision (rulespec/bench.py)."""
    from . import bench
    spec = bench.spec_of(args.pack, args.players, args.games, args.seed, args.bots, _search_path(args))
    if args.instructions and not args.against:
        raise _usage(args.argv, "--instructions", "--instructions compares two revisions",
                     "give the other one: rulespec bench --against REV --instructions")
    if args.against:
        try:
            result = bench.against(spec, args.against, args.rounds, args.instructions)
        except bench.BadRevision as e:
            raise _usage(args.argv, "--against", e.message, e.hint) from None
        print(json.dumps(result, indent=2) if args.json else bench.against_text(result))
    else:
        result = bench.run(spec)
        print(json.dumps(result, indent=2) if args.json else bench.text(result))
    return 0

def cmd_profile(args) -> int:
    """Where a playout's time goes, by the pack's own rules (rulespec/rule_profile.py)."""
    from . import rule_profile
    from .pack import load_pack
    pack = load_pack(args.pack, _search_path(args))
    prof = rule_profile.profile(pack, _players(args, pack), list(range(args.seed, args.seed + args.games)), args.bots)
    s = rule_profile.summary(prof, args.top)
    print(json.dumps(s, indent=2) if args.json else rule_profile.text(s, str(pack.root)))
    return 0

# ------------------------------------------------------------------ simulate / compare
def cmd_simulate(args) -> int:
    """Many bots' games of a pack: summary, report.json and plots, balance checks (rulespec/simcommands.py)."""
    from .simcommands import simulate_command
    return simulate_command(args, _search_path(args, [args.pack]))


def cmd_compare(args) -> int:
    """The same games on two packs, compared aggregate by aggregate (rulespec/simcommands.py)."""
    from .simcommands import compare_command
    return compare_command(args, _search_path(args, [args.pack_a, args.pack_b]))


def _simulation_options(parser):
    parser.add_argument("--players", type=_count(1), metavar="N",
                        help="how many players (default: 4, or the pack's smallest count when it is not played by 4)")
    parser.add_argument("--games", type=_count(1), default=20, metavar="G", help="how many games (default: %(default)s)")
    parser.add_argument("--bots", default="random", metavar="BOT[,BOT...]",
                        help="one bot per seat (greedy,greedy,random) or one for all (default: %(default)s); seats "
                             "rotate across games (docs/simulate.md); bots: docs/bots.md")
    parser.add_argument("--seed", type=_seed, default=0, help="the first game's seed, then seed+1... (default: %(default)s)")
    parser.add_argument("--jobs", type=_count(1), default=1, metavar="J",
                        help="play the games in J worker processes (default: %(default)s)")
    parser.add_argument("--dask", metavar="ADDRESS",
                        help="send the games to the Dask scheduler at ADDRESS (tcp://host:8786); the same "
                             "results as a local run (needs the [sim] extra)")
    parser.add_argument("--out", metavar="DIR", help="write report.json, PNG plots and failed games' replay logs here")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


# ------------------------------------------------------------------ golden
def cmd_golden(args) -> int:
    """Replay the golden corpus (tests/golden/) and print a per-game diff; --update rewrites it."""
    from interpreter import golden
    folder = args.dir or golden.DEFAULT_DIR
    outcome = golden.update(folder) if args.update else golden.check(folder)
    print(outcome.text)
    if not args.update and outcome.failed:
        print(f"\nthe golden corpus differs. If the change is intended: `{golden.UPDATE_COMMAND}`, read the "
              f"diff above and list the changed games in the issue note (docs/testing.md, 'The golden corpus').")
    elif args.update and outcome.changed and not outcome.failed:
        print("list the changed games above (moves, totals, winners) in the issue note of this change")
    return 1 if outcome.failed else 0


# ------------------------------------------------------------------ migrate
def cmd_migrate(args) -> int:
    """Rewrite a pack for the newest version of the language (rulespec/migrate.py)."""
    from . import migrate
    return migrate.run(args.pack, _search_path(args, [args.pack]), check=args.check, write_files=args.write)


# ------------------------------------------------------------------ main
PACK_HELP = f"a bundled pack id (base_3to5, wars_of_italy) or a folder holding a pack.yaml (default: {DEFAULT_PACK})"


def _pack_argument(parser):
    """The pack as the first positional argument, with --pack kept as another way to give it
    (older scripts and docs); _one_pack merges the two."""
    parser.add_argument("pack", nargs="?", metavar="PACK", help=PACK_HELP)
    parser.add_argument("--pack", dest="pack_option", metavar="PACK",
                        help="the same as the positional PACK (kept for older scripts)")


def _measured_games_arguments(parser, games: int):
    """The pack and the games of `bench` and `profile`, which measure the same games."""
    _pack_argument(parser)
    parser.add_argument("--players", type=_count(1), metavar="N",
                        help="how many players (default: 4, or the pack's smallest count when it is not played by 4)")
    parser.add_argument("--games", type=_count(1), default=games, metavar="N",
                        help="how many games to play (default: %(default)s)")
    parser.add_argument("--seed", type=_seed, default=0, help="the first game's seed, then seed+1... (default: %(default)s)")
    parser.add_argument("--bots", type=_bot_spec, default="random", help=BOTS_OPTION_HELP)


def _one_pack(args):
    """The pack of a command given the positional PACK or --pack (not two different ones)."""
    if not hasattr(args, "pack_option"):
        return
    if args.pack_option is not None and args.pack is not None and args.pack_option != args.pack:
        raise _usage(args.argv, "--pack", f"two packs given: '{args.pack[:80]}' and --pack '{args.pack_option[:80]}'",
                     "give the pack once, as the first argument")
    args.pack = args.pack or args.pack_option or DEFAULT_PACK


def build_parser() -> argparse.ArgumentParser:
    from . import __version__
    p = _Parser(prog="rulespec", description="Rules-as-data engine for Virtù.")
    p.add_argument("--version", action="version", version=f"rulespec {__version__}",
                   help="print the engine version and exit")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser, metavar="COMMAND",
                           help="what to do (`rulespec COMMAND --help` for its arguments)")
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--pack-path", action="append", metavar="DIR",
                        help="a folder of packs (or a pack) that `extends:` and pack ids may name; repeatable "
                             "(also: the RULESPEC_PACK_PATH environment variable)")

    v = sub.add_parser("validate", parents=[common], help="check packs; exit 0 when clean, 1 on errors, 2 on usage errors")
    v.add_argument("packs", nargs="*", metavar="PACK", help=f"pack ids or folders (default: {DEFAULT_PACK})")
    v.add_argument("--strict", action="store_true", help="warnings fail too")
    v.add_argument("--format", choices=("text", "json", "github"), default="text",
                   help="text (default), json, or github (GitHub Actions annotations: ::error file=...,line=...)")
    v.add_argument("--all", action="store_true",
                   help="also print the findings that follow from an earlier error (json always has them)")
    v.add_argument("--playouts", type=_count(0), default=0, metavar="N",
                   help="also play N random games per player count (default: none)")
    v.add_argument("--seed", type=_seed, default=0, help="the first playout's seed, then seed+1... (default: 0)")
    v.set_defaults(func=cmd_validate)

    s = sub.add_parser("show", parents=[common], help="print the effective pack after overlays, one declaration "
                                                      "or item (KIND ID), or a diff against another pack")
    s.add_argument("pack", nargs="?", default=DEFAULT_PACK, help=f"pack id or folder (default: {DEFAULT_PACK})")
    s.add_argument("kind", nargs="?", help="with ID: show one declaration (action, formula...) or YAML item "
                                           "(city, road, colour...) and where it was defined and changed")
    s.add_argument("id", nargs="?", help="with KIND: the id of the declaration or item (a road: its two cities, "
                                         "e.g. pisa-florence)")
    s.add_argument("--json", action="store_true", help="print JSON (whole texts, provenance) instead of text")
    s.add_argument("--diff", metavar="BASE", help="what differs from BASE: declarations line by line, "
                                                  "YAML data item by item")
    s.add_argument("--unverified", action="store_true", help="list values marked inferred/placeholder (to check) "
                                                             "and decision (a reading we chose)")
    s.set_defaults(func=cmd_show)

    m = sub.add_parser("map", parents=[common], help="draw the board graph as SVG or PNG (by --out's extension), "
                                                     "optionally with a saved game's position")
    m.add_argument("pack", nargs="?", default=DEFAULT_PACK, metavar="PACK", help=PACK_HELP)
    m.add_argument("--players", type=_count(1), help="the player count whose board to draw (default: the pack's smallest)")
    m.add_argument("--out", default="map.svg", metavar="FILE",
                   help="the file to write, SVG or PNG by its extension (default: %(default)s; PNG needs the [sim] extra)")
    m.add_argument("--game", metavar="LOG", help="draw the position at the end of this game log (`play --log`): "
                                                 "control, troops and agents, as the state holds them (needs [sim])")
    m.set_defaults(func=cmd_map)

    pl = sub.add_parser("play", parents=[common], help="play a whole game with bots and print an account and the scores")
    _pack_argument(pl)
    pl.add_argument("--players", type=_count(1), metavar="N",
                    help="how many players (default: 4, or the pack's smallest count when it is not played by 4)")
    pl.add_argument("--seed", type=_seed, default=0, help="the random seed of the game and the bots (default: %(default)s)")
    pl.add_argument("--bots", type=_bot_spec, default="random", help=BOTS_OPTION_HELP)
    pl.add_argument("--log", metavar="FILE", help="write the game log (JSON lines) here, for `rulespec replay`")
    pl.add_argument("--quiet", action="store_true", help="only events and scores, not every decision")
    pl.add_argument("--human", metavar="COLOURS", help="play these seats yourself at a terminal table, e.g. red or "
                                                       "red,blue; the bots of --bots play the others (docs/play.md)")
    pl.set_defaults(func=cmd_play)

    sv = sub.add_parser("serve", parents=[common], help="a browser table on 127.0.0.1: play (hot seat or against "
                                                        "bots) and look at games in a web page (needs the [web] extra)")
    _pack_argument(sv)
    sv.add_argument("--port", type=int, default=8000, help="the port on 127.0.0.1 (default: %(default)s)")
    sv.add_argument("--bots", type=_bot_spec, default="random", help="the bot of the seats no person takes, "
                                                                     "with its knobs (greedy_eval:horizon=move; "
                                                                     "default: %(default)s; docs/bots.md)")
    sv.set_defaults(func=cmd_serve)

    r = sub.add_parser("replay", parents=[common], help="replay a game log and verify it")
    r.add_argument("log", help="a game log written by `rulespec play --log` or by playouts")
    r.add_argument("--pack", help="the pack of the game (a folder or an id; default: the id the log names)")
    r.add_argument("--allow-truncated", action="store_true",
                   help="replay a log that ends without its final line (a game that stopped early)")
    r.set_defaults(func=cmd_replay)

    b = sub.add_parser("bench", parents=[common], help="measure playout speed in CPU time (decisions/s, games/s), "
                                                   "optionally against another revision")
    _measured_games_arguments(b, 5)
    b.add_argument("--json", action="store_true", help="print the measurement as JSON")
    b.add_argument("--against", metavar="REV", help="also time REV (a commit, branch or tag of this git checkout) "
                                                    "on the same seeds, interleaved, and print the ratio")
    b.add_argument("--rounds", type=_count(1), default=2, metavar="N",
                   help="with --against: how many times each side plays the games (default: %(default)s)")
    b.add_argument("--instructions", action="store_true",
                   help="with --against: also count the machine instructions each side's games take (valgrind; "
                        "about fifty times slower, but the same on a busy machine)")
    b.set_defaults(func=cmd_bench)

    pr = sub.add_parser("profile", parents=[common], help="where a playout's time goes, by the pack's own rules: "
                                                         "the phases of a decision, the costliest formulas, statements "
                                                         "and constraints, each at its file:line")
    _measured_games_arguments(pr, 3)
    pr.add_argument("--top", type=_count(1), default=15, metavar="K", help="rows per table (default: %(default)s)")
    pr.add_argument("--json", action="store_true", help="print the figures as JSON")
    pr.set_defaults(func=cmd_profile)

    g = sub.add_parser("golden", parents=[common], help="check the golden corpus of stored games (per-game diff; exit 1 if any differs)")
    g.add_argument("--update", action="store_true", help="rewrite golden.json and the stored log (read the diff it prints)")
    g.add_argument("--dir", help="the corpus folder, holding corpus.yaml (default: tests/golden/ of this checkout)")
    g.set_defaults(func=cmd_golden)

    sc = sub.add_parser("scenario", parents=[common], help="run YAML scenarios: a pack's own (PACK/scenarios/*.yaml), "
                                                           "files, or the *.yaml of folders")
    sc.add_argument("targets", nargs="*", metavar="PACK|FILE|DIR",
                    help=f"a pack (id or folder: its scenarios/*.yaml), a scenario file, or a folder of scenario files "
                         f"(its *.yaml); any number (default: {DEFAULT_PACK})")
    sc.set_defaults(func=cmd_scenario)

    t = sub.add_parser("test", parents=[common],
                       help="a pack's CI in one command: validate, run its scenarios, play random games; "
                            "exit 0 when all pass, 1 on failures")
    t.add_argument("pack", nargs="?", default=DEFAULT_PACK, metavar="PACK", help=PACK_HELP)
    t.add_argument("--playouts", type=_count(0), default=DEFAULT_PLAYOUTS, metavar="N",
                   help="random-bot games per player count of the pack (default: %(default)s; 0: none)")
    t.add_argument("--seed", type=_seed, default=0, help="the first game's seed, then seed+1... (default: %(default)s)")
    t.add_argument("--strict", action="store_true", help="validation warnings fail too")
    t.add_argument("--format", choices=("text", "github", "junit"), default="text",
                   help="text (default); github: GitHub Actions annotations (::error file=...,line=...,col=...::) "
                        "and a summary; junit: JUnit XML, one testcase per check, scenario and game")
    t.add_argument("--out", metavar="FILE", help="write the report here instead of to standard output "
                                                 "(a one-line summary is still printed)")
    t.set_defaults(func=cmd_test)

    sim = sub.add_parser("simulate", parents=[common], help="play many bots' games of a pack: win rates, scores, "
                                                             "lengths, events, with 95%% intervals; --check: the "
                                                             "pack's balance expectations")
    sim.add_argument("pack", nargs="?", default=DEFAULT_PACK, metavar="PACK", help=PACK_HELP)
    _simulation_options(sim)
    sim.add_argument("--check", action="store_true",
                     help="check the pack's balance expectations (balance.yaml): exit 1 when one fails")
    sim.set_defaults(func=cmd_simulate)

    cmp = sub.add_parser("compare", parents=[common], help="the same seeds and bots on two packs: every aggregate's "
                                                            "difference with a paired test (Holm-corrected)")
    cmp.add_argument("pack_a", metavar="PACK_A", help="the reference pack (A): " + PACK_HELP.split(" (default")[0])
    cmp.add_argument("pack_b", metavar="PACK_B", help="the changed pack (B), compared with A")
    _simulation_options(cmp)
    cmp.add_argument("--correction", choices=("holm", "bh"), default="holm",
                     help="for the number of aggregates tested: holm (the default: no false difference at 5%% "
                          "over them all) or bh (Benjamini-Hochberg: at most 5%% of the differences found are false)")
    cmp.set_defaults(func=cmd_compare)

    mg = sub.add_parser("migrate", parents=[common], help="rewrite a pack written for an older version of the "
                                                          "language (pack.yaml `language:`) for the newest")
    mg.add_argument("pack", metavar="PACK", help=PACK_HELP.split(" (default")[0])
    how = mg.add_mutually_exclusive_group()
    how.add_argument("--check", action="store_true", help="exit 1 when migrating would change something (for CI)")
    how.add_argument("--write", action="store_true", help="write the rewritten files (default: print the diff)")
    mg.set_defaults(func=cmd_migrate)
    return p


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    _Parser.argv = argv
    parser = build_parser()
    args = parser.parse_args(argv)
    args.argv = argv
    from .limits import deep_recursion
    try:
        _one_pack(args)
        with deep_recursion():          # deeply nested rules: a few Python frames per level
            return args.func(args)
    except UsageError as e:
        print(e.render(), file=sys.stderr)
        return 2
    except RulespecError as e:
        _place_on_command_line(e.diagnostics, argv)
        print(e.render(), file=sys.stderr)
        return 2 if e.code == "RS030" else 1         # RS030: an argument that cannot be used
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
