"""Import: a whole record replayed under its rules from its own deals.

Each round's deal becomes the pack that deals it (``engine.game.dealing.pack_of``), each
reshuffled stock the pack of that reshuffle, and the game is replayed action by action through
``apply``: the replay is the game, and the record is only believed where the replay agrees with
it. The first disagreement raises ``RecordNotLegal`` naming its line (text) or path (JSON): an
action the rules refuse (a card not in hand, out of turn, a go-out that does not meld), a draw
that took another card than the record says, a round the replay does not deal, or a claim of
a result (out seats, each score line's points, melds and deadwood), the totals or the winners
that the replay does not reach (``engine.records.claims``).

A speed game's call line is replayed as its choices (a call that timed out: the choices that
differ from the caller's default, then the timeout), then checked against the call's end the
replay records. A choice made again in the same call makes a version and changes nothing
else; the record keeps the version each call ended at, so the replay makes a choice again
where the game did to end each call at the recorded version.
"""

from __future__ import annotations

from collections import Counter
from typing import NoReturn

from engine.cards import Card, format_card
from engine.errors import EngineError, GameSetupError, RecordNotLegal
from engine.game import GameState, LogEntry, RoundResult, Shuffles, apply, hand_size, replay
from engine.game.actions import CALL_TIMEOUT, CALLER, CallEnd, Move
from engine.game.dealing import pack_of
from engine.game.speed import choosers, default_choice
from engine.records.claims import Where, end_mismatch, result_mismatch
from engine.records.json_form import record_from_json
from engine.records.parsing import Places, parse_located
from engine.records.record import GameRecord, RoundRecord


def import_record(record: GameRecord, places: Places | None = None) -> GameState:
    """The game a whole record replays to (finished, if the record is); ``RecordNotLegal`` at
    the first line or path where the replay and the record part. ``places`` (from
    ``parse_located``) makes errors name text lines."""
    return _Importer(record, places).run()


def import_text(text: str) -> GameState:
    """A record in the text notation, read and replayed: errors name its lines."""
    return import_record(*parse_located(text))


def import_json(value: object) -> GameState:
    """A record in the JSON form (decoded), read and replayed: errors name its paths."""
    return import_record(record_from_json(value))


class _Importer:
    def __init__(self, record: GameRecord, places: Places | None) -> None:
        self.record = record
        self.places = places

    def fail(self, where: Where, message: str) -> NoReturn:
        line = None if self.places is None else self.places.line(*where.place)
        raise RecordNotLegal(message, line=line, path=where.path)

    def run(self) -> GameState:
        h = self.record.headers
        if not self.record.whole:
            self.fail(
                Where("record", ("header", "Record")),
                "a public record holds no deals: only a finished game's whole record replays",
            )
        n = len(h.players)
        if not 0 <= h.first_dealer < n:
            self.fail(Where("first_dealer", ("header", "FirstDealer")), "no such seat")
        packs: list[tuple[Card, ...]] = []
        for index, entry in enumerate(self.record.rounds):
            packs += self._packs(index, entry)
        try:
            game = replay(h.players, h.rules, Shuffles(h.first_dealer, tuple(packs)), [])
        except EngineError as error:
            self.fail(Where("players", ("header", "Player0")), str(error))
        for index, entry in enumerate(self.record.rounds):
            game = self._round(game, index, entry)
        self._check_end(game)
        return game

    # the deals

    def _packs(self, index: int, entry: RoundRecord) -> list[tuple[Card, ...]]:
        rules, n = self.record.headers.rules, len(self.record.headers.players)
        dealt = entry.dealt
        assert dealt is not None  # a whole record's rounds all have their deal
        round_at = Where(f"rounds[{index}]", ("round", index))
        if len(dealt.hands) != n or not set(entry.active) <= set(range(n)) or not entry.active:
            self.fail(round_at, f"the deal must give {n} hands and name the seats dealt in")
        if not 1 <= entry.round <= rules.rounds + 1:
            self.fail(round_at, f"no round {entry.round}: the rules have {rules.rounds}")
        size = hand_size(rules, entry.round)
        left = Counter(rules.pack(n))
        for seat, hand in enumerate(dealt.hands):
            wanted = size if seat in entry.active else 0
            at = Where(f"rounds[{index}].hands[{seat}]", ("hand", index, seat))
            if len(hand) != wanted:
                self.fail(at, f"seat {seat} is dealt {wanted} cards, not {len(hand)}")
            self._take(left, hand, at)
        upcards = entry.upcards if rules.turns == "speed" else (entry.upcard,)
        upcard_at = Where(
            f"rounds[{index}].upcard{'s' if entry.upcards else ''}", ("upcard", index)
        )
        if len(upcards) != (len(entry.active) if rules.turns == "speed" else 1):
            self.fail(upcard_at, "a speed game's deal turns up one card for each seat dealt in")
        if entry.upcards and entry.upcard != entry.upcards[0]:
            self.fail(
                Where(f"rounds[{index}].upcard", ("upcard", index)),
                f"a speed deal's upcard is its first seat's, {format_card(entry.upcards[0])}",
            )
        self._take(left, upcards, upcard_at)
        stock_at = Where(f"rounds[{index}].stock", ("stock", index))
        self._take(left, dealt.stock, stock_at)
        if +left:
            missing = " ".join(format_card(c) for c in sorted((+left).elements()))
            self.fail(stock_at, f"the deal leaves out cards of the pack: {missing}")
        pack = pack_of(dealt.hands, upcards, dealt.stock, entry.dealer, entry.active)
        return [pack, *(cards[::-1] for cards in dealt.restocks)]

    def _take(self, left: Counter[Card], cards: tuple[Card, ...], where: Where) -> None:
        for c in cards:
            if c not in left:
                self.fail(where, f"the pack has no {format_card(c)}")
            if left[c] <= 0:
                self.fail(where, f"{format_card(c)} more times than the pack has")
            left[c] -= 1

    # the play

    def _round(self, game: GameState, index: int, entry: RoundRecord) -> GameState:
        round_at = Where(f"rounds[{index}]", ("round", index))
        if game.status != "playing":
            self.fail(round_at, "the game is over before this round")
        dealt = (game.round, game.deal, game.dealer, game.active)
        recorded = (entry.round, entry.deal, entry.dealer, entry.active)
        if dealt != recorded:
            self.fail(
                round_at,
                f"the replay deals round {game.round} (deal {game.deal}, dealer {game.dealer}, "
                f"seats {' '.join(map(str, game.active))}) here",
            )
        ended: RoundResult | None = None
        for number, logged in enumerate(entry.actions):
            at = Where(f"rounds[{index}].actions[{number}]", ("action", index, number))
            if ended is not None:
                self.fail(at, "the round is already over")
            before = game
            game = self._step(game, logged, at)
            if game.last_round is not before.last_round:
                ended = game.last_round
        if ended is None:
            if entry.result is not None:
                self.fail(
                    Where(f"rounds[{index}].result", ("out", index)),
                    "the round is not over after its last action",
                )
            if index + 1 < len(self.record.rounds):
                self.fail(
                    Where(f"rounds[{index + 1}]", ("round", index + 1)),
                    f"round {entry.round} is not over",
                )
            return game
        self._check_result(index, ended, entry.result)
        return game

    def _step(self, game: GameState, logged: LogEntry, at: Where) -> GameState:
        """The game after one recorded action, which must take the card it says it takes."""
        if type(logged.action) is CallEnd:
            return self._call(game, logged.version, logged.action, at)
        if game.rules.turns == "speed":
            self.fail(at, "a speed game's record has one line per call ('V. call N ...')")
        if logged.version != game.version + 1:
            self.fail(at, f"version {logged.version}, where the replay is at {game.version + 1}")
        if logged.card is None:
            self.fail(at, "a whole record shows every card drawn")
        try:
            game = apply(game, logged.seat, logged.action)
        except GameSetupError:
            self.fail(
                at,
                "the stock is reshuffled here, and the record's restock does not hold the "
                "discards under the piles' tops",
            )
        except EngineError as error:
            self.fail(at, str(error))
        took = game.last_record.card if game.last_record is not None else None
        if took != logged.card:
            shown = "nothing" if took is None else format_card(took)
            self.fail(
                at, f"this action takes {shown} in the replay, not {format_card(logged.card)}"
            )
        return game

    def _call(self, game: GameState, version: int, call: CallEnd, at: Where) -> GameState:
        """The game after a speed call: its choices, made again where the game made one
        again (the record's version says how often), then the caller's timeout if it had one."""
        self._check_call_open(game, call, at)
        choices = self._call_choices(game, version, call, at)
        try:
            game = _played(game, choices, timed_out=call.timed_out)
        except EngineError as error:
            self.fail(at, str(error))
        ended = game.last_record_action
        if ended != call:
            self.fail(at, _call_difference(ended, call))
        return game

    def _check_call_open(self, game: GameState, call: CallEnd, at: Where) -> None:
        """The call line is the call the replay has open: its number and phase, the seats
        choosing in play order, every card shown."""
        if game.rules.turns != "speed":
            self.fail(at, "a call line in a game played in turns")
        phase = game.phase.value
        if (call.number, call.phase.value) != (game.calls + 1, phase):
            self.fail(at, f"the replay is at call {game.calls + 1}, a {phase} call")
        seats = choosers(game)
        if [m.seat for m in call.moves] != seats:
            self.fail(
                at, f"the call's choices are seats {' '.join(map(str, seats))}, in that order"
            )
        if any(m.card is None for m in call.moves):
            self.fail(at, "a whole record shows every card drawn")

    def _call_choices(self, game: GameState, version: int, call: CallEnd, at: Where) -> list[Move]:
        """The choices to make for a call that ends at ``version``: under a timeout only those
        that differ from the caller's default, each as often as the versions say."""
        moves = call.moves
        made = [m for m in moves if not call.timed_out or m.action != default_choice(game, m.seat)]
        if call.timed_out and len(made) == len(moves):
            self.fail(at, "the call timed out, yet no seat's choice is the caller's default")
        if call.timed_out and not made and version > game.version + 1 and len(moves) > 1:
            made = [moves[0]]  # a default chosen by the seat, then made again
        choices = _with_repeats(made, version - game.version - len(made) - 1, call.timed_out)
        if choices is None:
            self.fail(
                at,
                f"version {version}: this call's choices end it at version "
                f"{game.version + len(made) + 1}",
            )
        return choices

    def _check_result(
        self, index: int, replayed: RoundResult, recorded: RoundResult | None
    ) -> None:
        wrong = result_mismatch(index, replayed, recorded)
        if wrong is not None:
            self.fail(wrong.where, wrong.message)

    def _check_end(self, game: GameState) -> None:
        wrong = end_mismatch(self.record.headers, game)
        if wrong is not None:
            self.fail(wrong.where, wrong.message)


def _played(game: GameState, choices: list[Move], *, timed_out: bool) -> GameState:
    """The game after a call's choices, and the caller's timeout if the call timed out."""
    for move in choices:
        game = apply(game, move.seat, move.action)
    return apply(game, CALLER, CALL_TIMEOUT) if timed_out else game


def _with_repeats(made: list[Move], extra: int, timed_out: bool) -> list[Move] | None:
    """The choices to apply for a call that ends ``extra`` versions later than they alone
    make it: the first made again before the last (a choice that completes the call ends it
    at once). None when no choice can be made again."""
    if extra < 0:
        return None
    if extra == 0:
        return made
    if timed_out and made:
        return [made[0]] * extra + made
    if len(made) < 2:  # noqa: PLR2004 - the first choice must not complete the call
        return None
    return [made[0]] * extra + made


def _call_difference(ended: object, call: CallEnd) -> str:
    if type(ended) is not CallEnd:
        return "the call does not end here in the replay"
    if ended.timed_out != call.timed_out:
        return (
            "the call times out in the replay"
            if ended.timed_out
            else ("the call ends without a timeout in the replay")
        )
    for mine, theirs in zip(ended.moves, call.moves, strict=True):
        if mine != theirs and theirs.card is not None:
            took = "nothing" if mine.card is None else format_card(mine.card)
            return (
                f"seat {mine.seat}'s choice takes {took} in the replay, "
                f"not {format_card(theirs.card)}"
            )
    return "the call ends otherwise in the replay"
