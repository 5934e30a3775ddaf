/**
 * Review 8 (second pass): a Retry-After on a redirect. RFC 9110 §10.2.3: "When sent with any
 * 3xx (Redirection) response, Retry-After indicates the minimum time that the user agent is
 * asked to wait before issuing the redirected request." That is the site's wish: the wait comes
 * before the follow-up request (P15). The journal step holds the site
 * for a Retry-After on a 429 or a 5xx (siteHold); on a 3xx it is dropped, and the redirect is
 * followed after the 2 s floor. A site in maintenance that answers `302 Location: /notice`
 * with `Retry-After: 30` sees /notice asked 2 s later.
 *
 * Virtual time (waits cost nothing), the production SQL journal on SQLite.
 *
 * Failed on main at 7aef13b, before the fix (it passes now): /notice starts about 2 s after /agendas ended.
 * Suggested fix: siteHold also for 3xx (the site waits until then), and the redirects step
 * (or the hop's admission) waits a redirect's Retry-After before the hop when it leaves for
 * another site; over 60 s, the P15 rule: the hop is not followed tonight.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { openStore, type Store } from "../../src/store/db.js";
import { SqlJournal } from "../../src/store/journal.js";
import { type Harness, harness } from "../fleet/harness.js";
import { html, robots } from "../fleet/routes.js";

let h: Harness | undefined;
let store: Store | undefined;
let dir: string | undefined;
afterEach(async () => {
  await h?.close();
  await store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
  h = store = dir = undefined;
});

it("P15, P10: a 302 with Retry-After: 30 is followed no sooner than 30 s after it", async () => {
  h = await harness();
  dir = mkdtempSync(join(tmpdir(), "nor-rev8b-ra3xx-"));
  store = await openStore({ kind: "sqlite", dir });
  const s = await h.fleet.server();
  s.route("/robots.txt", robots(""));
  s.route("/agendas", (_q, res) => {
    res.writeHead(302, { location: "/notice", "retry-after": "30" });
    res.end();
  });
  s.route("/notice", html("<p>Down for maintenance</p>"));
  const f = h.fetcher({ journal: new SqlJournal(store.db), night: "2026-11-05" });
  await f.fetch({ url: s.url("/agendas"), purpose: "page" });
  const redirect = s.hits("/agendas")[0];
  const followed = s.hits("/notice")[0];
  expect(redirect && followed).toBeTruthy();
  const waitedMs = (followed?.startedAt ?? 0) - (redirect?.endedAt ?? 0);
  expect(waitedMs).toBeGreaterThanOrEqual(30_000);
});
