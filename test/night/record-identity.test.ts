import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { runMain } from "../cli/cli-capture.js";
import { nightOn, outcomesOn, testerCatalog, testerWorld } from "./tester-nights.js";

/**
 * A record the source already holds is not new again (P6, P11), proved from real nights against
 * a loopback site and from the store: a record without a link was known by its title and its
 * date as the whole page read it (day-first or month-first, decided by all the page's dates
 * together): a row added to the page flipped the others' ids, and the unchanged rows were stored
 * again as new.
 */
const world = testerWorld("nor-record-identity-");

const noRobots = (_q: IncomingMessage, res: ServerResponse) => void res.writeHead(404).end();

const html = (body: string) => (_q: IncomingMessage, res: ServerResponse) =>
  void res
    .writeHead(200, { "content-type": "text/html; charset=utf-8" })
    .end(`<!DOCTYPE html><html><body>${body}</body></html>`);

/** A table of rows without links: `title | date` as the page writes them. */
const table = (rows: readonly (readonly [string, string])[]) =>
  `<table id="t">${rows.map(([t, d]) => `<tr><td class="title">${t}</td><td class="d">${d}</td></tr>`).join("")}</table>`;

interface Row {
  record_id: string;
  title: string;
  date: string | null;
  url: string | null;
  first_seen_night: string;
}

function recordsOf(data: string, source: string): Row[] {
  const db = new Database(join(data, "nor.db"), { readonly: true });
  try {
    return db
      .prepare(
        "select record_id, title, date, url, first_seen_night from records where source_id = ? order by title, record_id",
      )
      .all(source) as Row[];
  } finally {
    db.close();
  }
}

function newRecordsOn(data: string, night: string, source: string): number | undefined {
  const db = new Database(join(data, "nor.db"), { readonly: true });
  try {
    const row = db
      .prepare("select new_records from night_sources where night = ? and source_id = ?")
      .get(night, source) as { new_records: number } | undefined;
    return row?.new_records;
  } finally {
    db.close();
  }
}

const PAGE_SOURCE = (url: string) => [
  "  - id: minutes",
  "    government: city-of-test",
  "    records: minutes",
  "    access: page",
  `    url: ${url}`,
  '    extract: { items: "#t tr", title: "td.title", date: "td.d" }',
  "    backfill: { pagesPerNight: 0 }",
];

describe("record identity", () => {
  it("P6, P11: a record without a link is not new again when a row added to its page turns how the page's dates are read", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    let rows: [string, string][] = [
      ["Council Minutes", "01/02/2026"],
      ["Zoning Minutes", "03/04/2026"],
    ];
    site.route("/minutes", (q, res) => html(table(rows))(q, res));
    const catalog = testerCatalog(world.dir, "linkless", PAGE_SOURCE(site.url("/minutes")));
    const data = join(world.dir, "linkless");
    await nightOn(catalog, data, "2026-11-05");
    const first = recordsOf(data, "minutes");
    expect(first.map((r) => [r.title, r.date, r.first_seen_night])).toEqual([
      ["Council Minutes", "2026-01-02", "2026-11-05"],
      ["Zoning Minutes", "2026-03-04", "2026-11-05"],
    ]);

    rows = [...rows, ["Budget Hearing", "13/02/2026"]];
    await nightOn(catalog, data, "2026-11-06");
    expect(outcomesOn(data, "2026-11-06")["minutes"]?.outcome).toBe("ok");
    expect(newRecordsOn(data, "2026-11-06", "minutes")).toBe(1);
    const second = recordsOf(data, "minutes");
    // The same two records, under the same ids, their dates read as the page now reads them
    // (it writes day-first: 13/02/2026); only the Budget Hearing is new.
    expect(second.map((r) => [r.title, r.date, r.first_seen_night])).toEqual([
      ["Budget Hearing", "2026-02-13", "2026-11-06"],
      ["Council Minutes", "2026-02-01", "2026-11-05"],
      ["Zoning Minutes", "2026-04-03", "2026-11-05"],
    ]);
    const ids = (rs: Row[]) =>
      rs.filter((r) => r.title !== "Budget Hearing").map((r) => r.record_id);
    expect(ids(second)).toEqual(ids(first));
    // What reparse says of tonight's copy against the store: nothing to add, remove or change.
    const r = await runMain(["reparse", "--data", data, "--catalog", catalog]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("would add 0, would remove 0, would change 0");

    // And back: the day-first row gone, the page reads month-first again; still nothing new.
    rows = rows.slice(0, 2);
    await nightOn(catalog, data, "2026-11-07");
    expect(newRecordsOn(data, "2026-11-07", "minutes")).toBe(0);
    expect(ids(recordsOf(data, "minutes"))).toEqual(ids(first));
  }, 60_000);

  it("P6: a site that moves its files to new links lists none of its records new again, but the one it added", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", noRobots);
    let rows: [string, string, string][] = [
      ["/files/council-11-02.pdf", "Council Agenda", "11/02/2026"],
      ["/files/zoning-10-20.pdf", "Zoning Minutes", "10/20/2026"],
    ];
    site.route("/agendas", (q, res) =>
      html(
        `<table id="t">${rows.map(([href, t, d]) => `<tr><td class="title"><a href="${href}">${t}</a></td><td class="d">${d}</td></tr>`).join("")}</table>`,
      )(q, res),
    );
    const catalog = testerCatalog(world.dir, "moved-files", [
      "  - id: agendas",
      "    government: city-of-test",
      "    records: agendas",
      "    access: page",
      `    url: ${site.url("/agendas")}`,
      '    extract: { items: "#t tr", title: "td.title a", link: "td.title a", date: "td.d" }',
      "    backfill: { pagesPerNight: 0 }",
    ]);
    const data = join(world.dir, "moved-files");
    await nightOn(catalog, data, "2026-11-05");
    // The site moved its files to a document platform, and added one.
    rows = [
      ["/DocumentCenter/View/31?ref=agenda", "Council Agenda", "11/02/2026"],
      ["/DocumentCenter/View/17?ref=minutes", "Zoning Minutes", "10/20/2026"],
      ["/DocumentCenter/View/40?ref=agenda", "Council Agenda", "11/16/2026"],
    ];
    await nightOn(catalog, data, "2026-11-06");
    expect(outcomesOn(data, "2026-11-06")["agendas"]?.outcome).toBe("ok");
    expect(newRecordsOn(data, "2026-11-06", "agendas")).toBe(1);
    expect(
      recordsOf(data, "agendas").map((r) => [r.title, r.date, r.url, r.first_seen_night]),
    ).toEqual([
      [
        "Council Agenda",
        "2026-11-02",
        site.url("/DocumentCenter/View/31?ref=agenda"),
        "2026-11-05",
      ],
      [
        "Council Agenda",
        "2026-11-16",
        site.url("/DocumentCenter/View/40?ref=agenda"),
        "2026-11-06",
      ],
      [
        "Zoning Minutes",
        "2026-10-20",
        site.url("/DocumentCenter/View/17?ref=minutes"),
        "2026-11-05",
      ],
    ]);
    // Each keeps the id it was first listed under, which names its feed entries (migration 022).
    const db = new Database(join(data, "nor.db"), { readonly: true });
    try {
      expect(
        db
          .prepare("select record_id, first_id from records where source_id = ? order by record_id")
          .all("agendas"),
      ).toEqual([
        {
          record_id: site.url("/DocumentCenter/View/17?ref=minutes"),
          first_id: site.url("/files/zoning-10-20.pdf"),
        },
        {
          record_id: site.url("/DocumentCenter/View/31?ref=agenda"),
          first_id: site.url("/files/council-11-02.pdf"),
        },
        { record_id: site.url("/DocumentCenter/View/40?ref=agenda"), first_id: null },
      ]);
    } finally {
      db.close();
    }
  }, 60_000);
});
