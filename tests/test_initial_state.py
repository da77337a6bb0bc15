"""The setup position is the same, byte for byte, now that the pack builds it.

World-model stage 5 (docs/design/world-model-plan.md) moved the setup out of
interpreter/state.py: zone `initial:` expressions fill the supply and each side's zones, and
the game's `prepare` block places the starting Cities. The stored layout (every key, in its
order: decision 1 of the plan) must not change. BEFORE holds what
`scripts/initial_state_hashes.py --root <checkout of 0a7c736>` printed at the commit the stage
started from (generated, not typed).
"""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import initial_state_hashes  # noqa: E402

BEFORE = {
    'base_3to5:red,yellow,green:0': '927b6da7e53f00746c55c440eab99b165975b2837a1d5e1fede52f30efe4f3ef',
    'new_game base_3to5:red,yellow,green:0': '0cf08637ba57ffa516614a5b9847659ebdcf6c2b07769eb206145b958f58df12',
    'base_3to5:red,yellow,green,blue:0': 'd8f3ae3a8f63de55f0a6c48e93931877d548597b45b99ca4036c929810777429',
    'new_game base_3to5:red,yellow,green,blue:0': '753b1b400a14299ca4c767d8570ded50249a93c66d0079b3d75c4b587286fa84',
    'base_3to5:red,yellow,green,blue,white:0': '8e2b49fcad5f613489106f674a0e363e2b763090c0e3a8adbdcb5c8c9cce979d',
    'new_game base_3to5:red,yellow,green,blue,white:0': 'bf6f8f070590310c37fdd777a06990b93485f3bae0e42bad1043fc36da77e241',
    'base_3to5:white,blue,green,yellow,red:7': 'ad88466024929b94da3afe9894caadfe174e91c6643e989e679057c5e60e8b31',
    'new_game base_3to5:white,blue,green,yellow,red:7': '57b3865d66d5c28629133fc05dc25755df5c34ebcfe71d0a0862aac97686c8cc',
    'wars_of_italy:setup:0': '0633b09043bff510569d7b0a44face763a236010f4259a63afe0666971dc8d3e',
    'new_game wars_of_italy:setup:0': '98dcc4a8d28826f137ca5114e09747e552c03bca8a53cfca2f20c6372a23a4b5',
}


@pytest.fixture(scope="module")
def now():
    return initial_state_hashes.hashes()


@pytest.mark.parametrize("case", list(BEFORE))
def test_setup_state_unchanged(now, case):
    assert now[case] == BEFORE[case]


def test_every_case_measured(now):
    assert set(now) == set(BEFORE)
