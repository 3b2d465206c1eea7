"""The soak's simulated people, for Locust (headless; ``python -m tests.soak`` starts it).

Each Locust user is one person who plays one game after another over HTTP, as a phone would:

- ``solo``: creates a game against one to three bots; ``host``: creates a table with one open
  seat and a bot, and hands its invite code to a ``guest``, who claims the seat by code.
- A share of people play as players, with a key (made once, then sent wherever a token would
  go): alone they create games with ``{"me": true}``, or half of them seek a table of two
  (quick play) and wait for the match; at a table for two the host makes an open challenge and
  a player guest accepts it. Some
  tables have a turn clock (``turn_seconds``), and on those a person now and then lets it run
  out (the clock plays the turn; the person's late action is then a lost race, 409).
- A person acts from their seat's view: one of its ``legal`` actions, with ``expected_version``
  and a fresh ``Idempotency-Key``. A request that gets no answer (the instance died) or a 503 is
  sent again with the same key, to another instance for a failed connection.
- Some people follow their seat's event stream (and never read the view: a GET of the view
  nudges a game's bots, which would hide a game left waiting); the others poll the view.
- Each person picks an instance at random for each game (and every 30 s) and moves to another
  when it is down: the load balancer is the people themselves.

Everything a person sees and sends is written down (``tests.soak.records``) for the audit.
The run's settings come from the ``SOAK_CONFIG`` environment variable (JSON).
"""

from __future__ import annotations

import http.client
import itertools
import json
import os
import random
import re
import time
import urllib.parse
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gevent
from gevent.event import Event
from gevent.queue import Empty, Queue
from locust import FastHttpUser, constant, events, task
from locust.exception import StopUser

from tests.soak.options import SoakOptions
from tests.soak.records import (
    ACCEPT,
    ACT,
    CHALLENGE,
    CLAIM,
    CREATE,
    HEALTH,
    NO_ANSWER,
    PLAYER,
    RECORDS_FILE,
    REQUESTS_FILE,
    SEEK,
    SEEK_VIEW,
    STREAM,
    VIEW,
    ActionTried,
    Finished,
    GameCreated,
    Left,
    Record,
    Request,
    RequestLog,
    SeatClaimed,
    Stalled,
    write_records,
)

RETRY_SECONDS = 30.0
"""How long a request is sent again (same Idempotency-Key) while it gets no answer or a 503."""
STREAM_READ_SECONDS = 45.0
"""An open stream sends a keep-alive every 15 s: this long without a byte, it is dead."""
RETRY_AFTER_CAP = 2.0
IDLE_CLOSE_SECONDS = 8.0
"""A kept-alive connection idle this long is closed before the next request, as an HTTP client's
pool closes idle connections before the server does: an instance closes one idle for
``READ_TIMEOUT`` (10 s), and a request sent as it does gets no answer (one action in 6,000,
from people who think 5 to 15 s, before the people closed theirs)."""
REPICK_SECONDS = 30.0
"""A person draws an instance at random this often (and for each game), as a load balancer
spreads people: those moved off a killed instance come back once it is up again."""

_config = json.loads(os.environ.get("SOAK_CONFIG", "null"))
if _config is None:
    raise RuntimeError("run the soak with `python -m tests.soak` (it sets SOAK_CONFIG)")
OPTIONS = SoakOptions.from_json(_config["options"])
INSTANCES: list[str] = _config["instances"]
OUT = Path(_config["out"])

RECORDS: list[Record] = []
REQUESTS = RequestLog(OUT / REQUESTS_FILE)
CODES: Queue[tuple[str, str, int | None]] = Queue()
"""Invite codes the hosts hand out, with their game and its clock: the next free guest takes the
first."""
CHALLENGES: Queue[tuple[str, int | None]] = Queue()
"""Open challenges the player hosts make, with their clock: the next free player guest accepts
the first."""
_numbers = itertools.count()
_stopping = Event()
"""Set when the run's time is up: every person stops at its next step (a wait on it ends)."""


@events.test_stopping.add_listener
def _stop_people(**_: Any) -> None:
    _stopping.set()


@events.quitting.add_listener
def _write_down(**_: Any) -> None:
    REQUESTS.close()
    write_records(OUT / RECORDS_FILE, RECORDS)


def forwarded_address(number: int) -> str:
    """A client address of its own for each person, sent as X-Forwarded-For (the instances
    trust 127.0.0.1 as a proxy), so per-client limits count people, not the one load generator.
    From 198.18.0.0/15, the range set aside for benchmarks: never an address this connects to."""
    return f"198.{18 + number // 64_000 % 2}.{number // 250 % 256}.{number % 250 + 1}"


CARD_POINTS = {"A": 1, "T": 10, "J": 10, "Q": 10, "K": 10} | {str(n): n for n in range(2, 10)}


def penalty(card: str, wild: str | None) -> int:
    """What a card costs left unmelded, roughly (wilds and jokers are worth keeping)."""
    if card == "JK" or card[0] == wild:
        return -1
    return CARD_POINTS.get(card[0], 10)


def choose(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """A plain person's move from the seat's ``legal`` actions: go out when the service offers
    it, take a wild from the discard pile, else mostly the stock; discard the costliest card."""
    legal: list[dict[str, Any]] = view["legal"]
    going_out = [action for action in legal if action.get("go_out")]
    if going_out:
        return going_out[0]
    draws = [action for action in legal if action["type"] == "draw"]
    if draws:
        top = view.get("discard_top")
        from_pile = [draw for draw in draws if draw["source"] == "discard"]
        if from_pile and top is not None and penalty(top, view.get("wild")) < 0:
            return from_pile[0]
        stock = [draw for draw in draws if draw["source"] == "stock"]
        return stock[0] if stock and rng.random() < 0.8 else rng.choice(draws)
    discards = [action for action in legal if action["type"] == "discard"]
    if discards:
        return max(discards, key=lambda action: penalty(action["card"], view.get("wild")))
    return rng.choice(legal)


_STATUS_ORDER = {"waiting": 0, "playing": 1, "finished": 2}


@dataclass
class Seat:
    """A person's seat in one game, and the newest view of it they have seen."""

    game_id: str
    seat: int
    token: str
    clock: int | None
    view: dict[str, Any] | None = None
    version: int = -1
    status: str = "waiting"
    changed: float = field(default_factory=time.monotonic)
    """When the version (or the status) last moved."""
    stall: Stalled | None = None
    news: Event = field(default_factory=Event)
    refused_at: int = -1
    """A version at which this seat's action was refused: act again only at a later one."""
    unanswered: ActionTried | None = None
    """An action whose first try got no answer and whose retry was refused: the next view
    tells whether the turn clock played the seat (it is then shown away)."""

    def see(self, view: dict[str, Any]) -> None:
        """Keep the newest view (an action's answer can be older than streamed events)."""
        ahead = (view["version"], _STATUS_ORDER[view["status"]]) > (
            self.version,
            _STATUS_ORDER[self.status],
        )
        if ahead:
            self.changed = time.monotonic()
            if self.stall is not None:
                self.stall.until = time.time()
                self.stall = None
        if not (ahead or view["version"] == self.version):
            self.news.set()
            return  # older than what was seen
        self.version, self.status = view["version"], view["status"]
        if view.get("seat") == self.seat or self.view is None:
            self.view = view
        tried = self.unanswered
        if (
            tried is not None
            and view.get("seat") == self.seat
            and view["version"] > self.refused_at
        ):
            tried.away_after = bool(view["players"][self.seat].get("away"))
            self.unanswered = None
        self.news.set()

    def own_view(self) -> bool:
        return self.view is not None and self.view.get("seat") == self.seat

    def ready(self) -> dict[str, Any] | None:
        """The seat's own view, if it is this seat's turn in it and it has not been refused."""
        view = self.view
        if (
            view is not None
            and self.status == "playing"
            and view.get("seat") == self.seat
            and view["version"] == self.version
            and view["turn"] == self.seat
            and view["legal"]
            and view["version"] > self.refused_at
        ):
            return view
        return None

    def on_turn(self) -> tuple[int | None, str]:
        view = self.view
        if view is None or view.get("turn") is None:
            return None, ""
        turn: int = view["turn"]
        player = view["players"][turn]
        kind = "me" if turn == self.seat else "bot" if player.get("bot") else "person"
        return turn, "away" if player.get("away") else kind


class Probe(FastHttpUser):
    """Not a person: ``GET /healthz`` on each instance in turn, twice a second. The health check
    does no work, so its latency is what the machine (a busy core, a full event loop) adds to
    every request: the baseline to read people's latencies against."""

    fixed_count = 1
    host = INSTANCES[0]
    wait_time = constant(0.5)
    connection_timeout = 5.0
    network_timeout = 20.0

    def on_start(self) -> None:
        self.turn = itertools.cycle(range(len(INSTANCES)))

    @task
    def probe(self) -> None:
        started, instance = time.time(), next(self.turn)
        with self.client.request(
            "GET", INSTANCES[instance] + "/healthz", name="/healthz", catch_response=True
        ) as response:
            status, _, problem = judged(response)
            ms = float(response.request_meta["response_time"])
            REQUESTS.add(Request(started, HEALTH, status, ms, problem, instance, "/healthz", ""))


def judged(response: Any) -> tuple[int, Any, str]:
    """A try's status, its JSON body if 2xx, and a refusal's problem type (the last part of its
    ``type``); marks it in Locust's table, where a 409 (a lost race) is no failure."""
    status = response.status_code or NO_ANSWER
    if status == NO_ANSWER:
        response.failure(getattr(response, "error", None) or "no answer")
        return status, None, ""
    if status < 300:
        response.success()
        return status, response.json(), ""
    try:
        problem = re.split("[/:]", str(response.json().get("type", "")))[-1]
    except ValueError:
        problem = ""
    if status == 409:
        response.success()
    else:
        response.failure(f"{status} {problem}")
    return status, None, problem


@dataclass
class Answer:
    status: int
    body: Any


class Person(FastHttpUser):
    """One simulated person (see the module's docstring)."""

    host = INSTANCES[0]
    wait_time = constant(0)
    connection_timeout = 5.0
    network_timeout = 20.0

    def on_start(self) -> None:
        self.number = next(_numbers)
        self.role = OPTIONS.role_of(self.number)
        seed = OPTIONS.seed if OPTIONS.seed is not None else random.randrange(2**32)
        self.rng = random.Random(seed * 1_000_003 + self.number)
        self.address = forwarded_address(self.number)
        self.follows_stream = self.rng.random() < OPTIONS.stream_share
        self.as_player = OPTIONS.is_player(self.number, self.rng.random())
        self.key: str | None = None
        """The player's key, once made (``as_player``)."""
        self.instance = self.rng.randrange(len(INSTANCES))
        self.repick_at = 0.0
        self.last_sent: dict[int, float] = {}
        """When this person last sent a request to each instance (``time.monotonic``)."""

    @task
    def play(self) -> None:
        self.repick_at = 0.0  # a new game, maybe a new instance
        if self.as_player and self.key is None and not self.become_player():
            gevent.sleep(1)
            return
        if self.key is not None and self.role == "solo" and self.rng.random() < 0.5:
            seat = self.seek()
        elif self.role == "guest":
            seat = self.accept() if self.key is not None else self.claim()
        else:
            seat = self.create()
        if seat is None:
            gevent.sleep(1)
            return
        follower = gevent.spawn(self.follow, seat) if self.follows_stream else None
        try:
            while (view := self.wait_for_turn(seat)) is not None:
                self.take_turn(seat, view)
        finally:
            if follower is not None:
                follower.kill(block=False)

    # -- joining ------------------------------------------------------------------------------

    def create(self) -> Seat | None:
        name = f"Soak {self.number}"
        clock = OPTIONS.turn_seconds if self.rng.random() < OPTIONS.clock_share else None
        players: list[dict[str, Any]]
        if self.role == "host":
            players = [{"name": name}, {"open": True}, {"bot": self.rng.choice(OPTIONS.bots)}]
        else:
            bots = self.rng.randint(1, 3)
            players = [{"name": name}] + [
                {"bot": self.rng.choice(OPTIONS.bots)} for _ in range(bots)
            ]
        if self.key is not None:
            me: dict[str, Any] = {"me": True}
            players[0] = me
            if self.role == "host":
                return self.challenge(clock, players[2]["bot"])
        body: dict[str, Any] = {"players": players, "turn_seconds": clock}
        if self.role == "host" and self.rng.random() < 0.5:
            body["listed"] = True
        record = GameCreated(
            game_id="",
            role=self.role,
            number=self.number,
            seat=0,
            clock=clock,
            seats=len(players),
            at=time.time(),
            statuses=[],
        )
        RECORDS.append(record)  # a create never answered 201 is written down too
        answer = self.send(
            "POST",
            "/v1/games",
            CREATE,
            body=body,
            token=self.key,
            key=uuid.uuid4().hex,
            tries=record.statuses,
        )
        if answer.status != 201:
            return None
        record.game_id = answer.body["game_id"]
        token = self.key or answer.body["seats"][0]["token"]
        seat = Seat(record.game_id, 0, token, clock)
        seat.see(answer.body["view"])
        if self.role == "host":
            CODES.put((answer.body["invite_code"], record.game_id, clock))
        return seat

    def claim(self) -> Seat | None:
        while True:
            self.stop_if_asked()
            try:
                code, host_game, clock = CODES.get(timeout=1)
                break
            except Empty:
                continue
        record = SeatClaimed(code=code, at=time.time(), statuses=[], host_game_id=host_game)
        RECORDS.append(record)
        answer = self.send(
            "POST",
            f"/v1/invites/{code}",
            CLAIM,
            body={"name": f"Soak {self.number}"},
            key=uuid.uuid4().hex,
            tries=record.statuses,
        )
        if answer.status != 201:
            return None
        record.game_id, record.seat = answer.body["game_id"], answer.body["seat"]
        seat = Seat(answer.body["game_id"], answer.body["seat"], answer.body["token"], clock)
        seat.see(answer.body["view"])
        return seat

    def become_player(self) -> bool:
        answer = self.send("POST", "/v1/players", PLAYER, body={"name": f"Soak {self.number}"})
        if answer.status == 201:
            self.key = answer.body["key"]
        return self.key is not None

    def challenge(self, clock: int | None, bot: str) -> Seat | None:
        """A player host's table: an open challenge with a bot, handed to a player guest."""
        record = GameCreated(
            game_id="", role=self.role, number=self.number, seat=0, clock=clock, seats=3,
            at=time.time(), statuses=[],
        )  # fmt: skip
        RECORDS.append(record)
        body = {"seats": 1, "bots": [bot], "turn_seconds": clock, "expires_in": 3600}
        answer = self.send(
            "POST",
            "/v1/challenges",
            CHALLENGE,
            body=body,
            token=self.key,
            key=uuid.uuid4().hex,
            tries=record.statuses,
        )
        if answer.status != 201:
            return None
        record.game_id = answer.body["game_id"]
        CHALLENGES.put((answer.body["challenge_id"], clock))
        return self.seated(record.game_id, 0, clock)

    def accept(self) -> Seat | None:
        """A player guest's seat: the next open challenge a player host made, accepted."""
        while True:
            self.stop_if_asked()
            try:
                challenge_id, clock = CHALLENGES.get(timeout=1)
                break
            except Empty:
                continue
        record = SeatClaimed(
            code=challenge_id, how="challenge", at=time.time(), statuses=[],
            host_game_id=challenge_id,
        )  # fmt: skip
        RECORDS.append(record)
        answer = self.send(
            "POST",
            f"/v1/challenges/{challenge_id}/accept",
            ACCEPT,
            token=self.key,
            key=uuid.uuid4().hex,
            tries=record.statuses,
        )
        if answer.status != 200:
            return None
        record.game_id, record.seat = answer.body["game_id"], answer.body["seat"]
        return self.seated(answer.body["game_id"], answer.body["seat"], clock)

    def seek(self) -> Seat | None:
        """A player alone seeks a table of two, and waits for the match (polling the seek)."""
        record = SeatClaimed(code="", how="seek", at=time.time(), statuses=[], host_game_id="")
        RECORDS.append(record)
        answer = self.send(
            "POST",
            "/v1/seeks",
            SEEK,
            body={"players": 2},
            token=self.key,
            key=uuid.uuid4().hex,
            tries=record.statuses,
        )
        if answer.status != 201:
            return None
        record.code = answer.body["seek_id"]
        since = time.monotonic()
        while answer.body["status"] == "waiting":
            if time.monotonic() - since > OPTIONS.give_up_seconds:
                self.send("DELETE", f"/v1/seeks/{record.code}", SEEK_VIEW, token=self.key)
                return None
            _stopping.wait(OPTIONS.poll_seconds)
            self.stop_if_asked()
            polled = self.send("GET", f"/v1/seeks/{record.code}", SEEK_VIEW, token=self.key)
            if polled.status == 200:
                answer = polled
        if answer.body["status"] != "matched":
            return None
        game_id = answer.body["game_id"]
        view = self.send("GET", f"/v1/games/{game_id}", VIEW, token=self.key)
        if view.status != 200:
            return None
        record.game_id = record.host_game_id = game_id
        record.seat = view.body["seat"]
        seat = Seat(game_id, view.body["seat"], self.key or "", None)
        seat.see(view.body)
        return seat

    def seated(self, game_id: str, number: int, clock: int | None) -> Seat | None:
        """A player's seat at a challenge's table, from its view (read with the key)."""
        seat = Seat(game_id, number, self.key or "", clock)
        answer = self.send("GET", f"/v1/games/{game_id}", VIEW, token=self.key)
        if answer.status == 200:
            seat.see(answer.body)
        return seat

    # -- playing ------------------------------------------------------------------------------

    def wait_for_turn(self, seat: Seat) -> dict[str, Any] | None:
        """The seat's view once it is its turn; None once the game is over or given up."""
        fresh = seat.own_view()
        while True:
            self.stop_if_asked()
            if seat.status == "finished":
                RECORDS.append(Finished(game_id=seat.game_id, seat=seat.seat,
                                        version=seat.version, at=time.time()))  # fmt: skip
                return None
            if (view := seat.ready()) is not None:
                return view
            idle = time.monotonic() - seat.changed
            if seat.status == "playing" and idle >= OPTIONS.stuck_seconds and seat.stall is None:
                turn, kind = seat.on_turn()
                seat.stall = Stalled(
                    game_id=seat.game_id, seat=seat.seat, version=seat.version,
                    since=time.time() - idle, turn=turn, turn_kind=kind,
                    streaming=self.follows_stream,
                )  # fmt: skip
                RECORDS.append(seat.stall)
            if idle >= OPTIONS.give_up_seconds:
                reason = "stuck" if seat.status == "playing" else "unjoined"
                RECORDS.append(Left(game_id=seat.game_id, seat=seat.seat, version=seat.version,
                                    reason=reason, at=time.time()))  # fmt: skip
                return None
            if self.follows_stream:
                seat.news.clear()
                seat.news.wait(timeout=OPTIONS.poll_seconds)
                continue
            if fresh:
                _stopping.wait(OPTIONS.poll_seconds)
                self.stop_if_asked()
            fresh = True
            answer = self.send("GET", f"/v1/games/{seat.game_id}", VIEW, token=seat.token)
            if answer.status == 200:
                seat.see(answer.body)

    def take_turn(self, seat: Seat, view: dict[str, Any]) -> None:
        away = seat.clock is not None and self.rng.random() < OPTIONS.away_share
        _stopping.wait(seat.clock + 4 if away and seat.clock else self.rng.uniform(*OPTIONS.think))
        self.stop_if_asked()
        body = {**choose(view, self.rng), "expected_version": view["version"]}
        record = ActionTried(
            game_id=seat.game_id, seat=seat.seat, key=uuid.uuid4().hex,
            expected_version=view["version"], body=body, at=time.time(), away=away,
        )  # fmt: skip
        RECORDS.append(record)
        answer = self.send(
            "POST",
            f"/v1/games/{seat.game_id}/actions",
            ACT,
            body=body,
            token=seat.token,
            key=record.key,
            tries=record.statuses,
        )
        record.status = answer.status
        if answer.status == 200:
            record.version = answer.body["version"]
            seat.see(answer.body)
        else:
            seat.refused_at = view["version"]
            if NO_ANSWER in record.statuses:
                seat.unanswered = record  # was the first try applied, or did the clock play?
                if seat.view is not None:
                    seat.see(seat.view)  # a newer view may be here already (a stream's)

    def stop_if_asked(self) -> None:
        if _stopping.is_set():
            raise StopUser

    # -- HTTP ---------------------------------------------------------------------------------

    def send(
        self,
        method: str,
        path: str,
        route: str,
        *,
        body: Any = None,
        token: str | None = None,
        key: str | None = None,
        tries: list[int] | None = None,
    ) -> Answer:
        """Send until answered: no answer (another instance) or 503 (after its Retry-After)
        is sent again, with the same Idempotency-Key, for up to ``RETRY_SECONDS``."""
        headers = {"X-Forwarded-For": self.address}
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        if key is not None:
            headers["Idempotency-Key"] = key
        statuses = [] if tries is None else tries
        if time.monotonic() >= self.repick_at:
            self.instance = self.rng.randrange(len(INSTANCES))
            self.repick_at = time.monotonic() + REPICK_SECONDS
        deadline = time.monotonic() + RETRY_SECONDS
        while True:
            if time.monotonic() - self.last_sent.get(self.instance, 0.0) > IDLE_CLOSE_SECONDS:
                self.close_connections()
            self.last_sent[self.instance] = time.monotonic()
            started = time.time()
            with self.client.request(
                method,
                INSTANCES[self.instance] + path,
                name=route.split(" ", 1)[1],  # Locust shows the method beside it
                json=body,
                headers=headers,
                catch_response=True,
            ) as response:
                status, payload, problem = judged(response)
                ms = float(response.request_meta["response_time"])
                retry_after = response.headers.get("retry-after") if response.headers else None
            statuses.append(status)
            REQUESTS.add(
                Request(started, route, status, ms, problem, self.instance, path, key or "")
            )
            if status not in (NO_ANSWER, 503) or time.monotonic() > deadline:
                return Answer(status, payload)
            if status == NO_ANSWER:
                self.move_on()
                gevent.sleep(min(2.0, 0.1 * 2 ** len(statuses)))
            else:
                gevent.sleep(min(RETRY_AFTER_CAP, float(retry_after or 1)))

    def move_on(self) -> None:
        """This instance did not answer: forget its kept-alive connections (those opened before
        a kill are dead, and would fail the first request after its restart) and take another
        instance, at random."""
        self.close_connections()
        if len(INSTANCES) > 1:
            others = [index for index in range(len(INSTANCES)) if index != self.instance]
            self.instance = self.rng.choice(others)

    def close_connections(self) -> None:
        """Close this person's kept-alive connections to the current instance."""
        address = urllib.parse.urlsplit(INSTANCES[self.instance])
        kept = self.client.client.clientpool.clients.pop(
            (address.hostname or "", address.port), None
        )
        if kept is not None:
            kept.close()

    # -- the event stream ---------------------------------------------------------------------

    def follow(self, seat: Seat) -> None:
        """Follow the seat's event stream until the game is over: each event's view is seen;
        a broken stream reconnects (another instance if there was no answer), resuming with
        ``Last-Event-ID``."""
        while seat.status != "finished" and not _stopping.is_set():
            status = self.stream_once(seat)
            if status == 204:  # over: nothing more to stream
                seat.status = "finished"
                seat.news.set()
                return
            if status == NO_ANSWER:
                self.move_on()
            gevent.sleep(0.2 if status == 200 else 1.0)

    def stream_once(self, seat: Seat) -> int:
        address = urllib.parse.urlsplit(INSTANCES[self.instance])
        headers = {
            "Authorization": f"Bearer {seat.token}",
            "Accept": "text/event-stream",
            "X-Forwarded-For": self.address,
        }
        if seat.status == "playing" and seat.own_view():
            # Resume after what this seat has seen; without a view of its own (a creator holds
            # the public view) start afresh: a snapshot first.
            headers["Last-Event-ID"] = str(seat.version)
        started, clock = time.time(), time.perf_counter()
        path = f"/v1/games/{seat.game_id}/events"
        connection = http.client.HTTPConnection(
            address.hostname or "127.0.0.1", address.port, timeout=STREAM_READ_SECONDS
        )
        error: Exception | None = None
        try:
            connection.request("GET", path, headers=headers)
            response = connection.getresponse()
            status = response.status
        except (OSError, http.client.HTTPException) as failure:
            status, error = NO_ANSWER, failure
        ms = (time.perf_counter() - clock) * 1000
        if status not in (200, 204) and error is None:
            error = RuntimeError(f"{status}")
        self.environment.events.request.fire(
            request_type="GET", name=STREAM.split(" ", 1)[1], response_time=ms, response_length=0,
            exception=error, context={}, response=None, url=seat.game_id, start_time=started,
        )  # fmt: skip
        REQUESTS.add(Request(started, STREAM, status, ms, "", self.instance, path, ""))
        try:
            if status == 200:
                self.read_events(seat, response)
        except (OSError, http.client.HTTPException, ValueError):
            pass  # the instance died or the stream broke: reconnect
        finally:
            connection.close()
        return status

    def read_events(self, seat: Seat, response: http.client.HTTPResponse) -> None:
        kind, data = "message", []
        while line := response.readline():
            text = line.decode().rstrip("\r\n")
            if text.startswith(":"):
                continue
            if text:
                name, _, value = text.partition(":")
                value = value.removeprefix(" ")
                if name == "event":
                    kind = value
                elif name == "data":
                    data.append(value)
                continue
            if data:
                payload = json.loads("\n".join(data))
                if kind == "snapshot":
                    seat.see(payload)
                elif kind == "action":
                    seat.see(payload["view"])
                elif kind == "finished":
                    seat.status = "finished"
                    seat.news.set()
                    return
            kind, data = "message", []
