"""What a worker process runs for a computer player's move (``service.bots.turns``).

The worker is sent the state as the store keeps it (``engine.game.dumps``: plain bytes, where
the engine's values hold compiled classes that do not pickle) and builds from it exactly what
the bot may see, the seat's view and the public log as that seat sees them; ``engine.bots.decide``
gets those and nothing else; in a speed game, ``engine.bots.speed`` gets the view and the
seat's legal choices in the open call (which follow from its view and the rules). The action
comes back as the engine's plain dataclass.
"""

from __future__ import annotations

from engine import bots, game
from engine.bots import speed
from engine.game.actions import Action


def decided(level: str, state_json: bytes, seat: int, seed: int) -> Action:
    """The move of the bot of ``level`` in ``seat``, from what that seat sees of the state."""
    state = game.loads(state_json)
    if state.rules.turns == "speed":  # every level: the speed policy, on the seat's choices
        return speed.choose(
            game.view(state, seat), seat, game.legal_actions(state, seat), state.rules
        )
    return bots.decide(
        level,
        game.view(state, seat),
        game.public_log(state, seat),
        seat=seat,
        rules=state.rules,
        seed=seed,
    )
