/**
 * Review 8 (second pass): a Retry-After too large for a date. RFC 9110 §10.2.3 delta-seconds
 * is any run of digits; the checker reads it as "no retry tonight" (P15, over 60 s) and holds
 * the whole site until then (the journal's `not_before`). The SQL journal writes that hold as
 * ISO text (`toIso`), and `new Date(ms).toISOString()` throws a RangeError past ±8.64e15 ms:
 * the completion throws, its row stays `in-flight` with the site's lease, and the error goes
 * up through `fetch` (in `nor night`: out of runLane, so the night stops).
 *
 * The site then sees what it asked not to see: the next request to it (another source, the
 * night restarted) goes 2 s later, and the same URL is asked again (an interrupted row counts as
 * a send, so up to three times a night).
 *
 * Failed on main (7aef13b): the first fetch rejected (RangeError: Invalid time value)
 * and /other was requested. Fixed here: the journal step's siteHold caps the hold at the date
 * the store can write (e.g. min(endedAt + ms, Date.UTC(9999, 11, 31))), which admission then
 * reads as "not tonight" like any hold over a day.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { openStore, type Store } from "../../src/store/db.js";
import { SqlJournal } from "../../src/store/journal.js";
import { type Harness, harness } from "../fleet/harness.js";
import { robots, status } from "../fleet/routes.js";

let h: Harness | undefined;
let store: Store | undefined;
let dir: string | undefined;
afterEach(async () => {
  await h?.close();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  h = store = dir = undefined;
});

it("P15: a 503 with Retry-After: 99999999999999999999 holds the site; nothing more is sent tonight", async () => {
  h = await harness({ gapMs: 50 });
  dir = mkdtempSync(join(tmpdir(), "nor-rev8b-ra-"));
  store = await openStore({ kind: "sqlite", dir });
  const s = await h.fleet.server();
  s.route("/robots.txt", robots(""));
  s.route("/busy", status(503, { "retry-after": "99999999999999999999" }));
  s.route("/other", status(200));
  const f = h.fetcher({ journal: new SqlJournal(store.db), night: "2026-11-05" });

  const first = await f.fetch({ url: s.url("/busy"), purpose: "page" }).then(
    (o) => o.kind,
    (err: unknown) => `threw: ${String(err)}`,
  );
  // Another source on the same site, and the same URL again (a restarted night).
  await f.fetch({ url: s.url("/other"), purpose: "page" }).catch(() => undefined);
  await f.fetch({ url: s.url("/busy"), purpose: "page" }).catch(() => undefined);
  const inFlight = await store.db
    .selectFrom("request_log")
    .select("url")
    .where("outcome", "in", ["in-flight", "interrupted"])
    .execute();
  expect({
    first,
    busy: s.hits("/busy").length,
    other: s.hits("/other").length,
    inFlightOrInterrupted: inFlight.length,
  }).toEqual({ first: "error", busy: 1, other: 0, inFlightOrInterrupted: 0 });
});
