"""The JSON shapes of the HTTP API: every request and response body as a msgspec struct.

Requests decode strictly (see ``service.strict_body``): unknown fields are refused, and the
constraints live here, in reusable ``Annotated`` aliases, so the OpenAPI document states them and
the handlers never re-check them. Cards and ranks stay text at this edge; the controllers turn
them into the engine's ints and back.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import UNSET, Meta, UnsetType

from service.names import NAME_PATTERN

# Bodies are plain trees of values, never in a reference cycle: so their structs are left out of
# the garbage collector's tracking (``gc=False``), which makes each one cheaper to make and free.


class Strict(msgspec.Struct, forbid_unknown_fields=True, frozen=True, kw_only=True, gc=False):
    """Base of every request body: a field the API does not know is an error, not ignored."""


class Out(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """Base of every response body."""


# -- reusable constraints -------------------------------------------------------------------------

# A pattern ends with ``$(?!\n)``, not a bare ``$``: msgspec matches a pattern as Python's
# ``re.search`` does, where ``$`` also matches before a final newline ("4H\n" would pass). The
# lookahead means the same in the JSON Schema (ECMA) dialect of the OpenAPI document.

CardCode = Annotated[
    str,
    Meta(
        pattern=r"^(?:[Jj][Kk]|(?:10|[2-9AaTtJjQqKk])[CDHSXcdhsx♣♦♥♠★♧♢♡♤])$(?!\n)",
        description=(
            "A card: rank A 2-9 T (or 10) J Q K, then suit C D H S (X = five-crowns stars); JK is "
            "a joker. Case-insensitive; suit symbols ♣ ♦ ♥ ♠ ★ are accepted."
        ),
        examples=["TH", "8S", "JK"],
    ),
]
CanonicalCard = Annotated[
    str, Meta(pattern=r"^(?:JK|[A2-9TJQK][CDHSX])$(?!\n)", description="A card in canonical form.")
]
RankCode = Annotated[
    str,
    Meta(
        pattern=r"^(?:10|[2-9AaTtJjQqKk])$(?!\n)",
        description="A rank: A, 2-9, T (or 10), J, Q or K.",
        examples=["8", "T", "K"],
    ),
]
CanonicalRank = Annotated[
    str, Meta(pattern=r"^[A2-9TJQK]$(?!\n)", description="A rank, canonical.")
]
Hand = Annotated[
    list[CardCode],
    Meta(min_length=1, max_length=30, description="1 to 30 cards; identical cards may repeat."),
]
RoundNumber = Annotated[int, Meta(ge=1, le=22, description="A round, 1 first.")]
Seat = Annotated[int, Meta(ge=0, le=15, description="A seat number, 0 first.")]
Count = Annotated[int, Meta(ge=0)]
Points = Annotated[int, Meta(ge=0, le=1000)]
Version = Annotated[int, Meta(ge=0, le=2**31 - 1)]
PlayerName = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=40,
        pattern=NAME_PATTERN,
        description=(
            "A display name: no control, format (zero-width, bidirectional) or separator "
            "characters, at most 3 combining marks on a letter; kept in Unicode NFC."
        ),
    ),
]
Seed = Annotated[
    int,
    Meta(
        ge=0,
        le=2**63 - 1,
        description=(
            "Makes the shuffles reproducible, for tests and replays: every view then says "
            "`seeded: true`. A seed gives the deal away (a small one is found from one seat's "
            "view in seconds): omit it in real games."
        ),
    ),
]
GameId = Annotated[str, Meta(description="The game's id.", examples=["3q0cYFz2R1mA5lVt"])]
PresetName = Literal["classic", "online", "five-crowns"]

# -- rules ----------------------------------------------------------------------------------------


class RulesOverrides(Strict, frozen=True):
    """A preset with some options changed. Omitted fields keep the preset's value; see RULES.md."""

    preset: PresetName = "classic"
    suits: Literal[4, 5] | UnsetType = UNSET
    low_rank: Literal[1, 3] | UnsetType = UNSET
    decks: Annotated[int, Meta(ge=1, le=16)] | UnsetType | None = UNSET
    jokers: Annotated[int, Meta(ge=0, le=64)] | UnsetType = UNSET
    min_players: Annotated[int, Meta(ge=2, le=16)] | UnsetType = UNSET
    max_players: Annotated[int, Meta(ge=2, le=16)] | UnsetType = UNSET
    aces: Literal["low", "high_or_low"] | UnsetType = UNSET
    all_wild_melds: bool | UnsetType = UNSET
    max_wilds_per_meld: Annotated[int, Meta(ge=1, le=64)] | UnsetType | None = UNSET
    ace_points: Points | UnsetType = UNSET
    face_points: Annotated[list[Points], Meta(min_length=3, max_length=3)] | UnsetType = UNSET
    joker_points: Points | UnsetType = UNSET
    wild_points: Points | UnsetType | None = UNSET
    going_out_bonus: Literal[0, -5, -10, "minus_wild"] | UnsetType = UNSET
    failed_go_out: Literal["reject", "penalty"] | UnsetType = UNSET
    failed_go_out_penalty: Points | UnsetType = UNSET
    first_lap_go_out: bool | UnsetType = UNSET
    doubled_late_rounds: bool | UnsetType = UNSET
    schedule: Literal["up", "down", "up_down", "extended"] | UnsetType = UNSET
    double_naughts: bool | UnsetType = UNSET
    discard_piles: Literal["shared", "per_player"] | UnsetType = UNSET
    redemption: bool | UnsetType = UNSET
    stock_exhausted: Literal["reshuffle", "end_round"] | UnsetType = UNSET
    tie: Literal["shared", "tiebreak"] | UnsetType = UNSET
    discard_drawn_upcard: bool | UnsetType = UNSET
    turns: Literal["in_turn", "speed"] | UnsetType = UNSET
    joker_discards: Literal["own_pile", "any_pile"] | UnsetType = UNSET


RulesSpec = Annotated[
    PresetName | RulesOverrides,
    Meta(description='A preset name, or {"preset": name, ...overrides}.'),
]


class RulesOut(Out, frozen=True):
    """Every option of one set of rules."""

    preset: str
    suits: int
    low_rank: int
    decks: int | None
    jokers: int
    min_players: int
    max_players: int
    aces: str
    all_wild_melds: bool
    max_wilds_per_meld: int | None
    ace_points: int
    face_points: list[int]
    joker_points: int
    wild_points: int | None
    going_out_bonus: int | str
    failed_go_out: str
    failed_go_out_penalty: int
    first_lap_go_out: bool
    doubled_late_rounds: bool
    schedule: str
    double_naughts: bool
    discard_piles: str
    redemption: bool
    stock_exhausted: str
    tie: str
    discard_drawn_upcard: bool
    turns: str
    joker_discards: str


class PresetsOut(Out, frozen=True):
    presets: list[RulesOut]


# -- analysis -------------------------------------------------------------------------------------


class AnalyseRequest(Strict, frozen=True):
    hand: Hand
    wild: RankCode | None = None
    """The wild rank; when omitted, the wild rank of ``round`` under the rules' schedule."""
    round: RoundNumber | None = None
    rules: RulesSpec = "classic"


class MeldOut(Out, frozen=True):
    kind: Literal["set", "run"]
    cards: list[CanonicalCard]
    """In play order: a run from its low end."""
    stands_for: list[CanonicalCard | None]
    """Parallel to ``cards``: the card each wild plays as, null for a natural card."""


class DiscardOut(Out, frozen=True):
    card: CanonicalCard
    deadwood_points: Count
    """The least deadwood of the hand left after discarding ``card``."""


class AnalyseResponse(Out, frozen=True):
    wild: CanonicalRank | None
    melds: list[MeldOut]
    deadwood: list[CanonicalCard]
    deadwood_points: Count
    melded: bool
    discards: list[DiscardOut]
    suggested_discard: CanonicalCard | None
    can_go_out: bool


# -- problems -------------------------------------------------------------------------------------


class FieldError(Out, frozen=True):
    field: str
    message: str


class Problem(Out, frozen=True):
    """RFC 9457 problem details."""

    type: str
    title: str
    status: int
    detail: str
    instance: str | None = None
    field: str | None = None
    """For an error about one input field: its path, such as ``hand[2]`` or ``rules.aces``."""
    errors: list[FieldError] | None = None


# -- operations -----------------------------------------------------------------------------------


class Health(Out, frozen=True):
    status: Literal["ok"]


class Readiness(Out, frozen=True):
    status: Literal["ready"]
    store: Literal["memory", "redis"]


# -- games ----------------------------------------------------------------------------------------


BotLevel = Literal["easy", "normal", "hard"]
BotLevelName = Annotated[
    str,
    Meta(
        min_length=1,
        max_length=32,
        description="`easy`, `normal` or `hard`; any other level is a 422 listing these.",
        # The document lists the levels; the service checks them itself, so that a wrong one
        # is answered with the levels there are.
        extra_json_schema={"enum": ["easy", "normal", "hard"]},
    ),
]
"""A level as a seat spec names it: checked by the service, so that a wrong one is answered
with the levels there are (``service.waiting.seat_spec``)."""
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


class PlayerIn(Strict, frozen=True):
    """One seat, exactly one of: ``{"name": …}`` a person seated now (its token is in the
    answer), ``{"open": true}`` a seat someone claims later with the invite code, or
    ``{"bot": level}`` a computer player (with an optional ``name``)."""

    name: PlayerName | UnsetType = UNSET
    open: Literal[True] | UnsetType = UNSET
    bot: BotLevelName | UnsetType = UNSET


class CreateGameRequest(Strict, frozen=True):
    players: Annotated[list[PlayerIn], Meta(min_length=2, max_length=16)]
    rules: RulesSpec = "classic"
    seed: Seed | None = None
    """Reproducible deals for tests and replays: every view then says ``seeded: true``. A seed
    gives the deal away (a small one is recovered from one seat's view), so omit it in play."""
    listed: bool = False
    """Show the table in the lobby (``GET /v1/tables``) while a seat is open."""
    turn_seconds: TurnSeconds | None = None
    """Null (the default): no clock, a person's turn waits for them."""


ExpectedVersion = Annotated[
    Version,
    Meta(description="Apply only if the game is at this version; otherwise 409 stale-version."),
]


class DrawAction(Strict, frozen=True, tag="draw", tag_field="type"):
    """Take the top card of the stock or of a discard pile."""

    source: Literal["stock", "discard"]
    pile: Seat | None = None
    """Per-player discard piles only: whose pile to take from (default: your own)."""
    expected_version: ExpectedVersion | None = None


class DiscardAction(Strict, frozen=True, tag="discard", tag_field="type"):
    """Discard a card, ending the turn; with ``go_out`` declare the rest of the hand melded."""

    card: CardCode
    go_out: bool = False
    expected_version: ExpectedVersion | None = None


class LayOffAction(Strict, frozen=True, tag="lay_off", tag_field="type"):
    """Redemption only, on a last turn after someone went out, before the discard: lay a card
    off on meld number ``meld`` that seat ``seat`` has on the table."""

    card: CardCode
    seat: Seat
    meld: Annotated[int, Meta(ge=0, le=30)]
    expected_version: ExpectedVersion | None = None


ActionRequest = DrawAction | DiscardAction | LayOffAction


class PlayerOut(Out, frozen=True):
    seat: Seat
    name: str | None
    """Null for an open seat."""
    open: bool
    """Waiting tables only: a seat anyone with the invite code may claim."""
    hand_count: Count
    score: int
    """Total so far."""
    round_scores: list[int]
    """One entry per finished round."""
    bot: BotLevel | None = None
    """A computer player's level; null for a person."""
    away: bool = False
    """The turn clock played this person's last turn for them; false again once their token
    acts."""


class SeatResultOut(Out, frozen=True):
    seat: Seat
    melds: list[MeldOut]
    deadwood: list[CanonicalCard]
    points: int


class RoundResultOut(Out, frozen=True):
    round: int
    out_seat: Seat | None
    results: list[SeatResultOut]
    """Every hand laid out in its best arrangement."""
    replayed: bool
    """Double naughts: every seat melded, so the round is dealt again and counts for nothing."""
    tiebreak: bool


class LegalDraw(Out, frozen=True, tag="draw", tag_field="type", omit_defaults=True):
    source: Literal["stock", "discard"]
    pile: Seat | None = None


class LegalDiscard(Out, frozen=True, tag="discard", tag_field="type", omit_defaults=True):
    card: CanonicalCard
    go_out: bool = False


class LegalLayOff(Out, frozen=True, tag="lay_off", tag_field="type"):
    card: CanonicalCard
    seat: Seat
    meld: int


LegalAction = LegalDraw | LegalDiscard | LegalLayOff
"""An action body exactly as ``POST /v1/games/{game_id}/actions`` accepts it."""


class GameView(Out, frozen=True):
    game_id: GameId
    version: Version
    """Increases by one per applied action."""
    status: Literal["waiting", "playing", "finished"]
    """``waiting``: a seat is still open and no card is dealt; the first round is dealt the
    moment the last seat is taken."""
    round: int
    rounds: int
    wild: CanonicalRank | None
    dealer: Seat
    turn: Seat | None
    """The seat to act; null once the game is finished."""
    phase: Literal["draw", "discard"] | None
    out_seat: Seat | None
    """Who went out this round, or null."""
    stock_count: Count
    discard_top: CanonicalCard | None
    discard_tops: list[CanonicalCard | None] | None
    """Per-player discard piles only: the top of each seat's pile."""
    players: list[PlayerOut]
    last_round: RoundResultOut | None
    winners: list[Seat] | None
    hand: list[CanonicalCard] | None
    """The viewer's own hand, sorted; null in the public view."""
    active: list[Seat]
    tiebreak: bool
    last_turns: Count
    upcard: CanonicalCard | None
    """The card the seat on turn just took from a discard pile."""
    table: list[list[MeldOut]] | None
    """Redemption only: the melds each seat has laid on the table."""
    seeded: bool
    """The game was created with a ``seed``: for tests and replays only. Anyone who knows or
    guesses the seed knows every hand and the stock; a small seed is found in seconds by trying
    seeds against one seat's view. Never seed a real game."""
    seat: Seat | None
    """The viewer's seat; null in the public view."""
    rules: RulesOut
    """The game's complete rules, as ``GET /v1/rules`` shows them (the analyser takes them)."""
    legal: list[LegalAction] | None
    """A seat's own view: every action it may post right now, each exactly as the actions
    route accepts it (empty when it may not act). Null in the public view. A go-out is listed
    only where it is legal: never after someone went out or on the first lap where the rules
    forbid it, and under ``failed_go_out: penalty`` with every card (the penalty applies)."""
    invite_code: str | None
    """While the table waits: the code that claims its open seats (``POST /v1/invites/{code}``)."""


class SeatToken(Out, frozen=True):
    seat: Seat
    name: str
    token: str
    """This seat's secret, shown only here: send it as ``Authorization: Bearer <token>``."""


class GameCreated(Out, frozen=True):
    game_id: GameId
    seats: list[SeatToken]
    """The people seated at creation, each with its token; open seats have none yet, bots
    none ever."""
    invite_code: str | None
    """A table with an open seat: the code others claim it with, shown while it waits."""
    view: GameView
    """The public view."""


class ClaimRequest(Strict, frozen=True):
    name: PlayerName


class SeatClaimed(Out, frozen=True):
    game_id: GameId
    seat: Seat
    token: str
    """This seat's secret, shown to this caller only, this once."""
    view: GameView
    """The seat's own view."""


class StreamUrl(Out, frozen=True):
    url: str
    """Open it with a browser ``EventSource``: this seat's private stream, resumable with
    ``Last-Event-ID``. It grants reading that stream only and expires with the game."""


class TableSeatOut(Out, frozen=True):
    seat: Seat
    name: str | None
    open: bool
    bot: BotLevel | None = None
    """A computer player's level; null for a person or an open seat."""


class TableOut(Out, frozen=True):
    """A listed table waiting for players."""

    game_id: GameId
    invite_code: str
    preset: str
    seats: list[TableSeatOut]
    seats_taken: Count
    seats_open: Count


class Lobby(Out, frozen=True):
    tables: list[TableOut]
    """Newest first, at most 100."""


class LoggedDraw(Out, frozen=True, tag="draw", tag_field="type"):
    source: Literal["stock", "discard"]
    pile: Seat | None


class LoggedDiscard(Out, frozen=True, tag="discard", tag_field="type"):
    go_out: bool


class LoggedLayOff(Out, frozen=True, tag="lay_off", tag_field="type"):
    seat: Seat
    meld: int


class LogEntryOut(Out, frozen=True):
    version: Version
    """The game's version once this action was applied (the first action makes version 1)."""
    seat: Seat
    action: LoggedDraw | LoggedDiscard | LoggedLayOff
    card: CanonicalCard | None
    """The card drawn, discarded or laid off; a card drawn from the stock is null unless you
    drew it or its round is over."""


class GameLog(Out, frozen=True):
    game_id: GameId
    version: Version
    entries: list[LogEntryOut]


class GameEvent(Out, frozen=True):
    """The data of one server-sent event of type ``action``; its event id is ``version``."""

    version: Version
    entry: LogEntryOut
    view: GameView
    """The game as the stream's viewer saw it right after this action."""


class GameFinishedEvent(Out, frozen=True):
    """The data of the server-sent event of type ``finished``, the last of a game's stream."""

    version: Version
    winners: list[Seat]
