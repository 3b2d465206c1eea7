"""A client that plays whole games over the HTTP API, as a frontend or a bot would: it reads its
own seat's view, draws from the stock, and asks ``POST /v1/analyse`` which card to discard and
whether it can go out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from litestar import Litestar
from litestar.testing import TestClient

Json = dict[str, Any]


@dataclass
class Exchange:
    """One response the player received, and whom it was for (None: the public)."""

    viewer: int | None
    path: str
    status: int
    text: str


@dataclass
class HttpGame:
    client: TestClient[Litestar]
    game_id: str
    tokens: list[str]
    rules: Any
    created: Json
    exchanges: list[Exchange] = field(default_factory=list)

    @classmethod
    def create(
        cls,
        client: TestClient[Litestar],
        players: int,
        rules: Any,
        seed: int | None = None,
        seed_key: str | None = None,
    ) -> HttpGame:
        """A game of ``players`` people; with ``seed`` (and the ``seed_key`` an earlier create
        answered, to deal that game again), seeded."""
        body: Json = {"players": [{"name": f"p{n}"} for n in range(players)], "rules": rules}
        if seed is not None:
            body["seed"] = seed
        if seed_key is not None:
            body["seed_key"] = seed_key
        response = client.post("/v1/games", json=body)
        assert response.status_code == 201, response.text
        created = response.json()
        return cls(
            client=client,
            game_id=created["game_id"],
            tokens=[s["token"] for s in created["seats"]],
            rules=rules,
            created=created,
        )

    def auth(self, seat: int | None) -> dict[str, str]:
        return {} if seat is None else {"Authorization": f"Bearer {self.tokens[seat]}"}

    def get(self, path: str, seat: int | None) -> Any:
        response = self.client.get(f"/v1/games/{self.game_id}{path}", headers=self.auth(seat))
        self.exchanges.append(Exchange(seat, path, response.status_code, response.text))
        assert response.status_code == 200, response.text
        return response.json()

    def view(self, seat: int | None = None) -> Json:
        result: Json = self.get("", seat)
        return result

    def act(self, seat: int, action: Json, **headers: str) -> Json:
        response = self.client.post(
            f"/v1/games/{self.game_id}/actions",
            json=action,
            headers={**self.auth(seat), **headers},
        )
        self.exchanges.append(Exchange(seat, "/actions", response.status_code, response.text))
        assert response.status_code == 200, response.text
        result: Json = response.json()
        return result

    def best_discard(self, view: Json) -> Json:
        response = self.client.post(
            "/v1/analyse", json={"hand": view["hand"], "wild": view["wild"], "rules": self.rules}
        )
        assert response.status_code == 200, response.text
        analysis = response.json()
        return {
            "type": "discard",
            "card": analysis["suggested_discard"],
            # Only one seat goes out per round; the others play their last turns.
            "go_out": analysis["can_go_out"] and view["out_seat"] is None,
        }

    def play_turn(self) -> Json:
        """The seat on turn draws from the stock and makes the analyser's discard."""
        public = self.view()
        seat = public["turn"]
        drawn = self.act(seat, {"type": "draw", "source": "stock"})
        return self.act(seat, self.best_discard(drawn))

    def play_to_end(self, max_turns: int = 5000) -> Json:
        view = self.view()
        for _ in range(max_turns):
            if view["status"] == "finished":
                return view
            view = self.play_turn()
        raise AssertionError(f"the game did not finish in {max_turns} turns")
