/**
 * Review 8 (second pass): a Retry-After written as an HTTP-date by a server whose clock is
 * behind. A site answers 503 with `Date: <its now>` and `Retry-After: <its now + 30 s>`: it asks
 * for 30 s. The checker reads the date against its own clock only (policy/retry.ts: "a date in
 * the past means now"), so when the server's clock is an hour behind, the wait it asked for is
 * read as none, and the retry goes after the 2 s floor: sooner than asked (P15: "it never comes
 * back sooner than asked"; the spec decides silent places on the stricter side). A server
 * whose clock is ahead gets a longer wait than it asked for, which is harmless.
 *
 * Virtual time; the fleet server's clock runs an hour behind the checker's.
 *
 * Failed on main at 612669d, before the fix (it passes now): the retry starts 2 s after the 503. Suggested fix: when
 * the answer carries a readable Date, read an HTTP-date Retry-After as the longer of
 * (date − our now) and (date − the server's Date), i.e. pass min(now, Date) as the `now` of
 * readRetryAfter in classify (the retry) and in the journal step (the site's hold), trusting
 * a Date only within a day of ours (a Date of 1970 must not hold a site for decades).
 */
import { afterEach, expect, it } from "vitest";
import { type Harness, harness } from "../fleet/harness.js";
import { html, robots } from "../fleet/routes.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

it("P15: a Retry-After date 30 s after the server's own Date is waited 30 s, whatever the server's clock says", async () => {
  h = await harness();
  const clock = h.clock;
  const behind = 60 * 60_000;
  const s = await h.fleet.server();
  s.route("/robots.txt", robots(""));
  s.route("/busy", (_q, res, ctx) => {
    if (ctx.count > 1) return void html("<p>back</p>")(_q, res, ctx);
    const serverNow = clock.now() - behind;
    res.writeHead(503, {
      date: new Date(serverNow).toUTCString(),
      "retry-after": new Date(serverNow + 30_000).toUTCString(),
    });
    res.end("busy");
  });
  const f = h.fetcher();
  const o = await f.fetch({ url: s.url("/busy"), purpose: "page" });
  expect(o.kind).toBe("ok");
  const [first, retry] = s.hits("/busy");
  expect(first && retry).toBeTruthy();
  // The date has whole seconds: the server asked for 29-30 s.
  expect((retry?.startedAt ?? 0) - (first?.endedAt ?? 0)).toBeGreaterThanOrEqual(29_000);
});
