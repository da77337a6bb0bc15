"""`rulespec simulate` and `compare` (rulespec/simulate.py, compare.py, balance.py, plots.py,
stats.py; docs/simulate.md), on the small dice pack tests/packs/sim_dice (18 decisions a game).

Plots and Dask need the `[sim]` extra: those tests skip, saying why, when it is not installed,
except in CI (CI=true), which installs it, where a missing extra fails them.
"""
from __future__ import annotations

import importlib
import json
import os
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings, strategies as st

from rulespec import stats
from rulespec.balance import check as check_balance
from rulespec.cli import main
from rulespec.compare import compare
from rulespec.errors import RulespecError
from rulespec.pack import load_pack
from rulespec.simulate import EventCounter, absent_value, metrics, parse_bots, plan, run

from ci_mode import ci_only

PACKS = Path(__file__).resolve().parent / "packs"
DICE = str(PACKS / "sim_dice")
ROOT = Path(__file__).resolve().parents[1]


def extra(module: str):
    """The module of the [sim] extra; skipped (with the reason) when it is missing, but in CI."""
    try:
        return importlib.import_module(module)
    except ImportError:
        if os.environ.get("CI"):
            raise
        pytest.skip(f"{module} is not installed: pip install -e '.[sim]' (CI installs it)")


def overlay(make_pack, name: str, rules: str = "", files: dict | None = None) -> str:
    """A pack extending sim_dice with these rules (and other files)."""
    out = {"pack.yaml": f"id: {name}\nname: {name}\nversion: 0.0.1\nextends: sim_dice\n"}
    if rules:
        out["rules/change.rules"] = rules
    out.update(files or {})
    return str(make_pack(name, out))


# ------------------------------------------------------------------ statistics
def test_t_quantiles_match_the_printed_tables():
    # two-sided 95% values of Student's t, as every statistics textbook prints them
    for df, t in ((1, 12.706), (2, 4.303), (5, 2.571), (10, 2.228), (30, 2.042)):
        assert stats.t_quantile(0.975, df) == pytest.approx(t, abs=1e-3)


def test_paired_t_test_on_a_worked_example():
    # differences 1, 1, 2, 0.5: mean 1.125, sd 0.6292, t = 3.576 with 3 df, p = 0.0374
    r = stats.paired_t([1, 2, 3, 4], [2, 3, 5, 4.5])
    assert r.diff.mean == pytest.approx(1.125)
    assert r.t == pytest.approx(3.5762, abs=1e-3)
    assert r.p == pytest.approx(0.0374, abs=1e-3)
    assert r.diff.low < 0.2 and r.diff.high > 2.0


def test_a_difference_without_spread_is_exact():
    assert stats.paired_t([1, 2, 3], [1, 2, 3]).p == 1.0
    assert stats.paired_t([1, 2, 3], [2, 3, 4]).p == 0.0


def test_holm_on_a_worked_example():
    tests = [stats.paired_t([0, 0], [0, 0]) for _ in range(4)]
    for t, p in zip(tests, (0.01, 0.04, 0.03, 0.005)):
        t.p = p
    stats.holm(tests)
    # sorted: 0.005 x 4 = 0.02, 0.01 x 3 = 0.03, 0.03 x 2 = 0.06, 0.04 x 1 -> 0.06 (never below the one before)
    assert [t.p_adjusted for t in tests] == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert [t.significant for t in tests] == [True, False, False, True]


def test_benjamini_hochberg_on_a_worked_example():
    tests = [stats.paired_t([0, 0], [0, 0]) for _ in range(4)]
    for t, p in zip(tests, (0.01, 0.04, 0.03, 0.005)):
        t.p = p
    stats.benjamini_hochberg(tests)
    # step-up from the largest: 0.04 x 4/4 = 0.04, 0.03 x 4/3 = 0.04, 0.01 x 4/2 = 0.02, 0.005 x 4/1 = 0.02
    assert [t.p_adjusted for t in tests] == pytest.approx([0.02, 0.04, 0.04, 0.02])
    assert all(t.significant for t in tests)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 1, allow_nan=False), min_size=1, max_size=30), st.sampled_from(["holm", "bh"]))
def test_a_correction_never_lowers_a_p_value_and_keeps_their_order(ps, name):
    tests = [stats.paired_t([0, 0], [0, 0]) for _ in ps]
    for t, p in zip(tests, ps):
        t.p = p
    stats.CORRECTIONS[name](tests)
    assert all(t.p - 1e-12 <= t.p_adjusted <= 1.0 for t in tests)
    ranked = sorted(tests, key=lambda t: t.p)
    assert all(a.p_adjusted <= b.p_adjusted + 1e-12 for a, b in zip(ranked, ranked[1:]))
    if name == "bh":       # Holm bounds more (the chance of any false positive): never more findings
        holm = [stats.paired_t([0, 0], [0, 0]) for _ in ps]
        for t, p in zip(holm, ps):
            t.p = p
        stats.holm(holm)
        assert sum(t.significant for t in holm) <= sum(t.significant for t in tests)


@settings(max_examples=60, deadline=None)
@given(st.floats(0.01, 0.99), st.integers(1, 200))
def test_t_quantile_inverts_the_cdf(p, df):
    assert stats.t_cdf(stats.t_quantile(p, df), df) == pytest.approx(p, abs=1e-6)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=1, max_size=40))
def test_a_win_rate_interval_holds_its_rate_within_0_and_1(xs):
    e = stats.rate_interval(xs)
    assert 0.0 <= e.low <= e.mean <= e.high <= 1.0
    assert e.high > e.low                 # never empty, even when every game went the same way


def test_wilson_interval_of_no_win_in_ten_games():
    e = stats.rate_interval([0] * 10)
    assert e.mean == 0 and e.high == pytest.approx(0.2775, abs=1e-3)


# ------------------------------------------------------------------ the plan of a run
@settings(max_examples=30, deadline=None)
@given(st.integers(2, 5), st.data())
def test_seats_rotate_so_colours_seats_and_bots_are_balanced(n, data):
    colours = [f"c{i}" for i in range(n)]
    bots = data.draw(st.lists(st.sampled_from(["random", "greedy", "first"]), min_size=n, max_size=n))
    specs = plan("p", (), colours, bots, n * n, 10, "/tmp")
    assert [s.seed for s in specs] == list(range(10, 10 + n * n))
    colour_seat = Counter((c, k) for s in specs for k, c in enumerate(s.seats))
    assert set(colour_seat.values()) == {n}              # every colour at every seat, n times
    bot_seat = Counter((k, b) for s in specs for k, b in enumerate(s.bots))
    for k in range(n):                                   # every seat plays the whole lineup
        assert Counter({b: c for (kk, b), c in bot_seat.items() if kk == k}) == Counter({b: c * n for b, c in Counter(bots).items()})
    assert all(sorted(s.seats) == sorted(colours) for s in specs)


def test_bots_are_named_per_seat_or_once_for_all():
    assert parse_bots("random", 3) == ["random"] * 3
    assert parse_bots("greedy, random,first", 3) == ["greedy", "random", "first"]
    with pytest.raises(RulespecError, match="unknown bot 'gredy'") as e:
        parse_bots("random,gredy,first", 3)
    assert "greedy" in e.value.first.hint
    with pytest.raises(RulespecError, match="2 bots given for 3 players"):
        parse_bots("random,first", 3)


# ------------------------------------------------------------------ games
@pytest.fixture(scope="module")
def dice_run():
    return run(DICE, 3, 9, "random,uniform,first", seed=3)


def test_a_run_records_every_game_and_counts_the_packs_events(dice_run):
    sim = dice_run
    assert [r["seed"] for r in sim.records] == list(range(3, 12))
    assert not sim.failures and sim.categories == ["prestige"]
    assert set(sim.event_names) == {"rolled", "omen_read"}
    for r in sim.records:
        assert r["years"] == 6 and r["ended"]
        totals = {c: row["total"] for c, row in r["scores"].items()}
        assert set(r["winners"]) <= set(totals) and r["winners"]
        best = max((row["total"], row["tie_break"]) for row in r["scores"].values())
        assert all((r["scores"][w]["total"], r["scores"][w]["tie_break"]) == best for w in r["winners"])
        for name, row in r["events"].items():
            # each event names its player: the per-player counts add up to the event's count
            assert sum(p.get(name, 0) for p in r["by_player"].values()) == row["count"]
        rolled = r["events"].get("rolled")
        if rolled:
            assert rolled["count"] <= rolled["sums"]["face"] <= 6 * rolled["count"]
            assert "face" not in rolled["by"]                   # numbers are summed, not counted
        omens = r["events"].get("omen_read")
        if omens:
            assert sum(omens["by"]["omen"].values()) == omens["count"]
            assert set(omens["by"]["omen"]) <= {"crown", "cross", "blank"}


def test_win_shares_add_up_to_one_game_per_game(dice_run):
    series = dice_run.series()
    for i in range(len(dice_run.finished)):
        assert sum(series[k][i] for k in series if k.startswith("win.colour.")) == pytest.approx(1.0)
        assert sum(series[k][i] for k in series if k.startswith("win.seat.")) == pytest.approx(1.0)
    # the lineup is one bot per seat: each bot's share of a game is its seat's
    assert sum(dice_run.aggregates()[f"win.bot.{b}"].mean for b in ("random", "uniform", "first")) == pytest.approx(1.0)


def test_the_same_seeds_give_the_same_games_in_worker_processes(dice_run):
    again = run(DICE, 3, 4, "random,uniform,first", seed=3, jobs=2)
    assert again.records == dice_run.records[:4]


def test_a_failing_game_is_reported_with_its_seed_and_a_replay_log(tmp_path):
    broken = str(PACKS / "sim_dice_broken")          # divides by zero when an omen shows a cross
    sim = run(broken, 3, 4, "random", seed=0, out_dir=str(tmp_path / "out"))
    assert sim.failures and len(sim.records) == 4          # the run went on
    for r in sim.failures:
        assert r["code"] == "RS301" and "zero" in r["error"] and r["seed"] in range(4)
        log = Path(r["log"])
        assert log.parent == tmp_path / "out" / "failed" and log.is_file()
        # the log ends with the move that failed: replaying it fails the same way
        code = main(["replay", str(log), "--allow-truncated", "--pack", broken])
        assert code == 1
    assert {r["index"] for r in sim.finished} | {r["index"] for r in sim.failures} == set(range(4))


def test_the_content_of_every_game_is_the_runs(dice_run):
    assert {r["content_hash"] for r in dice_run.records} == {load_pack(DICE).content_hash()}


# ------------------------------------------------------------------ compare
def test_compare_finds_a_real_change_and_not_an_unchanged_pack(dice_run, make_pack):
    richer = overlay(make_pack, "sim_dice_rich", """
        replace procedure read_omen "Read an omen" {
          effect: {
            roll omen as o
            event(omen_read, side: player, omen: o)
            gain(florin, 30)
          }
        }
        """)
    b = run(richer, 3, 9, "random,uniform,first", seed=3)
    c = compare(dice_run, b)
    assert len(c.pairs) == 9
    prestige = c.tests["score.prestige"]
    assert prestige.significant and prestige.diff.low > 0
    assert c.tests["length.years"].p == 1.0 and not c.tests["length.years"].significant
    same = compare(dice_run, run(DICE, 3, 9, "random,uniform,first", seed=3))
    assert same.significant == [] and all(t.diff.mean == 0 for t in same.tests.values())


def _one_game(events, colours=("red", "blue")) -> dict:
    """The metrics of a finished game whose events are `events` (counted as play_one counts)."""
    counter = EventCounter(list(colours))
    counter.add(events)
    record = {"winners": [colours[0]], "scores": {c: {"total": 1} for c in colours}, "years": 3, "decisions": 9,
              "ended": True, "events": counter.events, "by_player": counter.by_player,
              "seats": [{"seat": k + 1, "colour": c, "bot": "random"} for k, c in enumerate(colours)]}
    return metrics(record, [])


def test_numeric_keys_are_averaged_per_event_and_related_to_each_other():
    traded = [{"event": "traded", "side": "red", "ships": 2, "florins": 4},
              {"event": "traded", "side": "blue", "ships": 0, "florins": 0},
              {"event": "traded", "side": "red", "ships": 4, "florins": 8}]
    m = _one_game(traded)
    assert m["events.traded"] == 3 and m["events.traded.florins"] == 12
    assert m["per_event.traded.florins"] == 4.0 and m["per_event.traded.ships"] == 2.0   # what one trade brings
    assert m["ratio.traded.florins_per_ships"] == 2.0 and m["ratio.traded.ships_per_florins"] == 0.5
    # nothing traded: no ratio (no division by zero); no such event: no mean per event either
    empty = _one_game([{"event": "traded", "side": "red", "ships": 0, "florins": 0}])
    assert empty["per_event.traded.florins"] == 0.0 and not any(k.startswith("ratio.") for k in empty)
    none = _one_game([])
    assert not any(k.startswith(("per_event.", "ratio.")) for k in none)
    assert absent_value("per_event.traded.florins") is None and absent_value("ratio.traded.florins_per_ships") is None
    assert absent_value("events.traded.florins") == 0.0


def test_a_run_averages_each_numeric_key_per_event(dice_run):
    series = dice_run.series()
    faces = series["per_event.rolled.face"]
    assert faces and all(1 <= f <= 6 for f in faces)
    games_rolling = [r for r in dice_run.finished if "rolled" in r["events"]]
    assert len(faces) == len(games_rolling)            # a game without a roll has no mean face
    for f, r in zip(faces, games_rolling):
        assert f == r["events"]["rolled"]["sums"]["face"] / r["events"]["rolled"]["count"]


@ci_only
def test_compare_finds_that_trade_pays_more_in_the_three_florins_overlay(capsys, tmp_path):
    """Issue 20's acceptance: the base game against a one-line overlay (Trade pays 3 florins per
    Ship). Random bots trade no more, and games vary in length, so the per-game totals do not
    tell; the florins per Ship traded do, in every game that traded, after Holm's correction."""
    overlay_pack = str(ROOT / "content" / "examples" / "trade_three_florins")
    assert main(["compare", "base_3to5", overlay_pack, "--players", "3", "--games", "4", "--seed", "1",
                 "--quiet", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "ratio.traded.florins_per_ships *" in out
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    per_ship = report["differences"]["ratio.traded.florins_per_ships"]
    assert per_ship["significant"] and (per_ship["a"], per_ship["b"]) == (2.0, 3.0)
    assert "ratio.traded.florins_per_ships" in report["significant"]
    # the other aggregates are there with their intervals, Trade's per-event mean among them
    for name in ("per_event.traded.florins", "events.traded.florins", "length.years"):
        d = report["differences"][name]["diff"]
        assert d["low"] <= d["mean"] <= d["high"]


# ------------------------------------------------------------------ balance expectations
def test_the_packs_balance_expectations_hold_or_are_skipped(dice_run):
    verdicts = {v.id: v for v in check_balance(dice_run, load_pack(DICE))}
    assert verdicts["no_dominant_colour"].status == "passed"
    assert verdicts["six_years"].status == "passed"
    assert verdicts["seats_at_four"].status == "skipped"        # about 4 players, the run has 3


def test_a_failed_expectation_is_placed_in_balance_yaml(dice_run, make_pack):
    pack = load_pack(overlay(make_pack, "sim_dice_short", files={"balance.patch.yaml": """
        balance:
          $append:
            - id: short_games
              text: games last at most 3 Years
              metric: length.years
              at_most: 3
            - id: typo
              metric: win.colour.purpel
              at_most: 0.5
        """}))
    verdicts = {v.id: v for v in check_balance(dice_run, pack)}
    short = verdicts["short_games"]
    assert short.status == "failed" and short.diagnostic.code == "RS500"
    assert short.diagnostic.span.file.endswith("balance.patch.yaml") and short.diagnostic.span.line == 3
    assert "length.years = 6.00" in short.diagnostic.message
    typo = verdicts["typo"]
    assert typo.status == "failed" and typo.diagnostic.code == "RS501" and typo.diagnostic.span.line == 7
    assert verdicts["six_years"].status == "passed"


def test_judging_by_the_interval_tolerates_what_chance_explains(dice_run, make_pack):
    rates = [dice_run.aggregates()[f"win.colour.{c}"] for c in dice_run.colours]
    top = max(rates, key=lambda e: e.mean)
    bound = (top.mean + top.low) / 2          # below the mean, above the interval's low end
    pack = load_pack(overlay(make_pack, "sim_dice_tight", files={"balance.patch.yaml": f"""
        balance:
          $append:
            - {{id: by_mean, metric: "win.colour.*", at_most: {bound}}}
            - {{id: by_interval, metric: "win.colour.*", at_most: {bound}, judge: interval}}
        """}))
    verdicts = {v.id: v.status for v in check_balance(dice_run, pack)}
    assert verdicts["by_mean"] == "failed" and verdicts["by_interval"] == "passed"


def test_a_malformed_expectation_is_a_positioned_error(make_pack):
    folder = overlay(make_pack, "sim_dice_bad", files={"balance.patch.yaml": """
        balance:
          $append:
            - id: nothing_bounded
              metric: length.years
            - id: no_such_measure
              metric: length.hours
              at_most: 3
        """})
    with pytest.raises(RulespecError) as e:
        load_pack(folder)
    lines = sorted((d.span.line, d.message) for d in e.value.diagnostics)
    assert [ln for ln, _ in lines] == [3, 6], lines
    assert all(d.span.file.endswith("balance.patch.yaml") for d in e.value.diagnostics)


# ------------------------------------------------------------------ the commands
def test_simulate_check_exits_by_the_expectations(tmp_path, make_pack, capsys):
    out = tmp_path / "run"
    assert main(["simulate", DICE, "--players", "3", "--games", "3", "--quiet", "--check", "--out", str(out)]) == 0
    report = json.loads((out / "report.json").read_text())
    assert report["games"] == 3 and len(report["game_records"]) == 3 and report["failed"] == 0
    assert {b["id"]: b["status"] for b in report["balance"]}["six_years"] == "passed"
    assert 0 <= report["aggregates"]["win.seat.1"]["low"] <= report["aggregates"]["win.seat.1"]["high"] <= 1
    short = overlay(make_pack, "sim_dice_short2", files={"balance.patch.yaml": """
        balance:
          $append:
            - {id: short_games, metric: length.years, at_most: 3}
        """})
    capsys.readouterr()
    assert main(["simulate", short, "--players", "3", "--games", "2", "--quiet", "--check"]) == 1
    text = capsys.readouterr().out
    assert "balance.patch.yaml:3:" in text and "error RS500: balance expectation 'short_games' failed" in text
    assert main(["simulate", "minimal_map", "--players", "3", "--games", "1", "--quiet", "--check"]) == 1
    assert "declares no balance expectations" in capsys.readouterr().out


def test_simulate_refuses_an_unknown_bot_at_its_place_on_the_command_line(capsys):
    argv = ["simulate", DICE, "--players", "3", "--bots", "random,gredy,first"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    col = len(" ".join(argv[:-1])) + 2
    assert f"<command line>:1:{col}: error RS030: unknown bot 'gredy'" in err and "greedy" in err


def test_simulate_and_compare_write_their_plots(tmp_path, make_pack):
    extra("matplotlib")
    out = tmp_path / "sim"
    assert main(["simulate", DICE, "--players", "3", "--games", "3", "--quiet", "--out", str(out)]) == 0
    for name in ("win_rates", "scores", "length", "events"):
        assert (out / f"{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    same = overlay(make_pack, "sim_dice_same")            # the same rules under another id
    out = tmp_path / "cmp"
    assert main(["compare", DICE, same, "--players", "3", "--games", "3", "--quiet", "--out", str(out),
                 "--correction", "bh"]) == 0
    report = json.loads((out / "report.json").read_text())
    assert report["pairs"] == 3 and "paired t-test" in report["test"] and report["significant"] == []
    assert report["correction"] == "bh" and "Benjamini-Hochberg" in report["test"]
    for name in ("win_rates", "scores", "length", "events", "differences"):
        assert (out / f"{name}.png").stat().st_size > 1000


def test_dask_plays_the_same_games_as_a_local_run(dice_run):
    distributed = extra("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster:
        remote = run(DICE, 3, 2, "random,uniform,first", seed=3, dask=cluster.scheduler_address)
    assert remote.records == dice_run.records[:2]


def test_an_unreachable_dask_scheduler_is_a_usage_error(monkeypatch):
    extra("distributed")
    monkeypatch.setattr("rulespec.simulate.DASK_CONNECT_TIMEOUT", "1s")
    with pytest.raises(RulespecError, match="cannot reach the Dask scheduler") as e:
        run(DICE, 3, 1, "random", dask="tcp://127.0.0.1:1")
    assert e.value.code == "RS030"


def test_each_plot_is_a_png_with_axes_a_title_and_labelled_data(tmp_path, make_pack, monkeypatch):
    """Issue 20: every plot file is a PNG whose figure has axes, a title, and data with labels
    (axis labels, tick labels or a legend): the figures are caught as they are saved."""
    extra("matplotlib")
    from rulespec import plots
    caught = []
    real_save = plots._save

    def catch(fig, path):
        caught.append((path, fig))
        return real_save(fig, path)

    monkeypatch.setattr(plots, "_save", catch)
    same = overlay(make_pack, "sim_dice_plots")
    assert main(["compare", DICE, same, "--players", "3", "--games", "3", "--quiet", "--out", str(tmp_path)]) == 0
    assert {p.name for p, _ in caught} == {"win_rates.png", "scores.png", "length.png", "events.png",
                                          "differences.png"}
    for path, fig in caught:
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", path
        axes = [ax for ax in fig.get_axes() if ax.get_visible()]
        assert axes, f"{path.name}: no axes"
        titles = [fig._suptitle.get_text() if fig._suptitle else ""] + [ax.get_title() for ax in axes]
        assert any(t.strip() for t in titles), f"{path.name}: no title"
        drawn = [ax for ax in axes if ax.patches or ax.lines or ax.collections or ax.containers]
        assert drawn, f"{path.name}: no data drawn"
        for ax in drawn:
            labels = [ax.get_xlabel(), ax.get_ylabel()] + [t.get_text() for t in ax.get_xticklabels()] \
                + [t.get_text() for t in ax.get_yticklabels()]
            legend = ax.get_legend()
            assert any(s.strip() for s in labels) or legend is not None, f"{path.name}: data without labels"
