"""Static validation of a pack: everything that can be checked without playing.

Order: load + overlays (syntax, schema, duplicate ids, overlay targets), then kinds/fields/
references/types (rulespec.checker), map and setup checks (validator.map_checks), component
counts (RS130) and unused declarations (RS200, warning). Each check reports Diagnostics with a
stable code; the codes are documented in docs/validator.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from rulespec.checker import check_pack
from rulespec.errors import Diagnostic, RulespecError, source_line_at
from rulespec.pack import Pack, load_pack_collecting

# kinds whose declarations must be referenced somewhere to be useful
# (options and symbols are also read by the engine itself, so they are not reported)
REFERENCE_ONLY_KINDS = ("action", "procedure", "war_bonus", "ability", "table", "formula")


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


def validate_pack(ref) -> Report:
    report = Report(str(ref))
    pack, errors = load_pack_collecting(ref)
    report.diagnostics.extend(errors)
    if pack is None:
        return report
    report.pack = pack
    report.diagnostics.extend(pack.warnings)
    diags, referenced = check_pack(pack)
    report.diagnostics.extend(diags)
    report.diagnostics.extend(check_map_data(pack))
    report.diagnostics.extend(check_components(pack))
    report.diagnostics.extend(check_unused(pack, referenced))
    if not report.errors:
        report.diagnostics.extend(check_constraints_at_setup(pack))
    report.diagnostics.sort(key=lambda d: (d.severity != "error", d.span.file, d.span.line, d.span.column))
    return report


def check_map_data(pack: Pack) -> list:
    map_doc = pack.data.get("map")
    if map_doc is None:
        return []
    from validator.map_checks import check_map_files
    return check_map_files(map_doc, pack.data.get("setup"))


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
        want = comp.get("count")
        want = getattr(want, "value", want)
        typ = _name(comp.get("of_type"))
        typ = getattr(typ, "value", typ)
        found = [d for d in pack.of_kind(kind) if typ is None or _name(d.get("type")) == typ]
        have = sum(_copies(d) for d in found)
        if isinstance(want, int) and have != want:
            span = comp.fields["count"].span if "count" in comp.fields else comp.span
            out.append(Diagnostic(
                "RS130", f"the box holds {want} {typ or ''} {kind}s ({comp.id}) but the pack declares {have}",
                span, f"add or remove {kind} declarations (or their `copies:`), or correct `count:`; "
                      f"declared: {', '.join(f'{d.id}×{_copies(d)}' for d in found[:10])}{' ...' if len(found) > 10 else ''}",
                source_line=source_line_at(span.file, span.line)))
    return out


def check_unused(pack: Pack, referenced: set) -> list:
    out = []
    used_names = {i for (_, i) in referenced}
    for (kind, id_), d in pack.decls.items():
        if kind in REFERENCE_ONLY_KINDS and (kind, id_) not in referenced and id_ not in used_names:
            span = d.id_span or d.span
            out.append(Diagnostic("RS200", f"{kind} '{id_}' is declared but never used", span,
                                  f"use it somewhere, or remove it (`remove {kind} {id_}` in an overlay)",
                                  severity="warning", source_line=source_line_at(span.file, span.line)))
    return out


def check_constraints_at_setup(pack: Pack) -> list:
    """RS140: a constraint that already fails in the setup position of a supported player
    count can never hold in a legal game (static: no move is played)."""
    if "setup" not in pack.data or "map" not in pack.data or not pack.of_kind("game"):
        return []
    from interpreter.ruleset import Ruleset
    from interpreter.runtime import Runtime
    from interpreter.state import initial_state, setup_for
    from rulespec.board import Board
    out = []
    try:
        rs = Ruleset.build(pack)
    except RulespecError as e:
        return e.diagnostics
    for n in pack.players:
        try:
            pc = setup_for(pack.data["setup"].data, n)
            state = initial_state(rs, list(pc["colours"]), 0, count=n)
            rt = Runtime(rs, state, Board.from_pack_data(pack.data["map"].data, pack.data["setup"].data, n))
        except (RulespecError, KeyError, TypeError):
            continue        # setup problems are reported by the map/setup checks
        for c in rs.constraints:
            if c["check"] is None:
                continue
            players = state["players"] if c["scope"] == "player" else [None]
            for p in players:
                try:
                    ok = c["check"](rt, {"player": p})
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
