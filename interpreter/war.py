"""War: sieges at the end of Spring. Placeholder resolution until the war issue lands:
each besieger compares troops with the city's value (+ defending troops); the loser's troops
go home. Kept deliberately small and marked as such (see the war issue for the full rules)."""
from __future__ import annotations


def resolve_all(rt, env, span):
    st = rt.state
    for p in st["turn_order"]:
        for c, s in st["cities"].items():
            n = s["besiegers"].get(p, 0)
            if not n:
                continue
            owner = s["controller"]
            defence = rt.f_modified_value(c, p) + (s["troops"].get(owner, 0) if owner else 0)
            if n > defence:
                losses = (1 if defence >= 3 else 0) + (s["troops"].get(owner, 0) if owner else 0)
                if owner:
                    rt.P(owner)["troops_reserve"] += s["troops"].pop(owner, 0)
                keep = max(0, n - losses)
                rt.P(p)["troops_reserve"] += n - keep
                del s["besiegers"][p]
                if keep:
                    s["troops"][p] = keep
                tile = rt.city_tile_of(c)
                if owner:
                    rt.v_remove_disc(env, [c], {}, span)
                rt.v_place_disc(env, [c], {"player": p}, span)
                if tile:
                    rt.v_take_tile(env, [tile, "exhausted"], {"player": p}, span)
                rt.log(f"{p} takes {c} by siege ({n} v {defence})")
            else:
                rt.P(p)["troops_reserve"] += n
                del s["besiegers"][p]
                rt.log(f"{p} fails to take {c} ({n} v {defence}); troops return")
    return None
