import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { newRecords } from "../../src/store/read/new-records.js";
import { runMain } from "../cli/cli-capture.js";
import { rss } from "./cli-night.js";
import { nightOn, noRobots, outcomesOn, testerCatalog, testerWorld } from "./tester-nights.js";

/**
 * P6, P7 (outside tester O10): an operator who renames a source's id in the catalog (the same
 * government, the same feed, read the same way) got the old id retired and a new source added,
 * whose first read took every record on the feed for already listed: a record new that night
 * was never new on record, and the import said nothing of it. Proved from real nights against a
 * loopback feed: the renamed source goes on with the old one's history, and says new exactly
 * what is new; two sources that read one feed pair with nothing.
 */
const world = testerWorld("nor-renamed-source-");

/** The feed's items 1…n, as the site lists them now (`n` read at each answer). */
function feedOf(n: () => number) {
  return (_q: IncomingMessage, res: ServerResponse) => {
    const origin = `http://${_q.headers.host ?? "127.0.0.1"}`;
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

interface StoredRecord {
  source_id: string;
  record_id: string;
  first_seen_night: string;
  already_listed: number;
}

function recordsOn(data: string, night: string): StoredRecord[] {
  const db = new Database(join(data, "nor.db"), { readonly: true });
  try {
    return db
      .prepare(
        "select source_id, record_id, first_seen_night, already_listed from records where first_seen_night = ? order by source_id, record_id",
      )
      .all(night) as StoredRecord[];
  } finally {
    db.close();
  }
}

function newRecordsOn(data: string, night: string): Record<string, number> {
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

/** `nor night` on `date` with these extra options; its "catalog imported" line, if any. */
async function nightSaying(
  catalog: string,
  data: string,
  date: string,
  extra: string[] = [],
): Promise<Record<string, unknown> | undefined> {
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

describe("a source renamed in the catalog", () => {
  it("P6, P7: the renamed source's next night says new exactly the one record the feed added; the old id is retired with its rows", async () => {
    const site = await world.fleet.server();
    let items = 3;
    site.route("/robots.txt", noRobots);
    site.route(
      "/agendas.rss",
      feedOf(() => items),
    );
    const url = site.url("/agendas.rss");
    const data = join(world.dir, "renamed");
    const before = testerCatalog(world.dir, "before", source("city-agendas", url));
    await nightOn(before, data, "2026-11-05");
    expect(outcomesOn(data, "2026-11-05")["city-agendas"]?.outcome).toBe("ok");
    // Its first read: the three items were there before (P7).
    expect(recordsOn(data, "2026-11-05").map((r) => r.already_listed)).toEqual([1, 1, 1]);

    // The operator renames the id; the feed adds one item.
    const after = testerCatalog(world.dir, "after", source("city-council-agendas", url));
    items = 4;
    const said = await nightSaying(after, data, "2026-11-06");
    expect(said).toMatchObject({
      sources: { added: 0, retired: 0, renamed: 1 },
      retired: [],
      renamed: [{ from: "city-agendas", to: "city-council-agendas" }],
    });
    expect(outcomesOn(data, "2026-11-06")["city-council-agendas"]?.outcome).toBe("ok");
    expect(newRecordsOn(data, "2026-11-06")).toEqual({ "city-council-agendas": 1 });
    expect(recordsOn(data, "2026-11-06")).toEqual([
      {
        source_id: "city-council-agendas",
        record_id: expect.stringContaining("/agenda/4") as unknown as string,
        first_seen_night: "2026-11-06",
        already_listed: 0,
      },
    ]);
    // The old id's rows stay, its source retired; the new id holds the same three, as first seen.
    const night1 = recordsOn(data, "2026-11-05");
    expect(night1.map((r) => r.source_id)).toEqual([
      "city-agendas",
      "city-agendas",
      "city-agendas",
      "city-council-agendas",
      "city-council-agendas",
      "city-council-agendas",
    ]);
    const db = new Database(join(data, "nor.db"), { readonly: true });
    try {
      const retired = db
        .prepare("select id, retired_at is not null as retired from sources order by id")
        .all();
      expect(retired).toEqual([
        { id: "city-agendas", retired: 1 },
        { id: "city-council-agendas", retired: 0 },
      ]);
    } finally {
      db.close();
    }

    // "New on record" as the public reads it: the one new item, under the source's new id.
    const store = await openStore({ kind: "sqlite", dir: data });
    try {
      const fresh = await newRecords(store.db, { from: "2026-11-06", to: "2026-11-06" }, {});
      expect(fresh.items.map((r) => [r.sourceId, r.title])).toEqual([
        ["city-council-agendas", "Item agenda 4"],
      ]);
    } finally {
      await store.close();
    }
  }, 60_000);

  it("P6, P7: two sources that read one feed, both gone and one added: no rename; the added one's first read takes the feed as there before", async () => {
    const site = await world.fleet.server();
    let items = 3;
    site.route("/robots.txt", noRobots);
    site.route(
      "/agendas.rss",
      feedOf(() => items),
    );
    const url = site.url("/agendas.rss");
    const data = join(world.dir, "ambiguous");
    const before = testerCatalog(world.dir, "two-before", [
      ...source("agendas-a", url),
      ...source("agendas-b", url),
    ]);
    await nightOn(before, data, "2026-11-05");

    const after = testerCatalog(world.dir, "two-after", source("agendas-c", url));
    items = 4;
    const said = await nightSaying(after, data, "2026-11-06", ["--allow-retire"]);
    expect(said).toMatchObject({
      sources: { added: 1, retired: 2, renamed: 0 },
      retired: ["agendas-a", "agendas-b"],
      renamed: [],
    });
    // As before this change: a source of its own, read for the first time.
    expect(newRecordsOn(data, "2026-11-06")).toEqual({ "agendas-c": 0 });
    expect(recordsOn(data, "2026-11-06").map((r) => [r.source_id, r.already_listed])).toEqual([
      ["agendas-c", 1],
      ["agendas-c", 1],
      ["agendas-c", 1],
      ["agendas-c", 1],
    ]);
  }, 60_000);

  it("P6: nor catalog import says the rename", async () => {
    const data = join(world.dir, "said");
    const url = "http://127.0.0.1:9/agendas.rss";
    const one = testerCatalog(world.dir, "said-1", source("city-agendas", url));
    expect((await runMain(["catalog", "import", one, "--data", data])).code).toBe(0);
    const two = testerCatalog(world.dir, "said-2", source("city-council-agendas", url));
    const r = await runMain(["catalog", "import", two, "--data", data]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("sources: 0 added, 0 changed, 0 retired, 0 un-retired, 1 renamed\n");
    expect(r.stdout).toContain(
      "> source city-agendas → city-council-agendas renamed (history carried over)\n",
    );
  });
});
