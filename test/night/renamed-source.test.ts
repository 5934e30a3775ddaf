import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { createApp } from "../../src/web/app.js";
import { runMain } from "../cli/cli-capture.js";
import { rss } from "./cli-night.js";
import { noRobots, outcomesOn, testerCatalog, testerWorld } from "./tester-nights.js";

/**
 * P6, P7, P24, P23 (outside tester O10, third design): an operator who renames a source's id in
 * the catalog (the same government, the same feed, read the same way) had the old id retired and
 * a new source added whose first read took every record for already listed: a record new that
 * night was never new on record. Now the import moves the old id's history to the new one.
 * Proved from real nights against a loopback feed, `nor night` and `nor catalog import`
 * in-process, and the directory as the public reads it.
 */
const world = testerWorld("nor-renamed-source-");

/** The feed's items 1…n at `scheme` (`n`, `scheme` read at each answer). */
function feedOf(n: () => number, scheme: () => string = () => "http") {
  return (q: IncomingMessage, res: ServerResponse) => {
    const origin = `${scheme()}://${q.headers.host ?? "127.0.0.1"}`;
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

/** `nor night` on `date`; its "catalog imported" JSON line, if any. */
async function nightSaying(catalog: string, data: string, date: string, extra: string[] = []) {
  const r = await runMain([
    ...["night", "--catalog", catalog, "--data", data, "--night", date],
    ...["--allow-private-addresses", "--gap-ms", "50", ...extra],
  ]);
  expect(r.code, r.stderr).toBe(0);
  return r.stderr
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((l) => l["msg"] === "catalog imported");
}

/** What the public directory lists on `now`: /new's feed ids, each source's page, counts. */
async function publicView(data: string, now: string, ids: readonly string[]) {
  const store = await openStore({ kind: "sqlite", dir: data });
  try {
    const app = createApp({ db: store.db, now: () => Date.parse(now), origin: "https://x.test" });
    const fresh = (await (await app.request("/new.json?window=30d")).json()) as {
      items: { id: string; title: string }[];
    };
    const pages: Record<string, string[]> = {};
    for (const id of ids) {
      const res = await app.request(`/api/sources/${id}`);
      const body = (await res.json()) as { newestRecords?: { title: string }[] };
      pages[id] = (body.newestRecords ?? []).map((r) => r.title);
    }
    const found = (await (await app.request("/api/search?q=agenda")).json()) as {
      records: { sourceId: string; title: string }[];
      recordTotal: number;
    };
    return {
      newIds: fresh.items.map((i) => i.id),
      newTitles: fresh.items.map((i) => i.title),
      pages,
      // Each record by its title (Item agenda N): listed twice would be twice here.
      searchIds: found.records.map((r) => r.title),
      searchSources: [...new Set(found.records.map((r) => r.sourceId))],
    };
  } finally {
    await store.close();
  }
}

const dupes = (xs: readonly string[]) => xs.filter((x, i) => xs.indexOf(x) !== i);

describe("a source renamed in the catalog: its history moved to the new id", () => {
  it("P6, P7: A reads 3; renamed to B, the feed shows 4: exactly the 4th is new, no record listed twice, feed entry ids unchanged; renamed back, nothing new twice", async () => {
    const site = await world.fleet.server();
    let items = 3;
    site.route("/robots.txt", noRobots);
    site.route(
      "/agendas.rss",
      feedOf(() => items),
    );
    const url = site.url("/agendas.rss");
    const data = join(world.dir, "renamed");
    const a = testerCatalog(world.dir, "a", source("city-agendas", url));
    const b = testerCatalog(world.dir, "b", source("city-council-agendas", url));
    await nightSaying(a, data, "2026-11-05");
    items = 4;
    await nightSaying(a, data, "2026-11-06");
    expect(newOn(data, "2026-11-06")).toEqual({ "city-agendas": 1 });
    const before = await publicView(data, "2026-11-07T12:00:00Z", ["city-agendas"]);
    expect(before.newTitles).toEqual(["Item agenda 4"]);

    // The operator renames the id (no --allow-retire: one of one source); the feed adds one.
    items = 5;
    const said = await nightSaying(b, data, "2026-11-07");
    expect(said).toMatchObject({
      sources: { added: 0, retired: 0, renamed: 1 },
      retired: [],
      renamed: [{ from: "city-agendas", to: "city-council-agendas" }],
    });
    expect(said?.["sameAddress"]).toBeUndefined();
    expect(outcomesOn(data, "2026-11-07")["city-council-agendas"]?.outcome).toBe("ok");
    expect(newOn(data, "2026-11-07")).toEqual({ "city-council-agendas": 1 });
    const after = await publicView(data, "2026-11-08T12:00:00Z", [
      "city-agendas",
      "city-council-agendas",
    ]);
    // Exactly the 5th is new tonight; the 4th still new once, under its old entry id.
    expect(after.newTitles).toEqual(["Item agenda 5", "Item agenda 4"]);
    expect(after.newIds[1]).toBe(before.newIds[0]);
    expect(dupes(after.newIds)).toEqual([]);
    expect(dupes(after.searchIds)).toEqual([]);
    expect(after.searchIds.length).toBe(5);
    expect(after.searchSources).toEqual(["city-council-agendas"]);
    expect(after.pages["city-agendas"]).toEqual([]);
    expect(after.pages["city-council-agendas"]?.length).toBe(5);

    // Renamed back: nothing new, nothing twice, the ids as they were.
    const imp = await runMain(["catalog", "import", a, "--data", data]);
    expect(imp.code, imp.stderr).toBe(0);
    expect(imp.stdout).toContain(
      "sources: 0 added, 0 changed, 0 retired, 0 un-retired, 1 renamed\n",
    );
    expect(imp.stdout).toContain(
      "> source city-council-agendas → city-agendas renamed (history moved)\n",
    );
    await nightSaying(a, data, "2026-11-08");
    expect(newOn(data, "2026-11-08")).toEqual({ "city-agendas": 0 });
    const back = await publicView(data, "2026-11-08T12:00:00Z", [
      "city-agendas",
      "city-council-agendas",
    ]);
    expect(back.newIds).toEqual(after.newIds);
    expect(back.pages["city-agendas"]?.length).toBe(5);
    expect(back.pages["city-council-agendas"]).toEqual([]);
    expect(dupes(back.searchIds)).toEqual([]);
  }, 60_000);

  it("P24, P6: a person's 'not read' on A holds on B: B is not read", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    site.route(
      "/agendas.rss",
      feedOf(() => 3),
    );
    const url = site.url("/agendas.rss");
    const data = join(world.dir, "mark");
    const a = testerCatalog(world.dir, "m-a", source("city-agendas", url));
    const b = testerCatalog(world.dir, "m-b", source("city-council-agendas", url));
    await nightSaying(a, data, "2026-11-05");
    const m = await runMain([
      ...["mark", "city-agendas", "--data", data, "--not-read"],
      ...["--reason", "site asked us to stop", "--by", "op", "--night", "2026-11-05"],
    ]);
    expect(m.code, m.stderr).toBe(0);
    await nightSaying(b, data, "2026-11-12");
    const outcome = outcomesOn(data, "2026-11-12")["city-council-agendas"]?.outcome;
    expect(outcome).not.toBe("ok");
    const db = new Database(join(data, "nor.db"), { readonly: true });
    try {
      const marks = db.prepare("select source_id, reading from marks order by at").all();
      expect(marks).toEqual([{ source_id: "city-council-agendas", reading: 0 }]);
    } finally {
      db.close();
    }
  }, 60_000);

  it("P6: a site moved to https while the id was renamed, then renamed back: each record once, nothing new", async () => {
    const site = await world.fleet.server();
    let scheme = "http";
    site.route("/robots.txt", noRobots);
    site.route(
      "/agendas.rss",
      feedOf(
        () => 3,
        () => scheme,
      ),
    );
    const url = site.url("/agendas.rss");
    const data = join(world.dir, "https");
    const a = testerCatalog(world.dir, "h-a", source("city-agendas", url));
    const b = testerCatalog(world.dir, "h-b", source("city-council-agendas", url));
    await nightSaying(a, data, "2026-11-05");
    await nightSaying(b, data, "2026-11-06");
    scheme = "https";
    await nightSaying(b, data, "2026-11-07");
    expect(newOn(data, "2026-11-07")).toEqual({ "city-council-agendas": 0 });
    await nightSaying(a, data, "2026-11-08");
    expect(newOn(data, "2026-11-08")).toEqual({ "city-agendas": 0 });
    const v = await publicView(data, "2026-11-08T12:00:00Z", [
      "city-agendas",
      "city-council-agendas",
    ]);
    expect(v.pages["city-agendas"]?.length).toBe(3);
    expect(v.pages["city-council-agendas"]).toEqual([]);
    expect(v.newIds).toEqual([]);
    expect(dupes(v.searchIds)).toEqual([]);
    expect(v.searchIds.length).toBe(3);
    expect(v.searchSources).toEqual(["city-agendas"]);
  }, 60_000);

  it("P6, P7: ambiguous renames pair nothing: two retired and one added, one retired and two added", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    site.route(
      "/agendas.rss",
      feedOf(() => 3),
    );
    const url = site.url("/agendas.rss");
    const data = join(world.dir, "ambiguous");
    const two = testerCatalog(world.dir, "amb-two", [
      ...source("agendas-a", url),
      ...source("agendas-b", url),
    ]);
    await nightSaying(two, data, "2026-11-05");
    const one = testerCatalog(world.dir, "amb-one", source("agendas-c", url));
    const said = await nightSaying(one, data, "2026-11-06", ["--allow-retire"]);
    expect(said).toMatchObject({ sources: { added: 1, retired: 2, renamed: 0 } });
    expect(said?.["renamed"]).toBeUndefined();
    // As before: a source of its own, read for the first time, none new; the warning said.
    expect(newOn(data, "2026-11-06")).toEqual({ "agendas-c": 0 });
    const twoAgain = testerCatalog(world.dir, "amb-two-again", [
      ...source("agendas-d", url),
      ...source("agendas-e", url),
    ]);
    const said2 = await nightSaying(twoAgain, data, "2026-11-07", ["--allow-retire"]);
    expect(said2).toMatchObject({ sources: { added: 2, retired: 1, renamed: 0 } });
    expect(said2?.["sameAddress"]).toBeDefined();
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
    await nightSaying(a, data, "2026-11-05");
    items = 4;
    await nightSaying(a, data, "2026-11-06");
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
    // The same one record, the same entry and events: a feed reader does not see it as new.
    expect(after.ids).toEqual(before.ids);
    expect(after.uids).toEqual(before.uids);
    // The list's last night, now the renamed source's own.
    expect(after.last).toEqual(before.last);
  }, 60_000);
});
