"""The setup position is the same, byte for byte, now that the pack builds it.

World-model stage 5 (docs/design/world-model-plan.md) moved the setup out of
interpreter/state.py: zone `initial:` expressions fill the supply and each side's zones, and
the game's `prepare` block places the starting Cities. The stored layout (every key, in its
order: decision 1 of the plan) must not change. BEFORE holds what
`scripts/initial_state_hashes.py --root <checkout of 0a7c736>` printed at the commit the stage
started from (generated, not typed). `new_game`'s state is compared without the VM's frames,
which hold program positions that any edit of the rules moves. The wars_of_italy hashes are
those of the branch that encoded its Major Cities (`--root` at its tip, before stage 5 reached it),
changed on purpose by issue 17: each side keeps the base field `agent` (an Agent on a Major City's
Influence marker) where it kept `envoy`, and the pack version is 0.3.0 (nothing else differs).
"""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import initial_state_hashes  # noqa: E402

BEFORE = {
    'base_3to5:red,yellow,green:0': '927b6da7e53f00746c55c440eab99b165975b2837a1d5e1fede52f30efe4f3ef',
    'new_game base_3to5:red,yellow,green:0': 'a5af96afae6ee8fba9e8ffc2d3ddfe4c57fc8d3fefb8cb8b6bc7a04f30254fa9',
    'base_3to5:red,yellow,green,blue:0': 'd8f3ae3a8f63de55f0a6c48e93931877d548597b45b99ca4036c929810777429',
    'new_game base_3to5:red,yellow,green,blue:0': 'deb7eb60defe4232933e8b653a1cc48aaae055e22bcaeb533ed779c032c33496',
    'base_3to5:red,yellow,green,blue,white:0': '8e2b49fcad5f613489106f674a0e363e2b763090c0e3a8adbdcb5c8c9cce979d',
    'new_game base_3to5:red,yellow,green,blue,white:0': '8b4bcbfde453019f8bc79a126b6f07c4e33a71ce1b7d90073d424a3d75c740e0',
    'base_3to5:white,blue,green,yellow,red:7': 'ad88466024929b94da3afe9894caadfe174e91c6643e989e679057c5e60e8b31',
    'new_game base_3to5:white,blue,green,yellow,red:7': 'bea07619f4ee6d5f10be8807f689bf4fc0115a7eaa03850c438eba0efcbc2dc9',
    'wars_of_italy:setup:0': 'b0d6937af5e09c1f694867977f42be40302f3892f5c55382dcf8134292b71566',
    'new_game wars_of_italy:setup:0': 'd91abc905ac95e2cf0b8b231786989f37318c4a61fe44207022b33a56c8dbc27',
}


@pytest.fixture(scope="module")
def now():
    return initial_state_hashes.hashes()


@pytest.mark.parametrize("case", list(BEFORE))
def test_setup_state_unchanged(now, case):
    assert now[case] == BEFORE[case]


def test_every_case_measured(now):
    assert set(now) == set(BEFORE)
