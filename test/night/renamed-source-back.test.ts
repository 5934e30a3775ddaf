import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { newRecords } from "../../src/store/read/new-records.js";
import { createApp } from "../../src/web/app.js";
import { runMain } from "../cli/cli-capture.js";
import { rss } from "./cli-night.js";
import { nightOn, noRobots, testerCatalog, testerWorld } from "./tester-nights.js";

/**
 * P6 (review of O10): a source's id renamed and renamed back (A → B → A) is still the one
 * source: nothing first seen under B is new again under A, a person's mark on B holds under A,
 * and neither rename needs --allow-retire. A rename keeps each record's feed entry and calendar
 * event (their names say the source id the record was first listed under), and the renamed
 * source's page still says its list's last night (P23). Loopback feed, `nor night` in-process.
 */
const world = testerWorld("nor-renamed-back-");

function feedOf(n: () => number) {
  return (q: IncomingMessage, res: ServerResponse) => {
    const origin = `http://${q.headers.host ?? "127.0.0.1"}`;
    res.writeHead(200, { "content-type": "application/rss+xml" }).end(rss(origin, n()));
  };
}

const source = (id: string, url: string) => [
  `  - id: ${id}`,
  "    government: city-of-test",
  "    records: agendas",
  "    access: feed",
  `    url: ${url}`,
];

function newOn(data: string, night: string): Record<string, number> {
  const db = new Database(join(data, "nor.db"), { readonly: true });
  try {
    const rows = db
      .prepare("select source_id, new_records from night_sources where night = ?")
      .all(night) as { source_id: string; new_records: number }[];
    return Object.fromEntries(rows.map((r) => [r.source_id, r.new_records]));
  } finally {
    db.close();
  }
}

async function nightWith(catalog: string, data: string, date: string) {
  const r = await runMain([
    ...["night", "--catalog", catalog, "--data", data, "--night", date],
    ...["--allow-private-addresses", "--gap-ms", "50"],
  ]);
  expect(r.code, r.stderr).toBe(0);
  return r;
}

describe("a source renamed back, and its feeds", () => {
  it("P6, P7: renamed A → B → A, the record first new under B is not new again under A; renaming back needs no --allow-retire", async () => {
    const site = await world.fleet.server();
    let items = 3;
    site.route("/robots.txt", noRobots);
    site.route(
      "/agendas.rss",
      feedOf(() => items),
    );
    const url = site.url("/agendas.rss");
    const data = join(world.dir, "back");
    const a = testerCatalog(world.dir, "back-a", source("city-agendas", url));
    const b = testerCatalog(world.dir, "back-b", source("city-council-agendas", url));
    await nightOn(a, data, "2026-11-05");
    items = 4;
    await nightWith(b, data, "2026-11-06");
    expect(newOn(data, "2026-11-06")).toEqual({ "city-council-agendas": 1 });
    // The operator puts the old id back (a typo reverted). Nothing new on the feed.
    const imp = await runMain(["catalog", "import", a, "--data", data]);
    expect(imp.code, imp.stderr).toBe(0);
    expect(imp.stdout).toContain("> source city-council-agendas → city-agendas renamed");
    await nightWith(a, data, "2026-11-07");
    const store = await openStore({ kind: "sqlite", dir: data });
    try {
      const fresh = await newRecords(store.db, { from: "2026-11-05", to: "2026-11-07" }, {});
      // Item 4 was new once, on 11-06, and stays so (under the source's id now).
      expect(newOn(data, "2026-11-07")).toEqual({ "city-agendas": 0 });
      expect(fresh.items.map((r) => [r.sourceId, r.title, r.firstSeenNight])).toEqual([
        ["city-agendas", "Item agenda 4", "2026-11-06"],
      ]);
    } finally {
      await store.close();
    }
  }, 60_000);

  it("P24, P6: a person's 'not read' on the renamed id holds when the id is renamed back", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    site.route(
      "/agendas.rss",
      feedOf(() => 3),
    );
    const url = site.url("/agendas.rss");
    const data = join(world.dir, "mark-back");
    const a = testerCatalog(world.dir, "mb-a", source("city-agendas", url));
    const b = testerCatalog(world.dir, "mb-b", source("city-council-agendas", url));
    await nightOn(a, data, "2026-11-05");
    await nightWith(b, data, "2026-11-06");
    const m = await runMain([
      ...["mark", "city-council-agendas", "--data", data, "--not-read"],
      ...["--reason", "site asked us to stop", "--by", "op", "--night", "2026-11-06"],
    ]);
    expect(m.code, m.stderr).toBe(0);
    await nightWith(a, data, "2026-11-12");
    const db = new Database(join(data, "nor.db"), { readonly: true });
    try {
      const rows = db
        .prepare("select source_id, outcome from night_sources where night = '2026-11-12'")
        .all();
      // A person said not read; no person said read again.
      expect(rows).not.toContainEqual({ source_id: "city-agendas", outcome: "ok" });
      const marks = db
        .prepare("select reading from marks where source_id = 'city-agendas' order by at")
        .all() as { reading: number }[];
      expect(marks.map((r) => Number(r.reading))).toEqual([0]);
    } finally {
      db.close();
    }
  }, 60_000);

  it("P6, P23: a rename keeps each record's feed entry id and calendar event UID, and the source's page still says its last night", async () => {
    const site = await world.fleet.server();
    let items = 3;
    site.route("/robots.txt", noRobots);
    site.route(
      "/agendas.rss",
      feedOf(() => items),
    );
    const url = site.url("/agendas.rss");
    const data = join(world.dir, "feed");
    const a = testerCatalog(world.dir, "feed-a", source("city-agendas", url));
    const b = testerCatalog(world.dir, "feed-b", source("city-council-agendas", url));
    await nightOn(a, data, "2026-11-05");
    items = 4;
    await nightOn(a, data, "2026-11-06");
    const seen = async (id: string) => {
      const store = await openStore({ kind: "sqlite", dir: data });
      try {
        const app = createApp({
          db: store.db,
          now: () => Date.parse("2026-11-07T12:00:00Z"),
          origin: "https://example.test",
        });
        const res = await app.request("/new.json?window=7d");
        const body = (await res.json()) as { items: { id: string }[] };
        // The feed's items are dated 1–4 November: upcoming on the 31st of October.
        const early = createApp({
          db: store.db,
          now: () => Date.parse("2026-10-31T12:00:00Z"),
          origin: "https://example.test",
        });
        const ics = await (await early.request("/meetings.ics")).text();
        const gov = (await (await app.request("/api/governments/city-of-test")).json()) as {
          sources: { id: string; lastOutcome: { night?: string; kind?: string } | null }[];
        };
        return {
          ids: body.items.map((i) => i.id),
          uids: ics.split(/\r?\n/).filter((l) => l.startsWith("UID:")),
          last: gov.sources.find((s) => s.id === id)?.lastOutcome ?? null,
        };
      } finally {
        await store.close();
      }
    };
    const before = await seen("city-agendas");
    expect(before.ids.length).toBe(1);
    expect(before.last).not.toBeNull();
    expect(before.uids.length).toBe(4);
    const r = await runMain(["catalog", "import", b, "--data", data]);
    expect(r.code, r.stderr).toBe(0);
    const after = await seen("city-council-agendas");
    // The same one record, the same entry and event: a feed reader does not see it as new.
    expect(after.ids).toEqual(before.ids);
    expect(after.uids).toEqual(before.uids);
    // The old id's last night, said for the source it now is.
    expect(after.last).toEqual(before.last);
  }, 60_000);
});
