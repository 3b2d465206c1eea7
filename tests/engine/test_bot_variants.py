"""Arena variants of ``expert`` (engine.bots.variants): ``expert:field=value`` seats expert with
one of its settings changed, and nothing else."""

from __future__ import annotations

import pytest

from engine import arena
from engine.bots import decide, level_named
from engine.bots.expert import EXPERT_STYLE
from engine.bots.variants import style_of
from engine.errors import UnknownBotLevel
from engine.game import apply, new_game, public_log, view
from engine.rules import Rules


def test_a_spec_changes_the_named_fields_of_experts_style() -> None:
    style = style_of("expert:later=0.6:two_draws_up_to=13", ("expert",))
    assert (style.later, style.two_draws_up_to) == (0.6, 13)
    assert style.others == EXPERT_STYLE.others
    assert isinstance(style.two_draws_up_to, int)


@pytest.mark.parametrize(
    "spec", ["hard:later=0.6", "expert:depth=3", "expert:width=1.5", "expert:later=x", "expert:"]
)
def test_a_bad_spec_is_an_unknown_level(spec: str) -> None:
    with pytest.raises(UnknownBotLevel):
        level_named(spec)


def test_a_variant_with_experts_own_settings_plays_as_expert() -> None:
    rules = Rules.from_spec({"preset": "classic", "schedule": "down"})
    state = new_game(["a", "b"], rules, 11)
    same = f"expert:later={EXPERT_STYLE.later}:width={EXPERT_STYLE.width}"
    for _ in range(30):
        if state.status != "playing":
            break
        seat = state.turn
        moves = {
            decide(level, view(state, seat), public_log(state, seat), seat=seat, rules=rules)
            for level in ("expert", same)
        }
        assert len(moves) == 1
        state = apply(state, seat, moves.pop())


def test_the_arena_seats_a_variant_under_its_spec() -> None:
    rules = Rules.from_spec({"preset": "classic", "schedule": "down"})
    result = arena.run(["expert:width=1", "greedy"], 1, 3, rules)
    assert set(result.per_deal) == {"expert:width=1", "greedy"}
    assert result.games == 2
