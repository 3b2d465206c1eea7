// The README's calls through a client generated from openapi/openapi.json (openapi-typescript
// types, openapi-fetch calls). tests/contract/test_typescript_client.py generates api.d.ts and
// type-checks this file with `tsc --strict`: a document that makes a call of the README
// mistyped (a field the service defaults made required, a missing operation) fails it.
import createClient from "openapi-fetch";
import type { components, paths } from "./generated/api";

type Schemas = components["schemas"];
type GameStreamMessage = Schemas["GameStreamMessage"];
// Every event type the stream sends, and the schema of its data: a new event type in the
// document that is missing here fails `describe` below (its switch must cover every event).
type EventData = {
  [Event in GameStreamMessage["event"]]: {
    snapshot: Schemas["GameView"];
    action: Schemas["GameEvent"];
    finished: Schemas["GameFinishedEvent"];
  }[Event];
};

export async function readmeCalls(baseUrl: string): Promise<void> {
  const client = createClient<paths>({ baseUrl });

  // Analyse a hand: best melds, least deadwood, every discard ranked (rules left to default).
  const analysed = await client.POST("/v1/analyse", {
    body: { hand: ["4H", "8S", "6H", "KD"], wild: "8" },
  });
  const suggested: string | null | undefined = analysed.data?.suggested_discard;
  // The wild rank of a round instead of `wild`; a preset with options changed.
  await client.POST("/v1/analyse", {
    body: { hand: ["qh", "K♥", "AH", "JK", "5C"], round: 11, rules: { preset: "online", wild_points: 25 } },
  });
  await client.POST("/v1/analyse", {
    body: { hand: ["4H"], wild: "8", rules: { preset: "classic", going_out_bonus: "minus_wild" } },
  });
  const presets = await client.GET("/v1/rules");
  // Rules are one schema out and in, whose fields a request may leave out: a response has them
  // all, but the type says each may be missing.
  const names: string[] | undefined = presets.data?.presets.map((rules) => rules.preset ?? "");

  // Create a game: each seat's token is shown here, once.
  const created = await client.POST("/v1/games", {
    body: { players: [{ name: "Ann" }, { name: "Bob" }], rules: "classic" },
  });
  if (!created.data) throw new Error(created.error?.detail);
  const game_id = created.data.game_id;
  const token = created.data.seats[0].token;
  const seat = { headers: { Authorization: `Bearer ${token}` } };

  // The public view; with a seat's token (the seatToken scheme), that seat's view.
  await client.GET("/v1/games/{game_id}", { params: { path: { game_id } } });
  const view = await client.GET("/v1/games/{game_id}", { params: { path: { game_id } }, ...seat });
  const hand: string[] | null | undefined = view.data?.hand;

  // Act as the seat on turn.
  await client.POST("/v1/games/{game_id}/actions", {
    params: { path: { game_id }, header: { "Idempotency-Key": "7d1f" } },
    body: { type: "draw", source: "stock", expected_version: 0 },
    ...seat,
  });
  await client.POST("/v1/games/{game_id}/actions", {
    params: { path: { game_id } },
    body: { type: "discard", card: "KD", go_out: false },
    ...seat,
  });
  await client.GET("/v1/games/{game_id}/log", { params: { path: { game_id } } });

  // A view's rules go to the analyser as they are, and an entry of its `legal` is posted as it
  // is: one schema for rules out and in, and `legal` entries are the action bodies (no cast).
  if (view.data) {
    await client.POST("/v1/analyse", {
      body: { hand: ["4H", "8S"], round: 1, rules: view.data.rules },
    });
    const entry = view.data.legal?.[0];
    if (entry) {
      await client.POST("/v1/games/{game_id}/actions", {
        params: { path: { game_id } },
        body: entry,
        ...seat,
      });
    }
  }

  // Follow the game: each message of the stream is typed by its event, its data by the struct
  // the event carries (JSON in the message's `data`).
  const describe = (message: GameStreamMessage): string => {
    switch (message.event) {
      case "action": {
        const data: EventData["action"] = JSON.parse(message.data);
        return `${data.entry.seat} acted, version ${data.version}`;
      }
      case "finished": {
        const data: EventData["finished"] = JSON.parse(message.data);
        return `won by ${data.winners.join(", ")}`;
      }
      case "snapshot": {
        const data: EventData["snapshot"] = JSON.parse(message.data);
        return `snapshot at version ${data.version}`;
      }
    }
  };
  void describe;

  // Tables: open seats, an invite code, the lobby, a claimed seat, stream URL, leave, rematch.
  const table = await client.POST("/v1/games", {
    body: { players: [{ name: "Ann" }, { open: true }, { open: true }], listed: true },
  });
  await client.GET("/v1/tables");
  const claimed = await client.POST("/v1/invites/{code}", {
    params: { path: { code: table.data?.invite_code ?? "" } },
    body: { name: "Bob" },
  });
  const bob = { headers: { Authorization: `Bearer ${claimed.data?.token}` } };
  const path = { path: { game_id: claimed.data?.game_id ?? "" } };
  await client.POST("/v1/games/{game_id}/stream-url", { params: path, ...bob });
  await client.POST("/v1/games/{game_id}/leave", { params: path, ...bob });
  await client.POST("/v1/games/{game_id}/rematch", { params: path, ...bob });

  // Against computer players, with a turn clock: the bots move by themselves; a seat whose
  // turn ran out is shown away.
  const against = await client.POST("/v1/games", {
    body: { players: [{ name: "Ann" }, { bot: "normal" }, { bot: "hard" }], turn_seconds: 60 },
  });
  const away: boolean | undefined = against.data?.view.players[0].away;
  const level: string | null | undefined = against.data?.view.players[1].bot;

  // Advice for the seat on turn, and for a bare hand.
  await client.GET("/v1/games/{game_id}/hint", { params: { path: { game_id } }, ...seat });
  await client.POST("/v1/advise", {
    body: { hand: ["4H", "5H", "KS"], round: 1, upcard: "6H", seen: ["7H", "3H"] },
  });

  // Score sheets: create, enter a round with the edit token (the editToken scheme), export.
  const sheet = await client.POST("/v1/scoresheets", {
    body: { players: ["Ann", "Bob", "Cy"], rules: "classic" },
  });
  const sheet_id = sheet.data?.sheet_id ?? "";
  await client.PUT("/v1/scoresheets/{sheet_id}/rounds/{round}", {
    params: { path: { sheet_id, round: 1 } },
    headers: { Authorization: `Bearer ${sheet.data?.edit_token}` },
    body: {
      out_seat: 1,
      entries: [
        { seat: 0, cards: ["KC", "QD", "3S"] },
        { seat: 1, cards: ["7H", "8H", "3C"] },
        { seat: 2, points: 12 },
      ],
    },
  });
  await client.GET("/v1/scoresheets/{sheet_id}/export.csv", {
    params: { path: { sheet_id } },
    parseAs: "text",
  });

  // A game's record, fetched and imported back as it is: one schema out and in. A client of
  // JSON answers types the record alone; the default client, the record or its text.
  const json = createClient<paths, "application/json">({ baseUrl });
  const record = await json.GET("/v1/games/{game_id}/record", { params: { path: { game_id } } });
  const winners: number[] | null | undefined = record.data?.winners;
  if (record.data) {
    await client.POST("/v1/records", { body: record.data });
  }
  // Its text notation, read as text and sent as it is (openapi-fetch sends JSON unless told).
  const notation = await client.GET("/v1/games/{game_id}/record", {
    params: { path: { game_id }, header: { Accept: "text/plain" } },
    parseAs: "text",
  });
  if (notation.data !== undefined) {
    await client.POST("/v1/records", {
      body: notation.data,
      headers: { "Content-Type": "text/plain; charset=utf-8" },
      bodySerializer: (body) => body,
    });
  }
  void [suggested, names, hand, away, level, winners];
}
