/**
 * Review 8 (second pass): the sweep and a pid taken by another program. A holder of this host
 * is judged by asking whether its pid is alive, "up to STALE_MS past its lease (a pid reused by
 * another program)" (holder.ts). Admission keeps that bound; the sweep does not: it asks
 * `holderDead({ holder, until: Infinity })`, so a killed run's row whose pid now belongs to
 * any live process (a long-lived daemon, a shell, the next container's start-up) stays
 * `in-flight` for ever: `nor log` cannot tell that crash from a request under way (P27), and
 * the night-end sweep never fixes it (only a later admission to that same site does).
 *
 * Failed on main (7aef13b): swept 0, the row stayed in-flight. Fixed on this branch: the sweep
 * judges a holder of this host by its site lease too, as it does another host's (a lease
 * that passed to someone else, or that ran out STALE_MS ago, is dead whatever the pid).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import type { SendIntent } from "../../src/net/journal.js";
import { openStore, type Store } from "../../src/store/db.js";
import { STALE_MS } from "../../src/store/holder.js";
import { REQUEST_LEASE_MS, SqlJournal } from "../../src/store/journal.js";

let store: Store | undefined;
let dir: string | undefined;
afterEach(async () => {
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  store = dir = undefined;
});

const T0 = Date.parse("2026-11-05T06:00:00Z");
const intent: SendIntent = {
  night: "2026-11-05",
  key: "agendas",
  method: "GET",
  url: "https://www.village.example.gov/agendas",
  site: "example.gov",
  origin: "https://www.village.example.gov",
  purpose: "page",
  gapMs: 2_000,
  replayAllowed: true,
};

it("P27: a killed run's row whose pid another live program now has is swept once its lease is stale", async () => {
  dir = mkdtempSync(join(tmpdir(), "nor-rev8b-sweep-"));
  store = await openStore({ kind: "sqlite", dir });
  const journal = new SqlJournal(store.db);
  // The killed run's pid now belongs to a live process that is not nor (here: our parent).
  const killed = `${hostname()}:${process.ppid}:killed01`;
  expect((await journal.admit(intent, killed, T0)).kind).toBe("go");
  // The night ends (or the next one starts) long after that lease ran out.
  const swept = await journal.sweep(T0 + REQUEST_LEASE_MS + STALE_MS + 60_000);
  const rows = await store.db.selectFrom("request_log").select("outcome").execute();
  expect({ swept, outcomes: rows.map((r) => r.outcome) }).toEqual({
    swept: 1,
    outcomes: ["interrupted"],
  });
});
