/**
 * Review 8: a restart that gets the dead process's pid back. Holders are `host:pid:random`;
 * on this host a holder is judged by asking whether its pid is alive, and a holder whose pid is
 * this process's own is always alive (store/holder.ts `if (pid === process.pid) return false`).
 * In a container the restarted `nor night` (or `nor start`'s night child) routinely has the
 * same hostname and the same pid as the one that was SIGKILLed (pid 1, or the same place in
 * the same start-up sequence). Then the killed run's leases look alive:
 * - its request rows stay `in-flight` after the restart's sweep (P27: `nor log` cannot tell
 *   the crash from a request under way);
 * - its site is not taken over: the restart waits "in flight" until the dead lease has run
 *   out plus STALE_MS (12 minutes), and its lanes likewise (11 minutes) (P13: time lost, sources
 *   left unreached).
 *
 * Failed on main at f6eaf40, ea58685, before the fix (it passes now). The fix suggested then: newHolderId registers the holders this
 * process made in a module-level set; a holder of this host with this pid that is not in the
 * set belongs to a dead earlier process with the same pid (holderDead → true). The same for
 * the archive's `.writer` files (a torn file of the killed run is never repaired while every
 * later process has the same pid).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import type { SendIntent } from "../../src/net/journal.js";
import { openStore, type Store } from "../../src/store/db.js";
import { SqlJournal } from "../../src/store/journal.js";

let store: Store | undefined;
let dir: string | undefined;
afterEach(async () => {
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  store = dir = undefined;
});

const T0 = Date.parse("2026-11-05T06:00:00Z");
const intent = (path: string): SendIntent => ({
  night: "2026-11-05",
  key: `GET ${path}`,
  method: "GET",
  url: `https://www.village.example.gov${path}`,
  site: "example.gov",
  origin: "https://www.village.example.gov",
  purpose: "page",
  gapMs: 2_000,
  replayAllowed: true,
});

it("P27, P9, P13: after a kill, a restart with the same host and pid sweeps the dead run's row and takes its site over", async () => {
  dir = mkdtempSync(join(tmpdir(), "nor-review8-pid-"));
  store = await openStore({ kind: "sqlite", dir });
  const journal = new SqlJournal(store.db);
  // The killed run: same host, same pid as this one, its own random part.
  const killed = `${hostname()}:${process.pid}:killed01`;
  const first = await journal.admit(intent("/agendas"), killed, T0);
  expect(first.kind).toBe("go");
  // The restart (a new holder of this host and pid), 5 s later.
  const restart = `${hostname()}:${process.pid}:restart1`;
  const swept = await journal.sweep(T0 + 5_000);
  const next = await journal.admit(intent("/bids"), restart, T0 + 5_000);
  const rows = await store.db.selectFrom("request_log").select(["url", "outcome"]).execute();
  expect({ swept, outcome: rows[0]?.outcome }).toEqual({ swept: 1, outcome: "interrupted" });
  // Taken over: the gap counts from now, so it waits the floor, not the dead lease.
  expect(next.kind === "wait" && next.why === "in flight").toBe(false);
});
