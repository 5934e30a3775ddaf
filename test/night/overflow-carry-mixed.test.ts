import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { ask, type NewAnswer } from "../review/tester-new-world.js";
import { nightOn, noRobots, testerCatalog, testerWorld } from "./tester-nights.js";

/**
 * P7: an overflow carried over, against lists as sites show them: a first page mixing new records
 * with older ones, records shifting across page boundaries between nights.
 */
const world = testerWorld("nor-overflow-mixed-");
const RECIPE = "extract: { items: li, title: a, link: a, date: span, next: a.next }";
const PER_PAGE = 3;

function asked(data: string, night: string): string[] {
  const db = new Database(join(data, "nor.db"), { readonly: true });
  try {
    const rows = db
      .prepare(
        "select url from request_log where night = ? and purpose != 'robots' order by started_at, id",
      )
      .all(night) as { url: string }[];
    return rows.map((r) => {
      const u = new URL(r.url);
      return u.pathname + u.search;
    });
  } finally {
    db.close();
  }
}

async function newTitles(data: string, night: string): Promise<string[]> {
  const [fresh] = await ask<NewAnswer>(data, `${night}T15:00:00Z`, [`/api/new?night=${night}`]);
  return (fresh?.json?.items ?? []).map((i) => i.title).sort();
}

const titles = (from: number, to: number): string[] =>
  Array.from({ length: to - from + 1 }, (_, i) => `R ${from + i}`).sort();

/** A list of `order()` record numbers, PER_PAGE a page. */
function list(order: () => number[]) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const page = Number(new URL(req.url ?? "/", "http://x").searchParams.get("page") ?? "1");
    const all = order();
    const rows = all.slice((page - 1) * PER_PAGE, page * PER_PAGE);
    const more = page * PER_PAGE < all.length;
    res
      .writeHead(200, { "content-type": "text/html; charset=utf-8" })
      .end(
        `<ul>${rows.map((n) => `<li><a href="/d/r-${n}.pdf">R ${n}</a> <span>11/01/2026</span></li>`).join("")}</ul>${more ? `<a class="next" href="/list?page=${page + 1}">Next</a>` : ""}`,
      );
  };
}

const desc = (count: number): number[] => Array.from({ length: count }, (_, i) => count - i);

describe("an overflow carried over against lists as sites show them (P7)", () => {
  it("P7: a first page showing new records beside an older one moved to the top (updated), none of the overflow's, while an overflow is pending: the pages pending are read on, every record new on record", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    let count = 10;
    let bumped = false;
    // R 5, updated, shown first (a list sorted by its last change).
    site.route(
      "/list",
      list(() => (bumped ? [5, ...desc(count).filter((n) => n !== 5)] : desc(count))),
    );
    const catalog = testerCatalog(world.dir, "mixed-bumped", [
      `  - { id: list, government: city-of-test, records: bids, url: "${site.url("/list")}", ${RECIPE} }`,
    ]);
    const data = join(world.dir, "mixed-bumped");
    await nightOn(catalog, data, "2026-11-20");
    count = 40;
    await nightOn(catalog, data, "2026-11-21");
    expect(await newTitles(data, "2026-11-21")).toEqual(titles(29, 40));
    // Two posted and R 5 updated: the first page shows R 5 (held before the 21st), R 42 and R 41
    // (new); none of the overflow's records.
    count = 42;
    bumped = true;
    const seen: string[] = [];
    for (const night of ["2026-11-22", "2026-11-23", "2026-11-24", "2026-11-25"]) {
      await nightOn(catalog, data, night);
      seen.push(...(await newTitles(data, night)));
    }
    expect(seen.sort()).toEqual(titles(11, 42).filter((t) => !titles(29, 40).includes(t)));
  });
});

describe("records alike on a carried-over page (P7)", () => {
  it("P7: a day's legal notices (one title, one day) some of which were held before the overflow began: the pages pending are read on, not taken for the list's files moved; every record new on record", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    let count = 10;
    // Forty notices posted on November 2, every one "Legal Notice": ten held the first night.
    site.route("/list", (req, res) => {
      const page = Number(new URL(req.url ?? "/", "http://x").searchParams.get("page") ?? "1");
      const all = desc(count);
      const rows = all.slice((page - 1) * PER_PAGE, page * PER_PAGE);
      const more = page * PER_PAGE < all.length;
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8" })
        .end(
          `<ul>${rows.map((n) => `<li><a href="/d/notice-${n}.pdf">Legal Notice</a> <span>11/02/2026</span></li>`).join("")}</ul>${more ? `<a class="next" href="/list?page=${page + 1}">Next</a>` : ""}`,
        );
    });
    const catalog = testerCatalog(world.dir, "alike-same-day", [
      `  - { id: list, government: city-of-test, records: bids, url: "${site.url("/list")}", ${RECIPE} }`,
    ]);
    const data = join(world.dir, "alike-same-day");
    const fresh = async (night: string): Promise<number> => {
      const [answer] = await ask<NewAnswer>(data, `${night}T15:00:00Z`, [
        `/api/new?night=${night}`,
      ]);
      return answer?.json?.items?.length ?? 0;
    };
    await nightOn(catalog, data, "2026-11-20");
    count = 40;
    await nightOn(catalog, data, "2026-11-21");
    expect(await fresh("2026-11-21")).toBe(12);
    let total = 12;
    for (const night of ["2026-11-22", "2026-11-23", "2026-11-24", "2026-11-25"]) {
      await nightOn(catalog, data, night);
      total += await fresh(night);
    }
    expect(asked(data, "2026-11-22")).toEqual([
      "/list",
      "/list?page=5",
      "/list?page=6",
      "/list?page=7",
    ]);
    expect(total).toBe(30);
  });
});

describe("a list taken back while an overflow is pending (P7, P24)", () => {
  it("P7, P24: the site took back what it posted and posted one anew, its pages past the list's end answering 404: the overflow pending ends with the page kept gone, no flag for a person", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    let order = desc(10);
    site.route("/list", (req, res) => {
      const page = Number(new URL(req.url ?? "/", "http://x").searchParams.get("page") ?? "1");
      if ((page - 1) * PER_PAGE >= order.length) return void res.writeHead(404).end("not found");
      list(() => order)(req, res);
    });
    const catalog = testerCatalog(world.dir, "taken-back", [
      `  - { id: list, government: city-of-test, records: bids, url: "${site.url("/list")}", ${RECIPE} }`,
    ]);
    const data = join(world.dir, "taken-back");
    await nightOn(catalog, data, "2026-11-20");
    order = desc(40);
    await nightOn(catalog, data, "2026-11-21");
    // The thirty taken back, R 41 posted: the first page shows R 41 (new), R 10 and R 9.
    order = [41, ...desc(10)];
    for (const night of ["2026-11-22", "2026-11-23", "2026-11-24", "2026-11-25"])
      await nightOn(catalog, data, night);
    expect(asked(data, "2026-11-22")).toEqual(["/list", "/list?page=5"]);
    expect(asked(data, "2026-11-23")).toEqual(["/list"]);
    const db = new Database(join(data, "nor.db"), { readonly: true });
    try {
      const flags = db.prepare("select kind from flags where kind = 'overflow-gave-up'").all();
      expect(flags).toEqual([]);
    } finally {
      db.close();
    }
  });
});
