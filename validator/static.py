"""Static validation of a pack: everything that can be checked without playing.

Order: load + overlays (syntax, schema, duplicate ids, overlay targets), then kinds/fields/
references/types (rulespec.checker), map and setup checks (validator.map_checks), component
counts (RS130), unused declarations (RS200, warning), declarations an overlay's `remove` left
unused (RS202, warning) and playout hints that can never apply (RS201, warning). Each check
reports Diagnostics with a stable code; the codes are documented in docs/validator.md. The
findings are ordered by cause (rulespec.diagnostic_order): what follows from a file that
failed to load is grouped under that file's error.
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from rulespec import ast as A

from rulespec.checker import check_pack, references_of
from rulespec.diagnostic_order import order
from rulespec import limits
from rulespec.prompts import literal_values, render_static
from rulespec.errors import Diagnostic, RuleFault, RulespecError, source_line_at
from rulespec.world import build_world
from rulespec.pack import Pack, load_pack_collecting

# kinds whose declarations must be referenced somewhere to be useful
# (options and symbols are also read by the engine itself, so they are not reported)
REFERENCE_ONLY_KINDS = ("action", "procedure", "war_bonus", "ability", "table", "formula")
# kinds whose declarations RS202 reports when an overlay's `remove` took away their last use
ORPHAN_KINDS = REFERENCE_ONLY_KINDS + ("symbol", "player_var")


@dataclass
class Report:
    pack_ref: str
    diagnostics: list = field(default_factory=list)
    pack: Pack | None = None

    @property
    def errors(self):
        return [d for d in self.diagnostics if d.severity == "error"]

    @property
    def warnings(self):
        return [d for d in self.diagnostics if d.severity == "warning"]


def validate_pack(ref, search_path=None) -> Report:
    """Every static check of a pack, then, when they pass, what `play` runs first: the setup
    and a first decision at each player count (check_game_starts). search_path: where
    `extends:` finds base packs by id (rulespec.pack.load_pack)."""
    report = Report(str(ref))
    with limits.deep_recursion():
        pack, errors = load_pack_collecting(ref, search_path)
        report.diagnostics.extend(errors)
        if pack is None:
            return report
        report.pack = pack
        report.diagnostics.extend(pack.warnings)
        diags, referenced = check_pack(pack)
        report.diagnostics.extend(diags)
        report.diagnostics.extend(check_map_data(pack))
        report.diagnostics.extend(check_components(pack))
        orphans = check_orphaned_by_removal(pack, referenced)
        report.diagnostics.extend(orphans)
        report.diagnostics.extend(check_unused(pack, referenced, skip={d.missing for d in orphans}))
        report.diagnostics.extend(check_playout_hints(pack))
        engine = None
        if not report.errors and _playable(pack):
            engine, found = _compile(pack)      # compiled once for both checks below
            report.diagnostics.extend(found)
        if engine is not None:
            report.diagnostics.extend(check_constraints_at_setup(pack, engine))
        if engine is not None and not report.errors:
            report.diagnostics.extend(check_game_starts(pack, engine=engine))
    report.diagnostics = order(report.diagnostics, report.pack)
    return report


def check_map_data(pack: Pack) -> list:
    """The map and setup checks (validator.map_checks). Their JSON Schemas are not checked
    again: a data file enters pack.data only once its schema passed (pack._Loader._load_yaml),
    which also spares a warm `validate` the import of jsonschema."""
    map_doc = pack.data.get("map")
    if map_doc is None:
        return []
    from validator.map_checks import check_map
    return check_map(map_doc, pack.data.get("setup"))


def _playable(pack: Pack) -> bool:
    """A pack with a setup and a `game`: one the checks below can start (the others are
    libraries for other packs)."""
    return "setup" in pack.data and bool(pack.of_kind("game"))


def _compile(pack: Pack):
    """(Engine, []) or (None, the diagnostics compiling the rules gave)."""
    from interpreter.api import Engine
    try:
        return Engine(pack), []
    except RulespecError as e:
        return None, e.diagnostics


def _copies(decl) -> int:
    v = decl.get("copies", 1)
    n = getattr(v, "value", v)
    return n if isinstance(n, int) else 1


def _name(v):
    return getattr(v, "id", v)


def check_components(pack: Pack) -> list:
    out = []
    for comp in pack.of_kind("component"):
        kind = _name(comp.get("of_kind"))
        if kind not in ("card", "tile"):
            continue
        want = _text(comp.get("count"))
        typ = _text(_name(comp.get("of_type")))
        found = [d for d in pack.of_kind(kind) if typ is None or _name(d.get("type")) == typ]
        have = sum(_copies(d) for d in found)
        if isinstance(want, int) and have != want:
            span = comp.fields["count"].span if "count" in comp.fields else comp.span
            out.append(Diagnostic(
                "RS130", f"the box holds {want} {typ or ''} {kind}s ({comp.id}) but the pack declares {have}",
                span, f"add or remove {kind} declarations (or their `copies:`), or correct `count:`; "
                      f"declared: {', '.join(f'{d.id}×{_copies(d)}' for d in found[:10]) or 'none'}{' ...' if len(found) > 10 else ''}",
                source_line=source_line_at(span.file, span.line), missing=(kind,)))
    return out


def check_unused(pack: Pack, referenced: set, skip=()) -> list:
    """RS200 (warning): a declaration that nothing uses. `skip`: the `missing` of the RS202
    findings, reported already."""
    out = []
    used_names = {i for (_, i) in referenced}
    world = build_world(pack)
    for (kind, id_), d in pack.decls.items():
        if kind in REFERENCE_ONLY_KINDS and (kind, id_) not in referenced and id_ not in used_names \
                and (str(id_),) not in skip and not _method_formula(d, world):
            span = d.id_span or d.span
            out.append(Diagnostic("RS200", f"{kind} '{id_}' is declared but never used", span,
                                  f"use it somewhere, or remove it (`remove {kind} {id_}` in an overlay)",
                                  severity="warning", source_line=source_line_at(span.file, span.line),
                                  missing=(str(id_),)))
    return out


def _method_formula(d, world) -> bool:
    """A formula whose first parameter has a kind of the world is read as an attribute of that
    kind (`player.cities`): part of what the pack says a thing has, like a field, never unused."""
    return d.kind == "formula" and bool(d.params) and bool(d.params[0].type) \
        and world.kind_of(d.params[0].type) is not None


def check_orphaned_by_removal(pack: Pack, referenced: set) -> list:
    """RS202 (warning): a symbol, procedure, formula... that a declaration removed by an overlay
    (`remove action trade`) used, and that nothing uses any more: said at its declaration,
    naming the `remove` that took its last use away."""
    gone = [(decl, where) for key, (decl, where) in pack.removed.items() if key not in pack.decls]
    if not gone:
        return []
    used_names = {i for (_, i) in referenced}
    out, seen = [], set()
    for decl, where in gone:
        for key in sorted(references_of(pack, [decl]), key=str):
            kind, id_ = key
            d = pack.decls.get(key)
            if d is None or kind not in ORPHAN_KINDS or key in referenced or id_ in used_names or key in seen:
                continue
            seen.add(key)
            span = d.id_span or d.span
            out.append(Diagnostic(
                "RS202", f"{kind} '{id_}' is no longer used: its last use was in {decl.kind} '{decl.id}', "
                         f"removed by `remove {decl.kind} {decl.id}` at {where}", span,
                f"remove it too (`remove {kind} {id_}`), or use it in another rule", severity="warning",
                source_line=source_line_at(span.file, span.line), missing=(str(id_),)))
    return out


def decision_texts(pack: Pack):
    """The prompts of every decision the pack's rules can ask, and the labels of their options
    (a template's formulas filled in where their value is a plain number or text)."""
    prompts, labels = {"pay"}, set()

    value_of = literal_values(pack).get
    decls = list(pack.decls.values())
    while decls:
        d = decls.pop()
        decls.extend(d.blocks.values())
        for fv in d.fields.values():
            for node in A.walk(fv.value):
                if isinstance(node, (A.Choose, A.OptionalStmt, A.Either)) and node.prompt:
                    prompts.add(render_static(node.prompt, value_of))
                if isinstance(node, A.Option):
                    labels.add(render_static(node.label, value_of))
    return prompts, labels


MOVE_WORDS = ("yes", "no", "done", "choose", "option", "tap", "run")


def check_playout_hints(pack: Pack) -> list:
    """RS201 (warning): a playout hint that can never apply: its `decision` starts no prompt of
    the rules, or its `move` is no move such a decision offers (a renamed prompt or option
    leaves the hint behind silently otherwise)."""
    hints = pack.of_kind("playout_hint")
    if not hints:
        return []
    prompts, labels = decision_texts(pack)
    value_of = literal_values(pack).get
    procedures = {d.id for d in pack.of_kind("procedure")}
    out = []

    def warn(d, field, msg, hint, missing=()):
        """missing: the prompt, label or procedure not found (it may be in a file that failed)."""
        fv = d.fields.get(field)
        span = getattr(fv.value, "span", None) or fv.span if fv is not None else d.span
        out.append(Diagnostic("RS201", msg, span, hint, severity="warning", missing=missing,
                              source_line=source_line_at(span.file, span.line)))

    for d in hints:
        decision = render_static(_text(d.get("decision")) or "", value_of)
        move = render_static(_text(d.get("move")) or "", value_of)
        if decision and not any(p.startswith(decision) for p in prompts):
            close = difflib.get_close_matches(decision, sorted(prompts), n=1, cutoff=0.5)
            warn(d, "decision", f"playout hint '{d.id}': no decision of the rules has a prompt starting with "
                                f"'{decision}'", f"did you mean '{close[0]}'?" if close else
                 "copy the start of a prompt from a choose / optional / either in the rules", (decision,))
        word = move.split(" ", 1)[0]
        rest = move[len(word) + 1:]
        if word not in MOVE_WORDS:
            warn(d, "move", f"playout hint '{d.id}': '{move}' is not a move", "a move starts with one of: "
                 + ", ".join(MOVE_WORDS) + " (docs/scenarios.md, move notation)")
        elif word == "option" and rest and not any(lab.startswith(rest) for lab in labels):
            close = difflib.get_close_matches(rest, sorted(labels), n=1, cutoff=0.5)
            warn(d, "move", f"playout hint '{d.id}': no option of the rules is labelled '{rest}...'",
                 f"did you mean 'option {close[0]}'?" if close else "copy the start of an option label from the rules",
                 (rest,))
        elif word == "run" and rest and rest not in procedures:
            close = difflib.get_close_matches(rest, sorted(procedures), n=1)
            warn(d, "move", f"playout hint '{d.id}': no procedure named '{rest}'",
                 f"did you mean 'run {close[0]}'?" if close else "name a procedure offered while paying (during_payment)",
                 (rest,))
    return out


def _text(v):
    return getattr(v, "value", v)


def check_constraints_at_setup(pack: Pack, engine=None) -> list:
    """RS140: a constraint that already fails in the setup position of a supported player
    count can never hold in a legal game (static: no move is played). engine: the pack's
    interpreter.api.Engine when the caller compiled it already."""
    if not _playable(pack):
        return []
    from interpreter.runtime import Runtime
    from interpreter.state import initial_state, setup_for
    from rulespec.board import board_for
    out = []
    if engine is None:
        engine, found = _compile(pack)
        if engine is None:
            return found
    rs = engine.rs
    for n in pack.players:
        try:
            pc = setup_for(pack.data["setup"].data, n)
            state = initial_state(rs, list(pc["colours"]), 0, count=n)
            rt = Runtime(rs, state, board_for(pack, pack.data["setup"].data, n))
        except (RulespecError, KeyError, TypeError):
            continue        # setup problems are reported by the map/setup checks
        for c in rs.constraints:
            if c["check"] is None:
                continue
            players = state["players"] if c["scope"] == "player" else [None]
            for p in players:
                try:
                    ok = c["check"](rt, {"player": p})
                except RuleFault as e:       # a division by zero, a limit passed: said where
                    d = c["decl"]
                    out.append(e.at(d.fields["check"].span if "check" in d.fields else d.span).first)
                    break
                except Exception as e:       # a formula that cannot even be evaluated
                    ok, why = False, f" (evaluating it failed: {type(e).__name__})"
                else:
                    why = ""
                if not ok:
                    d = c["decl"]
                    span = d.fields["check"].span if "check" in d.fields else d.span
                    out.append(Diagnostic("RS140", f"constraint '{d.id}' is already broken at the start of a "
                                          f"{n}-player game{f' for {p}' if p else ''}{why}", span,
                                          "a constraint must hold in every legal position, starting with setup",
                                          source_line=source_line_at(span.file, span.line)))
                    break
    return out


def check_game_starts(pack: Pack, seed: int = 0, engine=None) -> list:
    """What `rulespec play` runs first, run here, so that a pack that validates clean starts:
    at each player count of the pack, the setup (new_game) and its first decision (the first
    legal move, applied with every constraint checked). A pack with no setup or game is a
    library for other packs: nothing to start (a map is optional). Findings: RS301 (the game cannot start, a rule
    fails or refuses the first legal move), RS305 (a limit passed), RS303 (no legal move
    before the game ended), RS123 (no setup for a player count the pack names)."""
    if not _playable(pack):
        return []
    from interpreter.api import IllegalMove
    from rulespec.errors import Span
    if engine is None:
        engine, found = _compile(pack)
        if engine is None:
            return found
    here = Span(str(pack.root / "pack.yaml"), 1, 1)
    out = []
    for n in pack.players:
        try:
            state = engine.new_game(n, seed)
            legal = engine.legal_moves(state)
            if not legal and not engine.is_over(state):
                pend = state["vm"]["pending"] or {}
                out.append(Diagnostic("RS303", f"{n} players: no legal move at the first decision "
                                               f"({pend.get('prompt') or pend.get('kind')}, rule at {pend.get('at')})",
                                      here, "add a way to go on (an option with no steps, `optional`)"))
                continue
            if legal:
                engine.apply(state, legal[0])
        except IllegalMove as e:
            out.append(Diagnostic("RS301", f"{n} players: the first legal move '{e.move}' is refused: {e.reason}",
                                  e.rule_span if e.rule_span and e.rule_span.line else here,
                                  "the rules offer a move they then refuse: filter it out where it is offered",
                                  source_line=source_line_at(e.rule_span.file, e.rule_span.line) if e.rule_span else ""))
        except RulespecError as e:
            for d in e.diagnostics:
                if not d.message.startswith(f"{n} players"):
                    d.message = f"{n} players: {d.message}"
                if not d.span.line:
                    d.span = here
                out.append(d)
        if out:         # the other player counts most likely fail the same way: fix this first
            break
    return out
