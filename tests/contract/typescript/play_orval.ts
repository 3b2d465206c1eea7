// A whole game against a bot through the functions orval generates (its fetch client, configured
// in orval.config.mjs), polling the seat's view; then its record, fetched and imported back as it
// is. tests/contract/test_typescript_games.py generates generated/orval, compiles this with
// `tsc --strict` and runs it against a live service: THREE_THIRTEEN_URL is its base URL, which
// the generated functions read themselves.
import { applyAction, createGame, getGame, getGameRecord, importRecord } from "./generated/orval/api";
import type { GameView } from "./generated/orval/api";

/** Wait between two reads of the view while the bot plays. */
const pause = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));

async function play(gameId: string, token: string): Promise<void> {
  const seat = { headers: { Authorization: `Bearer ${token}` } };
  for (;;) {
    const read = await getGame(gameId, seat);
    if (read.status !== 200) throw new Error(`view: ${read.data.detail}`);
    let view: GameView = read.data;
    if (view.status === "finished") return;
    if (!view.legal || view.legal.length === 0) {
      await pause();
      continue;
    }
    while (view.status !== "finished" && view.legal && view.legal.length > 0) {
      const acted = await applyAction(gameId, view.legal[0], seat);
      if (acted.status !== 200) throw new Error(`action refused: ${acted.data.detail}`);
      view = acted.data;
    }
  }
}

async function main(): Promise<void> {
  const created = await createGame({ players: [{ name: "Ann" }, { bot: "easy" }] });
  if (created.status !== 201) throw new Error(`create: ${created.data.detail}`);
  const gameId = created.data.game_id;
  await play(gameId, created.data.seats[0].token);

  const record = await getGameRecord(gameId);
  if (record.status !== 200) throw new Error(`record: ${record.data.detail}`);
  const imported = await importRecord(record.data);
  if (imported.status !== 201) throw new Error(`import: ${imported.data.detail}`);
  console.log(`record ${imported.data.record_id} ${imported.data.status}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
