"""Values the compiled rules give where the compiler cannot know the types: `a + b` of two
untyped values, and a catalogue field read through any of the engine's paths (compiled code,
`Runtime.attr` on a value typed `any`, `field_of`), which all go through one reader
(Runtime.catalogue_field) and must agree, with or without its cache of plain values."""
from __future__ import annotations

import pytest
from hypothesis import assume, given, settings, strategies as st

from interpreter.api import Engine
from interpreter.state import card_ids
from rulespec.pack import load_pack
from rulespec.parser import parse_expr


@pytest.fixture(scope="module")
def engine():
    return Engine(load_pack("base_3to5"))


def _plus(engine):
    fn, _ = engine.rs.comp.expr(parse_expr("a + b"), {"a": None, "b": None})     # both untyped
    return fn


_VALUE = st.one_of(st.none(), st.integers(-5, 5), st.lists(st.sampled_from(["x", "y"]), max_size=3))


@settings(max_examples=60, deadline=None)
@given(a=_VALUE, b=_VALUE)
def test_untyped_plus_concatenates_lists_and_adds_numbers(engine, a, b):
    """Lists concatenate (none and [] add nothing), numbers add (none counts 0): an empty
    list on the left used to give `0 + [...]`, a Python TypeError."""
    # a number plus a list: the checker refuses it where it sees the types
    assume(not ({type(a), type(b)} >= {int, list}))
    rt = engine.runtime(engine.new_game(4, 0))
    got = _plus(engine)(rt, {"a": a, "b": b})
    if isinstance(a, list) or isinstance(b, list):
        assert got == list(a or []) + list(b or [])
    else:
        assert got == (a or 0) + (b or 0)


def test_untyped_plus_reads_each_side_once_left_first(engine):
    rt = engine.runtime(engine.new_game(4, 0))
    fn, _ = engine.rs.comp.expr(parse_expr("a + b + a"), {"a": None, "b": None})
    assert fn(rt, {"a": [], "b": ["x"]}) == ["x"]
    assert fn(rt, {"a": ["p"], "b": []}) == ["p", "p"]
    assert fn(rt, {"a": 2, "b": None}) == 4


def _instances(engine):
    rs = engine.rs
    return [x for cat in (rs.cards, rs.tiles) for tid, it in cat.items() for x in card_ids(tid, it["copies"])]


def test_every_path_reads_the_same_catalogue_field(engine):
    """For every card and tile copy and every field its catalogue kind declares: compiled
    `x.F`, attr (the value typed `any`) and field_of give the same value, with the cache of
    plain values warm, and on a fresh engine whose cache is never filled."""
    state = engine.new_game(4, 3)
    fields = sorted({n for (_, n) in engine.rs.comp.catalogue})
    things = _instances(engine)
    assert fields and things

    def reads(eng):
        rt = eng.runtime(state)
        out = {}
        for name in fields:
            fn, _ = eng.rs.comp.expr(parse_expr(f"x.{name}"), {"x": "card"})
            for x in things:
                out[x, name] = (fn(rt, {"x": x, "player": "red"}), rt.attr(x, name, {"player": "red"}),
                                rt.field_of(x, name, {"player": "red"}))
        return out

    warm = reads(engine)
    assert all(a == b == c for a, b, c in warm.values())
    assert engine.rs.static_attrs        # plain values were remembered
    cold_engine = Engine(engine.pack)
    cold_engine.rs.static_attrs = _Forgetful()
    assert reads(cold_engine) == warm


def test_a_variable_set_on_a_card_wins_over_the_remembered_value(engine):
    state = engine.new_game(4, 3)
    rt = engine.runtime(state)
    x = _instances(engine)[0]
    name = sorted({n for (_, n) in engine.rs.comp.catalogue})[0]
    rt.catalogue_field(x, name, {})
    rt.catalogue_field(x, name, {})         # now answered from the cache, if plain
    state.setdefault("vars", {}).setdefault(x, {})[name] = "set by a rule"
    fn, _ = engine.rs.comp.expr(parse_expr(f"x.{name}"), {"x": "card"})
    assert fn(rt, {"x": x}) == rt.attr(x, name, {}) == rt.catalogue_field(x, name, {}) == "set by a rule"


class _Forgetful(dict):
    """A cache that never keeps anything."""

    def __setitem__(self, key, value):
        pass
