// A whole game against a bot through the SDK @hey-api/openapi-ts generates (its fetch client),
// polling the seat's view; then its record, fetched and imported back as it is.
// tests/contract/test_typescript_games.py generates generated/hey-api, compiles this with
// `tsc --strict` and runs it against a live service: THREE_THIRTEEN_URL is its base URL.
import { createClient, createConfig } from "./generated/hey-api/client";
import { applyAction, createGame, getGame, getGameRecord, importRecord } from "./generated/hey-api";
import type { GameView } from "./generated/hey-api";

const baseUrl = process.env.THREE_THIRTEEN_URL;
const client = createClient(createConfig({ baseUrl }));

/** Wait between two reads of the view while the bot plays. */
const pause = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));

async function play(game_id: string, token: string): Promise<void> {
  // The operations whose security names the seatToken scheme send `auth` by themselves;
  // getGame's token is optional (x-optional-security), so the view asks with the header.
  const seat = createClient(createConfig({ baseUrl, auth: token }));
  const headers = { Authorization: `Bearer ${token}` };
  for (;;) {
    const read = await getGame({ client: seat, path: { game_id }, headers });
    if (!read.data) throw new Error(`view: ${read.error?.detail}`);
    let view: GameView = read.data;
    if (view.status === "finished") return;
    if (!view.legal || view.legal.length === 0) {
      await pause();
      continue;
    }
    while (view.status !== "finished" && view.legal && view.legal.length > 0) {
      const acted = await applyAction({ client: seat, path: { game_id }, body: view.legal[0] });
      if (!acted.data) throw new Error(`action refused: ${acted.error?.detail}`);
      view = acted.data;
    }
  }
}

async function main(): Promise<void> {
  const created = await createGame({ client, body: { players: [{ name: "Ann" }, { bot: "easy" }] } });
  if (!created.data) throw new Error(`create: ${created.error?.detail}`);
  const game_id = created.data.game_id;
  await play(game_id, created.data.seats[0].token);

  const record = await getGameRecord({ client, path: { game_id } });
  if (!record.data) throw new Error(`record: ${record.error?.detail}`);
  const imported = await importRecord({ client, body: record.data });
  if (imported.response?.status !== 201 || !imported.data) throw new Error(`import: ${imported.error?.detail}`);
  console.log(`record ${imported.data.record_id} ${imported.data.status}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
