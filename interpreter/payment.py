"""Paying a cost, one symbol source at a time.

A payment is the continuation `k` of a `pay` instruction (plain data):
  need:   the cost alternatives [{symbol: n}, ...]
  (money is the pack's `storable` symbol, Ruleset.money, kept in the side field its `treasury:`
  names: florins in Virtù)
  pool:   symbols tapped so far; money from other sources goes straight to the treasury, money
          from the first sources (the Room's own cards in Virtù) stays in the pool (its surplus
          is lost unless the money symbol's `surplus_kept:` holds)
  tapped: source ids already used in this payment
Each decision taps one source for one symbol type (the one-type-per-bottom rule): the
player gets all the symbols of that type on the bottom. The payment completes as soon as
one alternative is covered (money comes from the treasury). Only taps after which the cost
can still be completed are offered, so a payment never strands a player.
The Runtime supplies, from the pack's `source` declarations (content/base_3to5/rules/
sources.rules), `payment_sources(player, ctx)` -> [(label, {symbol: n})] in their order,
`first_source(label)` (a source to use before the others: "first use the resources provided
from the Action card and its Improvement, then supplement them") and `tap(player, label,
symbol, ctx) -> n`, which runs the source's `tap` block (a card exhausted, a bottom marked
used); and the treasury (`treasury`, `withdraw`, `deposit`).
"""
from __future__ import annotations

from . import costs



def start(rt, player, cost, env, span) -> dict:
    cost = costs.as_cost(cost)
    ctx = {"action": env["action"]} if "action" in env else {}
    # what the payment is for: the actions and procedures being run (an Alliance Bonus is
    # offered only where its `bonus_usable_in` says, inside or outside Actions)
    ctx["within"] = rt.running()
    return {"need": cost, "pool": dict(leftover(rt, player, ctx)), "tapped": [], "player": player,
            "paid": None, "paid_total": 0, "ctx": ctx}


def leftover(rt, player, ctx) -> dict:
    """Symbols tapped earlier in the same Action (or, outside Actions, the same phase) and not
    needed then: a bottom gives all its symbols of the type used, so a card with 2 Cavalry moves
    two Troops one at a time, and the Ottoman Bonus's "2 Ship symbols usable (at the same time)"
    carry two Troops. Kept in state["leftover"]; a new Action and every phase start afresh, and
    the pack says where else they go to waste with the verb waste_leftover() (the base pack:
    at the end of each Winter step, "you must use them immediately (or they go to waste)")."""
    lo = rt.state.get("leftover")
    if lo and lo["player"] == player and lo["action"] == ctx.get("action") and lo["phase"] == rt.state.get("phase"):
        return lo["symbols"]
    return {}


def _keep_leftover(rt, k, alt):
    """After a payment: what the pool holds beyond the alternative paid (money excepted: it
    went to the treasury, or is the first sources' surplus, see `step`)."""
    rest = {s: n - alt.get(s, 0) for s, n in k["pool"].items() if s != rt.rs.money and n > alt.get(s, 0)}
    rt.wrote_at("", "leftover")
    if rest:
        rt.state["leftover"] = {"player": k["player"], "action": k["ctx"].get("action"),
                                "phase": rt.state.get("phase"), "symbols": rest}
    else:
        rt.state.pop("leftover", None)


def _have(rt, k, s) -> int:
    """Symbols of type s available to this payment (money: the treasury + the first sources' money)."""
    return k["pool"].get(s, 0) + (rt.treasury(k["player"]) if s == rt.rs.money else 0)


def _covered(rt, k, alt) -> bool:
    for s, n in alt.items():
        if _have(rt, k, s) < n:
            return False
    return True


def _sources(rt, k):
    return [(sid, sym) for sid, sym in rt.payment_sources(k["player"], k["ctx"]) if sid not in k["tapped"]]


def _feasible(alt, pool, treasury, sources, money) -> bool:
    """Whether `sources` can still cover `alt` beyond the pool and treasury. A source gives
    one symbol type, so with two or more types missing it is a search; with one it is whether
    all the sources together give enough (what the search would find)."""
    need = {}
    for s, n in alt.items():
        n -= treasury if s == money else pool.get(s, 0)
        if n > 0:
            need[s] = n
    if not need:
        return True
    # quick bound: every source at once
    for s, n in need.items():
        for _, sym in sources:
            n -= sym.get(s, 0)
        if n > 0:
            return False
    if len(need) == 1:
        return True         # one symbol type missing: the bound is the answer
    useful = [sym for _, sym in sources if not need.keys().isdisjoint(sym)]     # gives a symbol needed

    def dfs(i, need):
        if not need:
            return True
        if i == len(useful):
            return False
        sym = useful[i]
        for s in sym:
            if s in need:
                left = dict(need)
                left[s] -= sym[s]
                if left[s] <= 0:
                    del left[s]
                if dfs(i + 1, left):
                    return True
        return dfs(i + 1, need)
    return dfs(0, need)


def step(rt, k) -> list | None:
    """Complete the payment if an alternative is covered: None when paid, else the legal moves
    of the payment's next decision (`options`: the check that some exists is the list itself,
    so it is worked out once per decision)."""
    for alt in k["need"]:
        if _covered(rt, k, alt):
            money = alt.get(rt.rs.money, 0)
            from_pool = min(money, k["pool"].get(rt.rs.money, 0))
            if money - from_pool:
                rt.withdraw(k["player"], money - from_pool)
            surplus = k["pool"].get(rt.rs.money, 0) - from_pool
            if surplus and rt.surplus_kept(k["player"]):
                rt.deposit(k["player"], surplus)
            k["paid"] = alt
            k["paid_total"] = costs.total(alt)
            rt.record_payment(k["player"], alt, k["ctx"])
            _keep_leftover(rt, k, alt)
            return None
    moves = options(rt, k)
    if not moves:
        from .vm import Abort
        raise Abort(f"cannot pay {costs.describe(k['need'])} with what is left")
    return moves


def options(rt, k) -> list:
    """Legal taps, as 'tap SOURCE SYMBOL' strings, then procedures the pack offers during a
    payment ('run request_indulgence'). Each procedure's conditions are asked once: the taps
    count what the runnable ones provide (virtual_sources)."""
    runnable = [p for p in rt.rs.payment_procedures if _may_run(rt, k["player"], p)]
    return _taps(rt, k, _provided(rt, runnable)) + [f"run {p}" for p in runnable]


def _may_run(rt, player, proc) -> bool:
    """The procedure's `requires` and `during_payment` conditions hold (`paying_for()` in them
    names the Action of the payment in progress, or of the one `can_pay` considers)."""
    c = rt.rs.procedures[proc]
    env = {"player": player}
    return ((c.requires is None or bool(c.requires(rt, env)))
            and (c.during_payment is None or bool(c.during_payment(rt, env))))


def _taps(rt, k, virtual) -> list:
    srcs = _sources(rt, k)
    # "First use the resources provided from the Action card and its Improvement, then
    # supplement them": while a Room card can still help, only Room cards may be tapped.
    missing = {s for alt in k["need"] for s, n in alt.items()
               if n > _have(rt, k, s)}
    first = rt.first_source
    helping = [(sid, sym) for sid, sym in srcs if first(sid) and missing & set(sym)]
    if helping:
        srcs = helping + [x for x in srcs if not first(x[0])]
        return ([t for t in _taps_of(rt, k, srcs, virtual) if first(t.split()[1])]
                or _taps_of(rt, k, srcs, virtual))
    return _taps_of(rt, k, srcs, virtual)


def _taps_of(rt, k, srcs, virtual) -> list:
    money = rt.rs.money
    treasury = _have(rt, k, money)
    kpool, need = k["pool"], k["need"]
    out = []
    for i, (sid, sym) in enumerate(srcs):
        rest = None
        for s, n in sym.items():
            had = treasury if s == money else kpool.get(s, 0)
            # the alternatives that still want this symbol (in order): none, no tap to weigh
            if len(need) == 1:          # (the common cost: one alternative)
                if need[0].get(s, 0) <= had:
                    continue
                wanting = need
            else:
                wanting = [alt for alt in need if alt.get(s, 0) > had]
                if not wanting:
                    continue
            if rest is None:
                rest = srcs[:i] + srcs[i + 1:] + virtual
            if s == money:
                pool, t = kpool, treasury + n       # (_feasible only reads the pool)
            else:
                pool, t = dict(kpool), treasury
                pool[s] = pool.get(s, 0) + n
            for alt in wanting:
                if _feasible(alt, pool, t, rest, money):
                    out.append(f"tap {sid} {s}")
                    break
    return out


def apply_option(rt, k, move: str):
    """Tap a source, or return (block, env) of a procedure the player runs mid-payment."""
    parts = move.split()
    if len(parts) == 2 and parts[0] == "run" and parts[1] in rt.rs.payment_procedures:
        # an offered move (api._parse: one of the decision's options), and `options` offers a
        # procedure only when its conditions hold (_may_run) in this very state: not asked again
        return rt.call(rt.rs.procedures[parts[1]], {"player": k["player"]}, [], {}, checked=True)
    if len(parts) != 3 or parts[0] != "tap":
        from .vm import Abort
        raise Abort(f"'{move}' is not a payment move (expected 'tap SOURCE SYMBOL')")
    _, sid, s = parts
    n = rt.tap(k["player"], sid, s, k["ctx"])
    k["tapped"].append(sid)
    if s != rt.rs.money or rt.first_source(sid):
        k["pool"][s] = k["pool"].get(s, 0) + n


def describe_need(k) -> str:
    """The cost, and once something was tapped for it, what is still missing (florins from the
    treasury are taken when the payment completes): 'pay 3 crown: 1 crown left'."""
    whole = costs.describe(k["need"])
    pool = k["pool"]
    if not any(pool.get(s, 0) for alt in k["need"] for s in alt):
        return whole
    left = []
    for alt in k["need"]:
        rest = {s: n - pool.get(s, 0) for s, n in alt.items() if n > pool.get(s, 0)}
        if rest not in left:
            left.append(rest)
    return f"{whole}: {costs.describe(left)} left"


def virtual_sources(rt, player) -> list:
    """What the pack's during-payment procedures could add (e.g. an Indulgence's Crown)."""
    procs = rt.rs.procedures
    return _provided(rt, [p for p in rt.rs.payment_procedures if procs[p].provides and _may_run(rt, player, p)])


def _provided(rt, runnable) -> list:
    """[(run:PROCEDURE, symbols)] of the procedures among `runnable` that provide symbols."""
    procs = rt.rs.procedures
    return [(f"run:{p}", procs[p].provides) for p in runnable if procs[p].provides]


def _available_now(rt, player, ctx):
    return rt.payment_sources(player, ctx), rt.treasury(player), leftover(rt, player, ctx)


def _available(rt, player, ctx):
    """What could pay now but the during-payment procedures (`_virtual`): sources, the treasury
    and the symbols left over. In a read-only window (Runtime.reading) they cannot change:
    computed once."""
    return rt.memoised(("can_pay", player, ctx.get("action")), _available_now, rt, player, ctx)


def _virtual(rt, player, ctx) -> list:
    """virtual_sources, computed once in a read-only window. Asked only when the other sources
    do not settle the question: the procedures' conditions cost more than the sources, and
    more sources never make a cost unpayable."""
    return rt.memoised(("can_pay virtual", player, ctx.get("action")), virtual_sources, rt, player)


def can_pay(rt, player, cost, ctx) -> bool:
    """Whether `player` could pay `cost` now (used by `can_pay(...)` in rules). In a read-only
    window the answer is remembered per cost: a purchase menu asks it of many items, most of
    which cost the same."""
    alts = costs.as_cost(cost)
    if rt.memo is None:
        return _can_pay(rt, player, alts, ctx)
    key = ("can_pay?", player, ctx.get("action"),
           frozenset(alts[0].items()) if len(alts) == 1 else tuple([frozenset(a.items()) for a in alts]))
    return rt.memoised(key, _can_pay, rt, player, alts, ctx)


def _can_pay(rt, player, alts, ctx) -> bool:
    srcs, treasury, pool = _available(rt, player, ctx)
    money = rt.rs.money
    for alt in alts:
        if _feasible(alt, pool, treasury, srcs, money):
            return True
    procs = rt.rs.procedures
    wanted = alts[0].keys() if len(alts) == 1 else {s for alt in alts for s in alt}
    for p in rt.rs.payment_procedures:
        provides = procs[p].provides
        if provides and not provides.keys().isdisjoint(wanted):
            break
    else:
        return False        # no procedure provides a symbol of the cost: their conditions need no asking
    virtual = _virtual(rt, player, ctx)
    return bool(virtual) and any(_feasible(alt, pool, treasury, srcs + virtual, money) for alt in alts)


def symbols_available(rt, player, symbol, ctx, virtual: bool = True) -> int:
    """How many of `symbol` the player could pay now, from the same sources as can_pay
    (virtual=False: without what during-payment procedures could add)."""
    srcs, _, pool = _available(rt, player, ctx)
    n = pool.get(symbol, 0)
    for _, sym in srcs + _virtual(rt, player, ctx) if virtual else srcs:
        n += sym.get(symbol, 0)
    return n
