/**
 * Review 8: P15 "at most twice more", per URL per night (the journal keeps "per URL tonight:
 * attempts used"). The journal counts attempts per request key, and the key holds every
 * header sent, Accept included. Two ways in that reach one URL with different Accept headers
 * (a feed way and a page way of one source, two sources on one vendor, or every source of a
 * site redirected to one maintenance page answering 503) each get three attempts: the site
 * sees the same failing URL asked six times in one night.
 *
 * Virtual time (the P15 waits cost nothing), the production SQL journal on SQLite.
 *
 * Failed on main at f6eaf40, ea58685, before the fix (it passes now): six GETs of /down. Suggested fix: count attempts (and
 * `exhausted`) by method + URL + body, keep the full key only for replaying a final answer.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { MAX_RETRIES } from "../../src/policy/constants.js";
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

it("P15: a URL answering 500 is asked at most 1 + 2 times a night, whatever Accept each way sends", async () => {
  h = await harness({ gapMs: 50 });
  dir = mkdtempSync(join(tmpdir(), "nor-review8-budget-"));
  store = await openStore({ kind: "sqlite", dir });
  const s = await h.fleet.server();
  s.route("/robots.txt", robots(""));
  s.route("/down", status(500));
  const f = h.fetcher({ journal: new SqlJournal(store.db), night: "2026-11-05" });
  const feed = await f.fetch({
    url: s.url("/down"),
    purpose: "page",
    accept: "application/rss+xml, application/xml;q=0.9",
  });
  expect(feed.kind).toBe("error");
  expect(s.hits("/down")).toHaveLength(1 + MAX_RETRIES);
  const page = await f.fetch({ url: s.url("/down"), purpose: "page", accept: "text/html" });
  expect(page.kind).toBe("error");
  expect(s.hits("/down")).toHaveLength(1 + MAX_RETRIES);
});
