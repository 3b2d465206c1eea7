"""The game of Three Thirteen as a pure state machine.

``new_game`` deals the first round; ``legal_actions`` and ``apply`` play it (``apply`` returns a
new state, or raises the ``EngineError`` of the rule the action breaks); in a speed game they
take each seat's choice in the open call, and ``CALL_TIMEOUT`` from ``CALLER`` when the caller's
time runs out; ``view`` and ``public_view`` show what a seat or anybody may see (a speed game's
open call in ``GameView.call``); ``replay`` rebuilds a game from its log;
``dumps`` and ``loads`` store it (``dumps_parts`` and ``loads_parts`` as a bounded head and
append-only parts, for a store that keeps a long game's history apart). ``Deal`` is a round's
given deal, for ``new_game(deals=...)``.
"""

from engine.game.actions import (
    ACTION_NAMES,
    CALL_TIMEOUT,
    CALLER,
    Action,
    CallEnd,
    CallTimeout,
    Choice,
    Chosen,
    Discard,
    Draw,
    DrawSource,
    EndLayOff,
    LayOff,
    Move,
    Phase,
    action_name,
)
from engine.game.dealing import Deal
from engine.game.play import (
    apply,
    choose_first_dealer,
    hand_size,
    legal_actions,
    new_game,
    replay,
    wild_rank,
)
from engine.game.serialised import (
    FORMAT,
    Sealed,
    StateParts,
    chunk_in,
    dumps,
    dumps_parts,
    loads,
    loads_parts,
    pack_in,
    result_in,
    sealed_of,
)
from engine.game.state import GameState, Record, RoundResult, SeatResult, Shuffles, Status
from engine.game.views import (
    CallView,
    GameView,
    LogEntry,
    PlayerView,
    public_log,
    public_view,
    view,
)

__all__ = [
    "ACTION_NAMES",
    "CALLER",
    "CALL_TIMEOUT",
    "FORMAT",
    "Action",
    "CallEnd",
    "CallTimeout",
    "CallView",
    "Choice",
    "Chosen",
    "Deal",
    "Discard",
    "Draw",
    "DrawSource",
    "EndLayOff",
    "GameState",
    "GameView",
    "LayOff",
    "LogEntry",
    "Move",
    "Phase",
    "PlayerView",
    "Record",
    "RoundResult",
    "Sealed",
    "SeatResult",
    "Shuffles",
    "StateParts",
    "Status",
    "action_name",
    "apply",
    "choose_first_dealer",
    "chunk_in",
    "dumps",
    "dumps_parts",
    "hand_size",
    "legal_actions",
    "loads",
    "loads_parts",
    "new_game",
    "pack_in",
    "public_log",
    "public_view",
    "replay",
    "result_in",
    "sealed_of",
    "view",
    "wild_rank",
]
