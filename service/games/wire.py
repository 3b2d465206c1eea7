"""The JSON shapes of ``/v1/games``: creating a game, its views, its actions and its log."""

from __future__ import annotations

import math
from typing import Annotated, Final, Literal

import msgspec
from msgspec import UNSET, Meta, UnsetType

from service.games.action_wire import ActionRequest
from service.games.level_wire import BotLevel, BotLevelName
from service.http.wire import Out, Strict
from service.vocabulary.wire import (
    MAX_PLAYERS,
    MAX_ROUNDS,
    MIN_PLAYERS,
    CanonicalCard,
    CanonicalRank,
    CardCode,
    Count,
    GameId,
    MeldOut,
    PlayerName,
    RoundNumber,
    RulesOut,
    RulesSpec,
    Seat,
    Seed,
    Version,
)

TurnSeconds = Annotated[
    int,
    Meta(
        ge=3,
        le=86400,
        description=(
            "The turn clock, 3 seconds to a day: a person's turn not done this long after it "
            "started is played for them by a `normal` bot, and they are shown `away`."
        ),
    ),
]
CallSeconds = Annotated[
    int,
    Meta(
        ge=3,
        le=3600,
        description=(
            "Speed games only (`turns: speed`): the caller's time per call, 3 seconds to an "
            "hour (default 20). A seat that has not chosen when it runs out draws from the "
            "stock, or discards the card it drew, and is shown `away`."
        ),
    ),
]
DEFAULT_CALL_SECONDS = 20
_PLAYER_ID: Final = "The seat's player (`GET /v1/players/{player_id}`); null for a token's seat."


class PlayerIn(Strict, frozen=True):
    """One seat, exactly one of: ``{"name": …}`` a person seated now (its token in the answer),
    ``{"me": true}`` the calling player (its key as Authorization), ``{"open": true}`` a seat
    claimed later by invite code, or ``{"bot": level}`` a computer player (``name`` optional)."""

    name: PlayerName | UnsetType = UNSET
    open: Literal[True] | UnsetType = UNSET
    bot: BotLevelName | UnsetType = UNSET
    me: Literal[True] | UnsetType = UNSET


class DealIn(Strict, frozen=True):
    """One round's deal: every seat's hand, the upcard (in a speed game, the upcards of every
    seat's pile), and the top of the stock (its first card drawn first); the cards it leaves
    out are shuffled under the stock given."""

    round: RoundNumber
    hands: Annotated[list[list[CardCode]], Meta(description="Seat 0's hand first.")]
    upcard: Annotated[
        CardCode | None, Meta(description="In turns: the card turned up. Not in a speed game.")
    ] = None
    upcards: Annotated[
        list[CardCode] | None,
        Meta(
            description=(
                "In a speed game: the card turned up on each seat's pile, seat 0's first. "
                "Not in a game played in turns."
            )
        ),
    ] = None
    stock: list[CardCode] = msgspec.field(default_factory=list)


SEED_KEY_BYTES: Final = 16
SEED_KEY_CHARACTERS: Final = math.ceil(SEED_KEY_BYTES * 4 / 3)
"""Its URL-safe base64 without padding: four characters for every three bytes."""
SeedKey = Annotated[
    str,
    Meta(
        pattern=f"^[A-Za-z0-9_-]{{{SEED_KEY_CHARACTERS}}}$",
        description="128 random bits, URL-safe base64 without padding: opaque.",
    ),
]


class CreateGameRequest(Strict, frozen=True):
    players: Annotated[list[PlayerIn], Meta(min_length=MIN_PLAYERS, max_length=MAX_PLAYERS)]
    rules: RulesSpec = "classic"
    seed: Annotated[
        Seed | None,
        Meta(
            description=(
                "Reproducible deals for tests and replays: every view then says "
                "`seeded: true`. A seed gives the deal away (a small one is recovered "
                "from one seat's view), so omit it in play. The same seed deals the same "
                "game only with the `seed_key` the first create answered: anyone else's "
                "create with that seed deals another."
            )
        ),
    ] = None
    seed_key: Annotated[
        SeedKey | None,
        Meta(
            description=(
                "The `seed_key` a create with this `seed` answered: with both, the same game "
                "is dealt again. Only with a `seed`."
            )
        ),
    ] = None
    listed: Annotated[
        bool,
        Meta(description="Show the table in the lobby (`GET /v1/tables`) while a seat is open."),
    ] = False
    turn_seconds: Annotated[
        TurnSeconds | None,
        Meta(description="Null (the default): no clock, a person's turn waits for them."),
    ] = None
    call_seconds: Annotated[
        CallSeconds | None,
        Meta(description="Null: 20 in a speed game; only speed games take it (else a 422)."),
    ] = None
    deal_from: Annotated[
        GameId | None,
        Meta(
            description=(
                "A finished game's id: deal its deals, round by round (a duplicate match); "
                "every seat must be named. Views then say `deal_known: true`."
            )
        ),
    ] = None
    rotate_seats: Annotated[
        int,
        Meta(
            ge=0,
            le=MAX_PLAYERS - 1,
            description="With `deal_from`: seat 0's hand goes to this seat, and so on round.",
        ),
    ] = 0
    deal: Annotated[
        Annotated[list[DealIn], Meta(max_length=MAX_ROUNDS)] | None,
        Meta(
            description=(
                "Given deals for some rounds (the others shuffled); every seat must be named. "
                "Views then say `deal_known: true`."
            ),
        ),
    ] = None


class PlayerOut(Out, frozen=True):
    seat: Seat
    name: Annotated[str | None, Meta(description="Null for an open seat.")]
    open: Annotated[
        bool, Meta(description="Waiting tables only: a seat anyone with the invite code may claim.")
    ]
    hand_count: Count
    score: Annotated[int, Meta(description="Total so far.")]
    round_scores: Annotated[list[int], Meta(description="One entry per finished round.")]
    bot: Annotated[
        BotLevel | None, Meta(description="A computer player's level; null for a person.")
    ] = None
    away: Annotated[
        bool,
        Meta(
            description=(
                "The turn clock played this person's last turn for them; false again "
                "once their token acts."
            )
        ),
    ] = False
    player_id: Annotated[str | None, Meta(description=_PLAYER_ID)] = None


class SeatResultOut(Out, frozen=True):
    seat: Seat
    melds: list[MeldOut]
    deadwood: list[CanonicalCard]
    points: int


class RoundResultOut(Out, frozen=True):
    round: int
    out_seat: Seat | None
    results: Annotated[
        list[SeatResultOut], Meta(description="Every hand laid out in its best arrangement.")
    ]
    replayed: Annotated[
        bool,
        Meta(
            description=(
                "Double naughts: every seat melded, so the round is dealt again and "
                "counts for nothing."
            )
        ),
    ]
    tiebreak: bool


LegalAction = ActionRequest
"""An action body exactly as ``POST /v1/games/{game_id}/actions`` accepts it."""


class CallOut(Out, frozen=True):
    """A speed game's open call: every seat still in the round chooses at once, in secret."""

    number: Annotated[int, Meta(ge=1, description="The call's number in this round, from 1.")]
    phase: Literal["draw", "discard"]
    deadline: Annotated[
        str | None,
        Meta(
            description=(
                "When the caller's time runs out (ISO 8601, UTC): every seat that has not "
                "chosen then draws from the stock, or discards the card it drew. A view of an "
                "earlier version (an event) shows its own call's deadline; null for a call "
                "older than the last 64 a game keeps."
            )
        ),
    ]
    chosen: Annotated[
        list[Seat], Meta(description="The seats that have chosen in this call (not what).")
    ]
    choice: Annotated[
        LegalAction | None,
        Meta(
            description=(
                "A seat's own view: its choice so far in this call (another choice replaces "
                "it until the call ends); null before it chooses, and in the public view."
            )
        ),
    ] = None


class GameView(Out, frozen=True):
    game_id: GameId
    version: Annotated[Version, Meta(description="Increases by one per applied action.")]
    status: Annotated[
        Literal["waiting", "playing", "finished"],
        Meta(
            description=(
                "`waiting`: a seat is still open and no card is dealt; the first round "
                "is dealt the moment the last seat is taken."
            )
        ),
    ]
    round: int
    rounds: int
    wild: CanonicalRank | None
    dealer: Seat
    turn: Annotated[
        Seat | None, Meta(description="The seat to act; null once the game is finished.")
    ]
    phase: Literal["draw", "discard"] | None
    out_seat: Annotated[Seat | None, Meta(description="Who went out this round, or null.")]
    stock_count: Count
    discard_top: CanonicalCard | None
    discard_tops: Annotated[
        list[CanonicalCard | None] | None,
        Meta(description="Per-player discard piles only: the top of each seat's pile."),
    ]
    players: list[PlayerOut]
    last_round: RoundResultOut | None
    winners: list[Seat] | None
    hand: Annotated[
        list[CanonicalCard] | None,
        Meta(description="The viewer's own hand, sorted; null in the public view."),
    ]
    active: list[Seat]
    tiebreak: bool
    last_turns: Count
    upcard: Annotated[
        CanonicalCard | None,
        Meta(description="The card the seat on turn just took from a discard pile."),
    ]
    table: Annotated[
        list[list[MeldOut]] | None,
        Meta(description="Redemption only: the melds each seat has laid on the table."),
    ]
    seeded: Annotated[
        bool,
        Meta(
            description=(
                "The game was created with a `seed`: for tests and replays only. Anyone"
                " who knows or guesses the seed knows every hand and the stock; a small"
                " seed is found in seconds by trying seeds against one seat's view. "
                "Never seed a real game."
            )
        ),
    ]
    seat: Annotated[Seat | None, Meta(description="The viewer's seat; null in the public view.")]
    rules: Annotated[
        RulesOut,
        Meta(
            description=(
                "The game's complete rules, as `GET /v1/rules` shows them (the analyser"
                " takes them)."
            )
        ),
    ]
    legal: Annotated[
        list[LegalAction] | None,
        Meta(
            description=(
                "A seat's own view: every action it may post right now, each exactly as"
                " the actions route accepts it (empty when it may not act). Null in the"
                " public view. A go-out is listed only where it is legal: never after "
                "someone went out or on the first lap where the rules forbid it, and "
                "under `failed_go_out: penalty` with every card (the penalty applies)."
            )
        ),
    ]
    invite_code: Annotated[
        str | None,
        Meta(
            description=(
                "While the table waits: the code that claims its open seats (`POST "
                "/v1/invites/{code}`)."
            )
        ),
    ]
    call: Annotated[
        CallOut | None,
        Meta(
            description=(
                "Speed games (`turns: speed`, where `turn` is null): the open call; null "
                "between rounds, once the game is over, and in games played in turns."
            )
        ),
    ] = None
    deal_known: Annotated[
        bool,
        Meta(
            description=(
                "Some rounds were dealt from given deals (`deal` or `deal_from` at creation): "
                "whoever gave them knew the cards."
            )
        ),
    ] = False


class SeatToken(Out, frozen=True):
    seat: Seat
    name: str
    token: Annotated[
        str,
        Meta(
            description=(
                "This seat's secret, shown only here: send it as `Authorization: Bearer <token>`."
            )
        ),
    ]


class GameCreated(Out, frozen=True):
    game_id: GameId
    seats: Annotated[
        list[SeatToken],
        Meta(
            description=(
                "The people seated at creation, each with its token; open seats have "
                "none yet, bots none ever."
            )
        ),
    ]
    invite_code: Annotated[
        str | None,
        Meta(
            description=(
                "A table with an open seat: the code others claim it with, shown while it waits."
            )
        ),
    ]
    view: Annotated[GameView, Meta(description="The public view.")]
    seed_key: Annotated[
        SeedKey | None,
        Meta(
            description=(
                "With a `seed`: the key that deals this game again (send it with the same "
                "`seed`), shown only this once. Null without a seed."
            )
        ),
    ] = None
