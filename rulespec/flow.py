"""Flow words: the turn structure is named by the pack, not by the engine.

The engine knows one loop: a game plays its `round` block again and again (the pack calls a
round a Year, a Round, a Turn...), and the phases the round plays are the pack's own
declarations. End conditions are checked at moments the pack declares: `end_of_PHASE` for
any declared phase, `end_of_round` after the round block. The base game's words stay valid as
other spellings (`year`, `max_years`, `end_of_year`, `then: final_winter`), so the packs and
scenarios written with them keep their meaning. This module holds those spellings and the
checks of them: the interpreter and the checker ask here.
"""
from __future__ import annotations

from rulespec import ast as A
from rulespec.errors import Diagnostic, did_you_mean, source_line_at

# the global name of the round counter in the base game's spelling -> the engine's word
NAME_SPELLINGS = {"year": "round"}
# game fields: the engine's word -> the base game's spelling
GAME_SPELLINGS = {"round": "year", "max_rounds": "max_years"}
END_OF_ROUND = "end_of_round"
# values of end_condition `at:` and `then:`: another spelling -> the engine's word
MOMENT_SPELLINGS = {"end_of_year": END_OF_ROUND}
THEN_SPELLINGS = {"final_winter": END_OF_ROUND}
DEFAULT_MAX_ROUNDS = 30


def game_field(decl, name: str):
    """The FieldValue of a game field under either spelling (`round` or `year`), or None. With
    both (an overlay's `modify game` writing `max_years` over a base's `max_rounds`), the one
    written last counts."""
    found = [fv for n in (name, GAME_SPELLINGS.get(name)) if n and (fv := decl.fields.get(n)) is not None]
    return max(found, key=lambda fv: list(decl.fields).index(fv.name)) if found else None


def _writer(decl, fv) -> str:
    """The pack that wrote a field last."""
    return fv.history[-1][2] if fv.history else decl.pack


def moment(name) -> str:
    """An `at:` value in the engine's words (end_of_year -> end_of_round)."""
    return MOMENT_SPELLINGS.get(name, name)


def then_word(name) -> str:
    """A `then:` value in the engine's words (final_winter -> end_of_round)."""
    return THEN_SPELLINGS.get(name, name)


def moments(pack) -> list:
    """Every moment an end condition may name in this pack: the end of the round, the end
    of each declared phase (and the other spellings)."""
    return [END_OF_ROUND, *MOMENT_SPELLINGS] + [f"end_of_{d.id}" for d in pack.of_kind("phase")]


def _diag(code, msg, span, hint="", missing=()):
    return Diagnostic(code, msg, span, hint, source_line=source_line_at(span.file, span.line), missing=tuple(missing))


def check_flow(pack) -> list:
    """The flow words of a pack: a game names its round once (RS104 without one, RS101 with
    both spellings); an end condition's `at:` is a moment of this pack (RS105 otherwise, with
    the nearest moment)."""
    out = []
    for game in pack.of_kind("game"):
        for word, other in GAME_SPELLINGS.items():
            if word in game.fields and other in game.fields and \
                    _writer(game, game.fields[word]) == _writer(game, game.fields[other]):
                fv = game.fields[other]
                out.append(_diag("RS101", f"game '{game.id}' gives both `{word}` and `{other}`, two spellings of "
                                          f"one field", fv.span, f"keep one: `{word}` (or `{other}`, the base game's word)"))
        if game_field(game, "round") is None:
            span = game.id_span or game.span
            out.append(_diag("RS104", f"game '{game.id}' is missing the required field 'round'", span,
                             "add `round: { play_phase(...) }`: the phases of one round, in order "
                             "(`year:` is another spelling)"))
    known = moments(pack)
    for ec in pack.of_kind("end_condition"):
        fv = ec.fields.get("at")
        if fv is None:
            continue
        v = fv.value
        name = v.id if isinstance(v, A.Name) else v if isinstance(v, str) else None
        span = getattr(v, "span", None) or fv.span
        if name is None:
            out.append(_diag("RS106", "field 'at' must name a moment of the game", span,
                             "write `at: end_of_round` or `at: end_of_PHASE` (a declared phase)"))
        elif name not in known:
            phase = name[len("end_of_"):] if name.startswith("end_of_") else None
            what = f"no phase '{phase}' is declared" if phase else f"'{name}' is not a moment of the game"
            words = [m for m in known if m not in MOMENT_SPELLINGS]
            dym = did_you_mean(name, words)
            out.append(_diag("RS105", f"end condition '{ec.id}' is checked at '{name}', but {what}", span,
                             (dym + " " if dym else "") + "the moments of this pack: " + ", ".join(words),
                             missing=(phase or name,)))
    return out
