/**
 * Adversarial review of the write-ahead journal (commit 40eb45d). Each test is a defect seen
 * from the servers' side (loopback fleet, virtual time, no wall-time assertion) and fails
 * until the defect is fixed. Processes are simulated as separate store connections and
 * fetchers over one SQLite file (what a restart or a second `nor` command is).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import { CounterIds, randomIds } from "../../src/ids.js";
import { createFetcher, type PoliteFetcher } from "../../src/net/fetcher.js";
import { requestKey } from "../../src/net/journal.js";
import type { ArchivePort } from "../../src/net/types.js";
import { discover } from "../../src/night/discover.js";
import { openStore, type Store } from "../../src/store/db.js";
import { REQUEST_LEASE_MS, SqlJournal } from "../../src/store/journal.js";
import { SqlRequestLog } from "../../src/store/request-log.js";
import { SqlRobotsCache } from "../../src/store/robots-cache.js";
import { type Fleet, type Handler, startFleet } from "../fleet/fleet.js";
import { gaps } from "../fleet/gaps.js";
import { html, robots, status } from "../fleet/routes.js";

let fleet: Fleet | undefined;
let dir: string | undefined;
const stores: Store[] = [];
const fetchers: PoliteFetcher[] = [];
const stops: (() => void)[] = [];

afterEach(async () => {
  for (const s of stops.splice(0)) s();
  for (const f of fetchers.splice(0)) await f.close();
  await fleet?.close();
  fleet = undefined;
  for (const s of stores.splice(0)) await s.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Steps a ManualClock whenever someone sleeps on it and the real world is quiet a moment. */
function drive(clock: ManualClock): void {
  let running = true;
  const loop = async () => {
    for (let i = 0; running && i < 200_000; i++) {
      await new Promise((r) => setTimeout(r, 2));
      if (clock.pending > 0) {
        await new Promise((r) => setTimeout(r, 2));
        if (clock.pending > 0) await clock.step();
      }
    }
  };
  void loop();
  stops.push(() => {
    running = false;
  });
}

async function waitUntil(cond: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 3000 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  if (!cond()) throw new Error(`timed out waiting for ${what}`);
}

/** One "process": its own store connection, journal and fetcher over the shared SQLite file. */
async function proc(
  clock: ManualClock,
  extra: Partial<Parameters<typeof createFetcher>[0]> = {},
): Promise<{ f: PoliteFetcher; store: Store }> {
  const store = await openStore({ kind: "sqlite", dir: dir as string });
  stores.push(store);
  const f = createFetcher({
    clock,
    ids: randomIds,
    journal: new SqlJournal(store.db),
    robotsCache: new SqlRobotsCache(store.db),
    ...extra,
    transportOptions: { allowPrivateAddresses: true },
  });
  fetchers.push(f);
  return { f, store };
}

async function setup(clock: ManualClock) {
  fleet = await startFleet({ now: () => clock.now() });
  dir = await mkdtemp(join(tmpdir(), "nor-review-"));
  const s = await fleet.server();
  s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
  return s;
}

it("P13: no request starts after the night's deadline, even when the site's gap ran out before it", async () => {
  const clock = new ManualClock();
  drive(clock);
  const s = await setup(clock);
  s.route("/a", html("a"));
  s.route("/b", html("b"));
  const deadline = clock.now() + 60_000;
  const { f } = await proc(clock, { deadline, night: "2026-11-05" });
  expect((await f.fetch({ url: s.url("/a"), purpose: "page" })).kind).toBe("ok");
  // A long extraction, a slow form, a backfill: the night's limit passes mid-source.
  await clock.advance(3_600_000);
  const late = await f.fetch({ url: s.url("/b"), purpose: "backfill" });
  expect(late.kind).toBe("deadline");
  expect(s.hits("/b")).toHaveLength(0);
});

it("P9: a request whose lease runs out while its body is still arriving keeps its site; a second process does not send alongside it", async () => {
  const clock = new ManualClock();
  drive(clock);
  const s = await setup(clock);
  let open = 0;
  let most = 0;
  let release!: () => void;
  const released = new Promise<void>((r) => {
    release = r;
  });
  const counted =
    (h: Handler): Handler =>
    (req, res, ctx) => {
      open++;
      most = Math.max(most, open);
      res.once("close", () => open--);
      return h(req, res, ctx);
    };
  // A slow but live server: headers at once, the body in pieces (never 30 s of silence).
  s.route(
    "/slow",
    counted(async (_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.write("<p>");
      await released;
      res.end("done</p>");
    }),
  );
  s.route("/other", counted(html("other")));
  const a = await proc(clock);
  const b = await proc(clock);
  const slow = a.f.fetch({ url: s.url("/slow"), purpose: "page" });
  await waitUntil(() => s.hits("/slow").length === 1, "the slow request");
  // The other process polls the lease; virtual time reaches the lease's end meanwhile, and it
  // is watched for 200 more polls (it asks again at each; nothing needs more real time).
  const other = b.f.fetch({ url: s.url("/other"), purpose: "page" });
  const leaseRan = () => clock.now() - s.hits("/slow")[0]!.startedAt >= REQUEST_LEASE_MS;
  let after = 0;
  for (let i = 0; i < 3000 && s.hits("/other").length === 0 && after < 200; i++) {
    await new Promise((r) => setTimeout(r, 2));
    if (leaseRan()) after++;
  }
  expect(leaseRan()).toBe(true);
  // One SQLite connection at a time in this test process (better-sqlite3 blocks its thread).
  if (s.hits("/other").length > 0) await other;
  release();
  await slow;
  await other;
  expect(most).toBe(1);
});

it("P10: when archiving an answer fails, the site's end is still recorded and the next request waits the gap", async () => {
  const clock = new ManualClock();
  drive(clock);
  const s = await setup(clock);
  s.route("/a", html("a"));
  s.route("/b", html("b"));
  let writes = 0;
  const archive: ArchivePort = {
    write: async () => {
      writes++;
      if (writes === 2) throw new Error("ENOSPC: no space left on device");
    },
  };
  const { f, store } = await proc(clock, { archive });
  // robots.txt is archived (write 1); /a's answer fails to archive (write 2).
  await f.fetch({ url: s.url("/a"), purpose: "page" }).catch(() => undefined);
  expect(s.hits("/a")).toHaveLength(1);
  await f.fetch({ url: s.url("/b"), purpose: "page" });
  expect(s.hits("/b")).toHaveLength(1);
  // The site owner's log: /b started no sooner than 2 s after /a ended.
  const g = gaps(s.requests);
  expect(g[g.length - 1]).toBeGreaterThanOrEqual(2000);
  // P27: and /a's row says how it ended, not "in-flight" forever.
  const log = await new SqlRequestLog(store.db).query({});
  expect(log.filter((e) => e.outcome === "in-flight")).toEqual([]);
});

it("P21: a no said tonight still holds for `nor discover` run after midnight while the night goes on", async () => {
  // 23:00 in New York on Nov 5: the night "2026-11-05" is under way.
  const clock = new ManualClock(Date.UTC(2026, 10, 6, 4, 0, 0));
  drive(clock);
  const s = await setup(clock);
  s.route("/list", status(403));
  s.route("/", html("<a href='/feed.xml'>feed</a>"));
  const night = await proc(clock, { night: "2026-11-05", deadline: clock.now() + 6 * 3600_000 });
  // As \`nor night\` opens it: the night's row says it is under way until its deadline.
  await night.store.db
    .insertInto("nights")
    .values({
      night: "2026-11-05",
      started_at: new Date(clock.now() - 3 * 3600_000).toISOString(),
      deadline_at: new Date(clock.now() + 3 * 3600_000).toISOString(),
      finished_at: null,
      runs: 1,
    })
    .execute();
  const out = await night.f.fetch({ url: s.url("/list"), purpose: "page", source: "s1" });
  expect(out.kind).toBe("refused");
  // 01:00 on Nov 6, same night (its deadline is 05:00): the operator runs discover there.
  await clock.advance(2 * 3600_000);
  const store = await openStore({ kind: "sqlite", dir: dir as string });
  stores.push(store);
  const found = await discover(store, s.url("/"), {
    clock,
    ids: new CounterIds(),
    allowPrivateAddresses: true,
  });
  expect(found.kind).toBe("not-read");
  expect(s.hits("/")).toHaveLength(0);
});

it("P15, P8: a restart does not reset a URL's retries or ask a received answer again because a replayed redirect lost its Set-Cookie", async () => {
  const clock = new ManualClock();
  drive(clock);
  const s = await setup(clock);
  // A session redirect (a common municipal CMS pattern), then a list that keeps failing.
  s.route("/start", (_req, res) => {
    res.writeHead(302, { location: "/list", "set-cookie": "sid=abc; Path=/" }).end();
  });
  s.route("/list", status(500));
  const { SourceCookieJar } = await import("../../src/net/cookie-jar.js");
  const first = await proc(clock, { night: "2026-11-05" });
  const out1 = await first.f.fetch({
    url: s.url("/start"),
    purpose: "page",
    source: "s1",
    cookieJar: new SourceCookieJar(clock),
  });
  expect(out1.kind).not.toBe("ok");
  expect(s.hits("/list")).toHaveLength(3);
  // The process dies before the source's result is committed; the night resumes it.
  const second = await proc(clock, { night: "2026-11-05" });
  await second.f.fetch({
    url: s.url("/start"),
    purpose: "page",
    source: "s1",
    cookieJar: new SourceCookieJar(clock),
  });
  // /start was replayed (not asked again); /list must not get three fresh attempts.
  expect(s.hits("/start")).toHaveLength(1);
  expect(s.hits("/list")).toHaveLength(3);
});

it("P8, P15: two different requests never share a journal key (a body with a newline is not a header)", () => {
  const url = "http://127.0.0.2/search";
  const a = requestKey({ method: "POST", url, body: "q=1\nx-a:1" });
  const b = requestKey({ method: "POST", url, body: "q=1" });
  expect(a).not.toBe(b);
});
