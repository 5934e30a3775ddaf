import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { createApp } from "../../src/web/app.js";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { nightCli, rss, writeCatalog } from "./cli-night.js";

/**
 * P20, P23: the checker's own outage is not a site's no. A real `nor night` whose sources
 * point at names that never resolve (`.invalid`, RFC 6761 §6.4) or are pinned to loopback
 * addresses where nothing listens (connection refused) records the night as `checker-offline`,
 * raises no flag and exits 1; one such site among healthy ones stays that site's problem.
 */
const NIGHT = "2026-11-05";
const EARLIER = ["2026-11-03", "2026-11-04"];

const feed = (id: string, url: string) => [
  `id: ${id}`,
  "government: village-of-test",
  "records: agendas",
  "access: feed",
  `url: ${url}`,
];

function rows(dir: string, q: string, ...args: unknown[]): Record<string, unknown>[] {
  const db = new Database(join(dir, "nor.db"), { readonly: true });
  try {
    return db.prepare(q).all(...args) as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

/** A loopback port nobody listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

function healthy(site: FleetServer, paths: string[]): void {
  site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
  for (const p of paths)
    site.route(
      p,
      (_q, res) =>
        void res
          .writeHead(200, { "content-type": "application/rss+xml" })
          .end(rss(site.origin, 2, p.slice(1, -4))),
    );
}

describe("P20, P23: the checker's own outage", () => {
  let fleet: Fleet;
  const good: FleetServer[] = [];
  let canarySite: FleetServer;
  const dirs: string[] = [];
  const tmp = () => {
    const d = mkdtempSync(join(tmpdir(), "nor-offline-"));
    dirs.push(d);
    return d;
  };

  beforeAll(async () => {
    fleet = await startFleet();
    for (const n of [1, 2, 3, 4]) {
      const s = await fleet.server({ host: `127.0.0.${160 + n}` });
      healthy(s, ["/feed.rss"]);
      good.push(s);
    }
    canarySite = await fleet.server({ host: "127.0.0.170" });
    healthy(canarySite, []);
    canarySite.route("/", (_q, res) => void res.writeHead(200).end("here"));
  }, 60_000);

  afterAll(async () => {
    await fleet?.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("P20, P23: when most sites fail to resolve or connect, the night is checker-offline: no site's no, no flag, exit 1, and the source page says it was the checker's problem", async () => {
    const dir = tmp();
    const port = await closedPort();
    const refused = [1, 2, 3].map((n) => `clerk.town-${n}.test`);
    const catalog = writeCatalog(dir, [
      feed("v1-a", "http://www.village-1.invalid/a.rss"),
      feed("v1-b", "http://www.village-1.invalid/b.rss"),
      feed("v2", "http://www.village-2.invalid/feed.rss"),
      feed("v3", "http://www.village-3.invalid/feed.rss"),
      ...refused.map((h, i) => feed(`t${i + 1}`, `http://${h}:${port}/feed.rss`)),
    ]);
    const ids = ["t1", "t2", "t3", "v1-a", "v1-b", "v2", "v3"];
    // Two earlier nights on which each source's robots.txt was really unreachable (P20's
    // no): a third no tonight would raise "a no on 3 nights in a row" (P24).
    const store = await openStore({ kind: "sqlite", dir });
    const ns = new SqlNightStore(store.db);
    for (const night of EARLIER) {
      const at = Date.parse(`${night}T23:00:00Z`);
      for (const id of ids)
        await ns.commit(night, {
          sourceId: id,
          outcome: { kind: "robots-unavailable", reason: "HTTP 503" },
          records: [],
          validators: [],
          flags: [],
          startedAt: at,
          endedAt: at,
        });
    }
    await store.close();

    const pins = refused.flatMap((h, i) => ["--resolve", `${h}:${port}:127.0.0.${231 + i}`]);
    const r = await nightCli(catalog, dir, NIGHT, pins);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toMatch(
      /the checker could not reach the internet: (\d) of \1 sites failed with DNS\/connect errors; nothing was judged about them \(7 sources recorded as checker-offline\)/,
    );
    const done = JSON.parse(
      r.stderr
        .trim()
        .split("\n")
        .find((l) => l.includes('"night done"')) ?? "{}",
    ) as Record<string, unknown>;
    expect(done["checkerOffline"]).toBe(true);
    expect(done["outcomes"]).toEqual({ "checker-offline": 7 });

    const outcomes = rows(
      dir,
      "select source_id, outcome, reason from night_sources where night = ? order by source_id",
      NIGHT,
    );
    expect(outcomes.map((o) => [o["source_id"], o["outcome"]])).toEqual(
      ids.map((id) => [id, "checker-offline"]),
    );
    for (const o of outcomes)
      expect(String(o["reason"])).toContain("the checker could not reach the internet");
    // What the sites seemed to say is kept in the words: names that did not resolve, refused.
    expect(outcomes.some((o) => /ENOTFOUND|EAI_AGAIN|dns:/.test(String(o["reason"])))).toBe(true);
    expect(outcomes.some((o) => /ECONNREFUSED|refused:/.test(String(o["reason"])))).toBe(true);
    expect(rows(dir, "select kind, source_id from flags")).toEqual([]);

    // The directory: the checker's own problem, not "the site said no".
    const web = await openStore({ kind: "sqlite", dir });
    try {
      const app = createApp({ db: web.db, now: () => Date.parse("2026-11-06T15:00:00Z") });
      const res = await app.request("/sources/v2");
      expect(res.status).toBe(200);
      const $ = load(await res.text());
      expect($("section.last-no").length).toBe(0);
      const note = $("section.checker-offline");
      expect(note.text()).toContain(
        "The night of Nov 5, the checker itself could not reach the internet.",
      );
      expect(note.text()).toContain("That was the checker's own problem, not this site's");
      const cell = $(`.strip svg a[data-night='${NIGHT}']`);
      expect(cell.find("rect").attr("class")).toBe("fill-offline");
      expect(cell.find("title").text()).toMatch(/^Nov 5: checker offline/);
      expect($(`tr#night-${NIGHT} .status`).text()).toBe(
        "checker offline (it could not reach the internet)",
      );
      // The earlier nights were the site's own no, and still read so.
      expect($("tr#night-2026-11-04 .status").text()).toBe("no: robots.txt unavailable");
      // The night itself: not "nothing new was seen", but the checker's own outage.
      const nw = load(await (await app.request(`/new?night=${NIGHT}`)).text());
      expect(nw(`.night-notes li[data-night='${NIGHT}']`).attr("data-state")).toBe(
        "checker-offline",
      );
      expect(nw(".night-notes").text()).toContain(
        "On the night of Nov 5 the checker could not reach the internet: 7 pages were not checked",
      );
    } finally {
      await web.close();
    }
  }, 90_000);

  it("P20: one site whose name does not resolve among healthy ones is still that site's no", async () => {
    const dir = tmp();
    const catalog = writeCatalog(dir, [
      ...good.map((s, i) => feed(`ok${i + 1}`, s.url("/feed.rss"))),
      feed("gone", "http://www.no-such-village.invalid/feed.rss"),
    ]);
    const r = await nightCli(catalog, dir, NIGHT);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain("could not reach the internet");
    const outcomes = rows(
      dir,
      "select source_id, outcome, reason from night_sources where night = ? order by source_id",
      NIGHT,
    );
    expect(outcomes.map((o) => [o["source_id"], o["outcome"]])).toEqual([
      ["gone", "robots-unavailable"],
      ["ok1", "ok"],
      ["ok2", "ok"],
      ["ok3", "ok"],
      ["ok4", "ok"],
    ]);
    expect(String(outcomes[0]?.["reason"])).toMatch(/no-such-village\.invalid.*(ENOTFOUND|EAI_)/);
  }, 90_000);

  it("P20, P23: a canary that gets no answer stops the night before any site is asked", async () => {
    const dir = tmp();
    const catalog = writeCatalog(
      dir,
      good.map((s, i) => feed(`ok${i + 1}`, s.url("/feed.rss"))),
    );
    const before = fleet.requests.length;
    const r = await nightCli(catalog, dir, NIGHT, ["--canary", "http://canary.invalid/"]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(
      "the checker could not reach the internet: the canary http://canary.invalid/ failed",
    );
    expect(fleet.requests.length - before).toBe(0);
    const outcomes = rows(dir, "select outcome from night_sources where night = ?", NIGHT);
    expect(outcomes.map((o) => o["outcome"])).toEqual(Array(4).fill("checker-offline"));
  }, 90_000);

  it("P20: a canary that answers is asked like any page (robots.txt first, our User-Agent) and the night goes on", async () => {
    const dir = tmp();
    const catalog = writeCatalog(dir, [feed("ok1", good[0]?.url("/feed.rss") ?? "")]);
    const r = await nightCli(catalog, dir, NIGHT, ["--canary", canarySite.url("/")]);
    expect(r.code, r.stderr).toBe(0);
    expect(canarySite.requests.map((q) => `${q.method} ${q.path}`)).toEqual([
      "GET /robots.txt",
      "GET /",
    ]);
    expect(String(canarySite.requests[1]?.headers["user-agent"])).toMatch(
      /^public-records-check\//,
    );
    const logged = rows(dir, "select purpose from request_log where url = ?", canarySite.url("/"));
    expect(logged.map((l) => l["purpose"])).toEqual(["canary"]);
    expect(rows(dir, "select outcome from night_sources where night = ?", NIGHT)).toEqual([
      { outcome: "ok" },
    ]);
  }, 90_000);
});
