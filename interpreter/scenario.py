"""Scenario files: a given state, moves, and expected results, as YAML (docs/scenarios.md).

  name: Annexing Ravenna costs 3 crowns
  pack: base_3to5            # id or folder (relative to the scenario file)
  players: [red, yellow, green]   # or a count
  seed: 1
  rolls: [6, 2]              # optional: the next `roll`s (and `picks:` the next `random`s), in
                             #   order, instead of the seeded RNG; each must be used
  given:                     # state paths -> values, applied to the new game
    p.red.florins: 5
    cities.ravenna.agent: null
  start:                     # optional: instead of the game's own flow, start here
    perform: annex           #   an action (or `run: PROCEDURE`), as this player,
    player: red              #   with these arguments; when it is done the Year flow goes on
    args: {}
  steps:
    - move: choose ravenna   # one move in the textual notation (or a list: moves: [...])
    - expect: {cities.ravenna.controller: red}
    - illegal: choose milan
      because: not one of the choices      # a substring of the refusal
Paths are dot-separated keys into the state (see docs/scenarios.md); `scores.red.total`,
`legal` (the legal moves) and `pending.prompt` are computed.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from rulespec.errors import Diagnostic, RulespecError, Span, did_you_mean
from rulespec.schema import check_schema
from rulespec.yamldata import load_yaml_file

from . import rng, vm
from .events import account
from .notation import pack_names, unknown_names
from .state import state_problem


@dataclass
class Outcome:
    file: str
    name: str
    failures: list = field(default_factory=list)    # [(line, text)]
    moves: int = 0

    @property
    def ok(self):
        return not self.failures


def _get(root, path: str):
    cur = root
    for part in path.split("."):
        if isinstance(cur, dict):
            if part in cur:
                cur = cur[part]
            else:
                raise KeyError(part)
        elif isinstance(cur, list):
            cur = cur[int(part)]
        else:
            raise KeyError(part)
    return cur


# lists whose order is what they say (who plays first): compared in order
ORDERED_PATHS = {"turn_order", "players"}
# the game's options and the maps of sparse values (a thing's `vars`): open-ended in any pack
_ALWAYS_OPEN = frozenset({"options", "vars"})


def open_maps(rs) -> frozenset:
    """The keys of the state's mappings whose keys are open-ended: a `given` path may add a new
    key there (a side's count in a `count by side` field, a key of a `map` field, a pile of a
    grouped zone, a sparse value); anywhere else a path must already exist, so a typo is
    reported instead of silently adding data."""
    w = rs.world
    out = set(_ALWAYS_OPEN)
    for k in list(w.kinds.values()) + list(w.records.values()):
        for f in k.fields.values():
            if f.type.shape in ("count", "map"):
                out.add(f.key)
            if f.home:
                out.add(f.home)
    out.update(z.key for z in w.zones.values() if z.grouped)
    return frozenset(out)


def _set(root, path: str, value, open_keys=_ALWAYS_OPEN):
    parts = path.split(".")
    cur = root
    inside_open = False          # below an open-ended mapping, new keys may be created
    for part in parts[:-1]:
        if isinstance(cur, list):
            cur = cur[int(part)]
        elif part not in cur and inside_open:
            cur = cur.setdefault(part, {})
        else:
            cur = cur[part]
        inside_open = inside_open or part in open_keys
    last = parts[-1]
    if isinstance(cur, list):
        cur[int(last)] = value
    elif last in cur or inside_open:
        cur[last] = value
    else:
        raise KeyError(last)


def lookup(engine, state, path: str):
    if path == "legal":
        return engine.legal_moves(state)
    if path == "winners":                 # who wins if the game were scored now (any order)
        return engine.winners(state)
    if path.startswith("scores"):
        return _get({"scores": engine.scores(state)}, path)
    if path.startswith("pending"):
        return _get({"pending": state["vm"]["pending"] or {}}, path)
    return _get(state, path)


def refresh(engine, state):
    """Recompute what derives from the patched state (the game's `refresh` block: in Virtù the
    extra Cortigiano spaces opened by Titles, Cities, bonuses), then the pending decision."""
    rt = engine.runtime(state)
    block = engine.rs.game.get("refresh")
    if block is not None:
        vm.run_now(rt, block, {"player": None})
    state["vm"]["pending"] = None
    vm.run(rt)


def _run_procedure(rt, name: str, p, *args, **kw):
    """Run the pack's procedure `name` for player `p` at once, as the rules would call it; a
    refusal (Abort) leaves the VM's frames and pending decision as they were."""
    v = rt.state["vm"]
    frames, pending = len(v["frames"]), v["pending"]
    try:
        vm.run_now(rt, *rt.call(rt.rs.procedures[name], {"player": p}, list(args), kw))
    except vm.Abort:
        del v["frames"][frames:]
        v["pending"] = pending
        raise


def give(engine, state, spec: dict, doc=None):
    """Give players cards/tiles from the supply, as the rules would (Cortigiano space or
    Domain, extra Agents): {red: [ambassador, ambassador, duchy_red]}."""
    rt = engine.runtime(state)
    for p, things in (spec or {}).items():
        for t in things or []:
            try:
                if t in engine.rs.tiles or rt.is_tile(t):
                    _run_procedure(rt, "take_tile", p, t, run_on_gain=False)
                else:
                    _run_procedure(rt, "take_card", p, t)
            except vm.Abort as e:
                sp = doc.span(("give", p)) if doc else Span("<scenario>")
                raise RulespecError(Diagnostic("RS403", f"cannot give {t} to {p}: {e.reason}", sp, "")) from None
    state["fresh"] = []
    refresh(engine, state)


def start(engine, state, spec: dict, doc=None):
    """Replace the pending flow by one action or procedure performed by a player (a puzzle-like
    starting point: the state was set up by `given`)."""
    kind = "perform" if "perform" in spec else "run"
    target = spec.get(kind)
    table = engine.rs.actions if kind == "perform" else engine.rs.procedures
    if target not in table:
        sp = doc.span(("start", kind)) if doc else Span("<scenario>")
        raise RulespecError(Diagnostic("RS403", f"no {'action' if kind == 'perform' else 'procedure'} '{target}'", sp,
                                       "name an action or procedure of the pack"))
    rt = engine.runtime(state)
    state["vm"] = {"frames": [], "pending": None, **{k: state["vm"][k] for k in ("ask_forced", "forced")
                                                      if state["vm"].get(k)}}
    state["phase"] = spec.get("phase", state.get("phase"))
    if spec.get("then") == "end_of_phase":       # the phase's close runs after the action
        if state["phase"] not in engine.rs.phases:
            sp = doc.span(("start", "then")) if doc else Span("<scenario>")
            raise RulespecError(Diagnostic("RS403", f"'then: end_of_phase' needs a phase, and '{state['phase']}' is "
                                           "not one", sp, "name it with `phase:` in `start`"))
        vm.push(rt, engine.rs.phase_close(state["phase"]), {"player": None})
    env = {"player": spec.get("player")}
    args = dict(spec.get("args") or {})
    if any(p == "player" for p, _ in table[target].params):
        args.setdefault("player", spec.get("player"))
    result = rt.verb(kind, env, [target], args, Span("<scenario>"))
    vm.push(rt, result[0], result[1], scope=True)
    try:
        vm.run(rt)
    except vm.Abort as e:
        raise RulespecError(Diagnostic("RS403", f"the scenario cannot start: {e.reason}", e.span or Span("<scenario>"), ""))
    return rt.events


def _check_names(engine, moves, unknown_ids, line, out: Outcome):
    """An `illegal:` or `not_legal:` move must name things the pack has: a misspelt id is
    refused too, and the test would pass for the wrong reason. Names meant to be unknown are
    listed in the step's `unknown_ids` (and must indeed be unknown)."""
    names = _names(engine)
    declared = set(unknown_ids or ())
    for mv in moves:
        for name in unknown_names(mv, names):
            if name not in declared:
                hint = did_you_mean(name, [n for n in names if isinstance(n, str)])
                out.failures.append((line, f"move '{mv}' names '{name}', which the pack does not have"
                                           + (f" ({hint})" if hint else "")
                                           + "; list it in the step's unknown_ids if that is the point"))
            declared.discard(name)
    for name in sorted(declared):
        out.failures.append((line, f"unknown_ids: '{name}' is not an unknown name of these moves"))


def _names(engine):
    names = getattr(engine, "_scenario_names", None)
    if names is None:
        names = engine._scenario_names = pack_names(engine.pack)
    return names


def _same(path: str, want, got) -> bool:
    if isinstance(want, list) and isinstance(got, list) and path in ORDERED_PATHS:
        return [str(x) for x in want] == [str(x) for x in got]
    if isinstance(want, list) and isinstance(got, list) and path != "legal":
        return sorted(map(str, want)) == sorted(map(str, got))
    if path == "legal" and isinstance(want, list):
        return all(w in got for w in want)
    return got == want


def _with_overlay(base: Path, files: dict, doc, search_path=None):
    """The scenario's pack with a small overlay of its own (`overlay:` file name -> text): a
    card's symbols, a Palace's Rooms, any value of the pack, changed for this test only, by the
    overlay machinery every variant uses (docs/language.md). The overlay extends the base by
    its folder's name, the base folder being named as trusted (the search path)."""
    import tempfile
    from rulespec.pack import load_pack
    with tempfile.TemporaryDirectory(prefix="scenario-overlay-") as tmp:
        folder = Path(tmp) / "overlay"
        folder.mkdir()
        (folder / "pack.yaml").write_text(
            f"id: scenario_overlay\nname: overlay of {Path(doc.file).name}\nversion: 0.0.0\n"
            f"extends: {json.dumps(base.name)}\n", encoding="utf-8")
        for name, text in files.items():
            name = str(name)
            if "/" in name or "\\" in name or name.startswith(".") or not name.endswith((".rules", ".yaml")) \
                    or name == "pack.yaml":
                sp = doc.span(("overlay", name))
                raise RulespecError(Diagnostic("RS403", f"overlay file '{name}' must be a plain file name ending in "
                                               ".rules or .yaml (not pack.yaml)", sp, "e.g. cards.rules, map.patch.yaml"))
            (folder / name).write_text(str(text), encoding="utf-8")
        try:
            return load_pack(folder, [base, *(search_path or [])])
        except RulespecError as e:        # point at the scenario, not the temporary folder
            sp = doc.span(("overlay",))
            raise RulespecError([Diagnostic(d.code, f"in the scenario's overlay: {d.message}", sp, d.hint)
                                 for d in e.diagnostics]) from None


def load_scenario(path):
    """The scenario file, checked against rulespec/schemas/scenario.schema.json: an unknown or
    misspelt key, a wrongly typed value or an empty file is an error at its line."""
    doc = load_yaml_file(path)
    problems = check_schema(doc, "scenario")
    if problems:
        raise RulespecError(problems)
    return doc


def home_pack(path) -> Path | None:
    """The pack whose own scenario this file is: a file directly in the `scenarios/` folder of
    a pack (PACK/scenarios/NAME.yaml, PACK holding a pack.yaml), else None. Such a scenario
    may leave out `pack:`, so a pack's tests move and get renamed with it."""
    folder = Path(path).parent
    if folder.name == "scenarios" and (folder.parent / "pack.yaml").is_file():
        return folder.parent.resolve()
    return None


def scenario_pack(path, doc, search_path=None) -> Path:
    """The folder of the pack a scenario names (`pack:`): a folder inside the scenario's own
    folder (a relative path), or an id (bundled, or in the search path). Without `pack:`, the
    pack whose `scenarios/` folder holds the file (home_pack), else base_3to5. An absolute
    path or one leading out of the scenario's folder is RS022, an unknown pack RS020, both at
    the `pack:` line."""
    from rulespec.pack import _ID, find_in_search_path
    from rulespec.sandbox import check_path, inside, relative_inside
    if "pack" not in doc.data:
        home = home_pack(path)
        if home is not None:
            return home
    ref = str(doc.data.get("pack", "base_3to5"))
    span = doc.span(("pack",)) if "pack" in doc.data else doc.span(())
    src = doc.source_line(span)
    check_path(ref, span, "pack")
    here = Path(path).parent
    local = here / ref
    if not _ID.fullmatch(ref):
        real = relative_inside(ref, here, here, span, "the scenario's pack", src)
        if (real / "pack.yaml").is_file():
            return real
    elif (local / "pack.yaml").is_file() and inside(local.resolve(), here.resolve()):
        return local.resolve()
    else:
        found = find_in_search_path(ref, search_path)
        if found is not None:
            return found
    raise RulespecError(Diagnostic("RS020", f"no pack '{ref}' found", span,
                                   "a bundled pack id, the id of a pack in the search path, or a folder inside the "
                                   "scenario's folder holding a pack.yaml", source_line=src))


_ENGINES: dict = {}


def _engine(base: Path, search_path) -> "Engine":
    """One compiled pack per folder for all the scenarios of a run (compiling the base pack
    takes longer than most scenarios; an engine plays any number of games, and its constraint
    checker is right for any state it is given). A scenario with an overlay gets its own."""
    from .api import Engine
    from rulespec.pack import load_pack
    key = (str(base), tuple(str(p) for p in search_path or ()))
    if key not in _ENGINES:
        if len(_ENGINES) >= 8:
            _ENGINES.clear()
        _ENGINES[key] = Engine(load_pack(base, search_path))
    return _ENGINES[key]


def _forced_outcome(doc, e: rng.ForcedOutcomeError) -> RulespecError:
    """A forced roll or pick the draw cannot have (RS403), at its entry in the scenario; the
    hint names the rule that drew."""
    sp = doc.span((e.kind,))
    rule = e.first.span
    return RulespecError(Diagnostic("RS403", e.first.message, sp,
                                    (f"the draw is at {rule}; " if rule and rule.line else "") + e.first.hint,
                                    source_line=doc.source_line(sp)))


def _unused_forced(doc, state, out: Outcome):
    """Every forced outcome must have been drawn: one left over means the game did not roll
    or pick what the scenario meant it to."""
    for kind, left in rng.unused_forced(state).items():
        out.failures.append((doc.span((kind,)).line,
                             f"{kind}: {len(left)} forced outcome(s) never drawn: {left} (the rules rolled or "
                             f"picked fewer times than the scenario says)"))


def run_scenario(path, search_path=None) -> Outcome:
    try:
        return _run_scenario(path, search_path)
    except rng.ForcedOutcomeError as e:
        raise _forced_outcome(load_scenario(path), e) from None


def _run_scenario(path, search_path=None) -> Outcome:
    from .api import IllegalMove, Engine
    from rulespec.pack import load_pack
    doc = load_scenario(path)
    data = doc.data
    out = Outcome(str(path), str(data["name"]))
    base = scenario_pack(path, doc, search_path)
    engine = (Engine(_with_overlay(base, data["overlay"], doc, search_path)) if data.get("overlay")
              else _engine(base, search_path))
    forced = {k: data[k] for k in rng.FORCED_KINDS if data.get(k)}
    state = engine.new_game(data.get("players", 3), int(data.get("seed", 0)), data.get("options"), forced=forced)
    if data.get("ask_forced"):
        state["vm"]["ask_forced"] = True
    events = []             # account lines since the last step (the first step: since `start`)
    where = "given"
    try:
        if data.get("given"):
            for k, v in data["given"].items():
                try:
                    _set(state, str(k), v, open_maps(engine.rs))
                except (KeyError, IndexError, ValueError, TypeError):
                    sp = doc.span(("given", k))
                    raise RulespecError(Diagnostic("RS403", f"no state path '{k}'", sp, "see docs/scenarios.md for paths",
                                                   source_line=doc.source_line(sp))) from None
            why = state_problem(state, engine.rs, deep=True)
            if why:
                sp = doc.span(("given",))
                raise RulespecError(Diagnostic("RS403", f"`given` makes a state the rules cannot use: {why}", sp,
                                               "give each path a value of the kind the state holds there",
                                               source_line=doc.source_line(sp)))
            refresh(engine, state)
        if data.get("give"):
            where = "give"
            give(engine, state, data["give"], doc)
        if data.get("start"):
            where = "start"
            events = start(engine, state, data["start"], doc)
    except RulespecError:
        raise
    except vm.Abort as e:
        sp = doc.span((where,))
        raise RulespecError(Diagnostic("RS403", f"the scenario's state cannot be run: {e.reason}", sp,
                                       f"the rules refuse it at {e.span}" if e.span else "",
                                       source_line=doc.source_line(sp))) from None
    except Exception as e:       # a `given` value of the wrong kind for the rules that read it
        sp = doc.span((where,))
        raise RulespecError(Diagnostic("RS403", f"the scenario's state cannot be run: the rules fail on it "
                                                f"({type(e).__name__}: {str(e)[:200]})", sp,
                                       "check the types of the values under `given:` (a number where the state "
                                       "holds a number...)", source_line=doc.source_line(sp))) from None
    for i, step in enumerate(data["steps"]):
        line = doc.span(("steps", i)).line
        moves = step.get("moves") or ([step["move"]] if "move" in step else [])
        for mv in moves:
            try:
                state = engine.apply(state, str(mv), events=events)
                out.moves += 1
            except IllegalMove as e:
                out.failures.append((line, f"move '{mv}' was refused: {e.reason}"))
                return out
        if "log" in step:
            lines = account(events)
            for text in step["log"]:
                if not any(text.lower() in e.lower() for e in lines):
                    out.failures.append((line, f"log: no account line contains {text!r}; the lines were: "
                                               + (" | ".join(lines) or "none")))
        events = []
        for k, want in (step.get("expect") or {}).items():
            try:
                got = lookup(engine, state, str(k))
            except (KeyError, IndexError, ValueError, TypeError):
                out.failures.append((line, f"{k}: no such path in the state"))
                continue
            if not _same(str(k), want, got):
                out.failures.append((line, f"{k}: expected {want!r}, got {got!r}"))
        refused = [step["illegal"]] if "illegal" in step else []
        not_legal = step.get("not_legal", [])
        not_legal = [not_legal] if isinstance(not_legal, str) else not_legal
        if refused or not_legal:
            _check_names(engine, refused + not_legal, step.get("unknown_ids"), line, out)
        elif "unknown_ids" in step:
            out.failures.append((line, "unknown_ids needs an illegal: or not_legal: move in the same step"))
        if "legal_exactly" in step:
            legal = engine.legal_moves(state)
            missing = [m for m in step["legal_exactly"] if m not in legal]
            extra = [m for m in legal if m not in step["legal_exactly"]]
            if missing or extra:
                out.failures.append((line, "legal moves differ: " + "; ".join(
                    part for part in (f"not offered: {', '.join(missing)}" if missing else "",
                                      f"offered too: {', '.join(extra)}" if extra else "") if part)))
        if not_legal:
            legal = engine.legal_moves(state)
            for mv in not_legal:
                if " ".join(mv.split()) in legal:
                    out.failures.append((line, f"move '{mv}' is offered, expected it not to be"))
        for mv in refused:
            try:
                engine.apply(state, mv)
                out.failures.append((line, f"move '{mv}' was accepted, expected it to be illegal"))
            except IllegalMove as e:
                because = step.get("because")
                if because and str(because).lower() not in e.reason.lower():
                    out.failures.append((line, f"move '{mv}' refused for another reason: {e.reason!r} "
                                               f"(expected {because!r})"))
    _unused_forced(doc, state, out)
    return out
