// A whole game against a bot through openapi-typescript's types and openapi-fetch's calls,
// following the game's event stream; then its record, fetched and imported back as it is.
// tests/contract/test_typescript_games.py generates generated/api.d.ts, compiles this with
// `tsc --strict` and runs it against a live service: THREE_THIRTEEN_URL is its base URL.
import createClient from "openapi-fetch";
import type { components, paths } from "./generated/api";

type Schemas = components["schemas"];
type GameView = Schemas["GameView"];
type GameEvent = Schemas["GameEvent"];
type GameStreamMessage = Schemas["GameStreamMessage"];

const baseUrl = process.env.THREE_THIRTEEN_URL;
const client = createClient<paths>({ baseUrl });
// A client of JSON answers: a record's answer is typed `RecordJson` alone, not its text too.
const json = createClient<paths, "application/json">({ baseUrl });

/** One message of the stream from its fields, typed by its event; a keep-alive (no data) is none. */
function streamMessage(fields: Map<string, string>): GameStreamMessage | undefined {
  const data = fields.get("data");
  const id = fields.get("id");
  if (data === undefined) return undefined;
  switch (fields.get("event")) {
    case "snapshot":
      return { event: "snapshot", data, id };
    case "action":
      return { event: "action", data, id };
    case "finished":
      return { event: "finished", data, id };
  }
  return undefined;
}

/** The messages of a `text/event-stream` body (openapi-fetch's `parseAs: "stream"`). */
async function* streamMessages(body: ReadableStream<Uint8Array>): AsyncGenerator<GameStreamMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let pending = "";
  let fields = new Map<string, string>();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      const lines = (pending + decoder.decode(value, { stream: true })).split("\n");
      pending = lines.pop() ?? "";
      for (const line of lines.map((text) => text.replace(/\r$/, ""))) {
        if (line === "") {
          const message = streamMessage(fields);
          fields = new Map();
          if (message) yield message;
        } else if (!line.startsWith(":")) {
          const colon = line.indexOf(":");
          const name = colon < 0 ? line : line.slice(0, colon);
          const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
          fields.set(name, name === "data" && fields.has("data") ? `${fields.get("data")}\n${value}` : value);
        }
      }
    }
  } finally {
    await reader.cancel();
  }
}

/** Post the first legal action while the seat is on turn; answer the version reached. */
async function playTurn(game_id: string, seat: { Authorization: string }, view: GameView): Promise<number> {
  let current = view;
  while (current.status !== "finished" && current.legal && current.legal.length > 0) {
    const acted = await client.POST("/v1/games/{game_id}/actions", {
      params: { path: { game_id } },
      body: current.legal[0],
      headers: seat,
    });
    if (!acted.data) throw new Error(`action refused: ${acted.error?.detail}`);
    current = acted.data;
  }
  return current.version;
}

/** Follow the seat's stream, acting on each newer view, until the game is finished. A stream
 * ends after a minute or so: reconnect after the last id read, losing nothing. */
async function play(game_id: string, token: string): Promise<void> {
  const seat = { Authorization: `Bearer ${token}` };
  let lastId: string | undefined;
  let version = -1;
  for (;;) {
    const stream = await client.GET("/v1/games/{game_id}/events", {
      params: { path: { game_id }, header: lastId === undefined ? undefined : { "Last-Event-ID": lastId } },
      headers: seat,
      parseAs: "stream",
    });
    if (stream.response.status === 204) return; // over, and nothing after lastId
    if (!stream.data) throw new Error(`events: ${stream.response.status}`);
    for await (const message of streamMessages(stream.data)) {
      lastId = message.id ?? lastId;
      let view: GameView;
      switch (message.event) {
        case "finished":
          return;
        case "snapshot":
          view = JSON.parse(message.data);
          break;
        case "action": {
          const event: GameEvent = JSON.parse(message.data);
          view = event.view;
          break;
        }
      }
      // An action's answer can be newer than the stream's next events (the bot moves at once).
      if (view.version > version) version = await playTurn(game_id, seat, view);
    }
  }
}

async function main(): Promise<void> {
  const created = await client.POST("/v1/games", {
    body: { players: [{ name: "Ann" }, { bot: "easy" }] },
  });
  if (!created.data) throw new Error(`create: ${created.error?.detail}`);
  const game_id = created.data.game_id;
  await play(game_id, created.data.seats[0].token);

  const record = await json.GET("/v1/games/{game_id}/record", { params: { path: { game_id } } });
  if (!record.data) throw new Error(`record: ${record.response.status}`);
  const imported = await client.POST("/v1/records", { body: record.data });
  if (imported.response.status !== 201 || !imported.data) throw new Error(`import: ${imported.error?.detail}`);
  console.log(`record ${imported.data.record_id} ${imported.data.status}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
