import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { openStore, type StoreLocation } from "../../src/store/db.js";
import { newestRecords } from "../../src/store/read/directory.js";
import { newRecords } from "../../src/store/read/new-records.js";
import { runMain } from "../cli/cli-capture.js";
import { postgresUrl, withSearchPath } from "../store/stores.js";
import { noRobots, TESTER_GAP_MS, testerCatalog, testerWorld } from "./tester-nights.js";

/**
 * One record across a source's ways in (P4, P6): a source read through its api, whose api fails
 * one night (a 500, asked twice more), so the night reads its page instead. The
 * api knows a meeting by its EventId, the page by its link: the same meeting under two ids. Before,
 * the page's night kept a second copy of every meeting, read its list as for the first time (so
 * the one meeting new that night was not new), and the api's next night listed that meeting new
 * under the api's id, a night late.
 */
const world = testerWorld("nor-way-identity-");

interface Meeting {
  id: number;
  title: string;
  date: string;
  /** The link a way writes, or none (then known by its date and title across ways). */
  linked: boolean;
}

describe.each(["sqlite", "postgres"] as const)(
  "one record across a source's ways in (%s)",
  (dialect) => {
    it.skipIf(dialect === "postgres" && !postgresUrl)(
      "P4, P6: a night read through the page because the api failed keeps one copy of each record; the record new that night is new on that night only, and not again when the api is back",
      async () => {
        const site = await world.fleet.server();
        site.route("/robots.txt", noRobots);
        let meetings: Meeting[] = [
          { id: 101, title: "Council Meeting", date: "2026-11-02", linked: true },
          { id: 102, title: "Zoning Board", date: "2026-10-28", linked: true },
          // Its api item has no link and its page row none: known by its date and title.
          { id: 103, title: "Parks  Commission", date: "2026-10-20", linked: false },
        ];
        let apiFails = false;
        site.route("/api/events", (_q: IncomingMessage, res: ServerResponse) => {
          if (apiFails) {
            // P15: asked twice more, a second apart, then the page is read instead.
            res.writeHead(500, { "content-type": "text/plain", "retry-after": "1" }).end("oops");
            return;
          }
          res.writeHead(200, { "content-type": "application/json" }).end(
            JSON.stringify({
              items: meetings.map((m) => ({
                EventId: m.id,
                EventBodyName: m.title,
                EventDate: `${m.date}T00:00:00`,
                ...(m.linked ? { EventUrl: `/meetings/${m.id}` } : {}),
              })),
            }),
          );
        });
        site.route("/meetings", (_q: IncomingMessage, res: ServerResponse) => {
          const rows = meetings
            .map((m) => {
              const [y, mo, d] = m.date.split("-");
              const title = m.title.replace(/\s+/g, " ").toUpperCase();
              const cell = m.linked ? `<a href="/meetings/${m.id}">${title}</a>` : title;
              return `<tr><td class="t">${cell}</td><td class="d">${mo}/${d}/${y}</td></tr>`;
            })
            .join("");
          res
            .writeHead(200, { "content-type": "text/html; charset=utf-8" })
            .end(`<!DOCTYPE html><html><body><table id="m">${rows}</table></body></html>`);
        });
        const catalog = testerCatalog(world.dir, `ways-${dialect}`, [
          "  - id: meetings",
          "    government: city-of-test",
          "    records: meetings",
          "    access: api",
          `    url: ${site.url("/api/events")}`,
          "    api: { items: items, title: EventBodyName, date: EventDate, id: EventId, link: EventUrl }",
          "    backfill: { pagesPerNight: 0 }",
          "    alternates:",
          "      - access: page",
          `        url: ${site.url("/meetings")}`,
          '        extract: { items: "#m tr", title: "td.t", link: "td.t a", date: "td.d" }',
        ]);
        const data = join(world.dir, `ways-${dialect}`);
        let env: Record<string, string> = {};
        let loc: StoreLocation = { kind: "sqlite", dir: data };
        let admin: pg.Client | undefined;
        const schema = `nor_ways_${process.pid}_${Date.now().toString(36)}`;
        if (dialect === "postgres") {
          admin = new pg.Client({ connectionString: postgresUrl });
          await admin.connect();
          await admin.query(`create schema "${schema}"`);
          const url = withSearchPath(postgresUrl ?? "", schema);
          env = { NOR_DATABASE_URL: url };
          loc = { kind: "postgres", url };
        }
        const nightOn = async (night: string) => {
          const r = await runMain(
            [
              ...["night", "--catalog", catalog, "--data", data, "--night", night],
              ...["--allow-private-addresses", "--gap-ms", String(TESTER_GAP_MS)],
            ],
            { env },
          );
          expect(r.code, r.stderr).toBe(0);
        };
        /** The way a night used for the source, and its outcome. */
        const wayOn = async (night: string) => {
          const store = await openStore(loc);
          try {
            const row = await store.db
              .selectFrom("night_sources")
              .select(["outcome", "way"])
              .where("night", "=", night)
              .where("source_id", "=", "meetings")
              .executeTakeFirst();
            return {
              outcome: row?.outcome,
              access: (JSON.parse(row?.way ?? "{}") as { used?: { access?: string } }).used?.access,
            };
          } finally {
            await store.close();
          }
        };
        try {
          // Night 1: the api, first read: its three meetings are the source's, none new.
          await nightOn("2026-11-05");
          expect(await wayOn("2026-11-05")).toEqual({ outcome: "ok", access: "api" });

          // Night 2: the api fails; the page is read. A meeting (linked) and one without a link are new.
          apiFails = true;
          meetings = [
            { id: 104, title: "Council Meeting", date: "2026-11-16", linked: true },
            { id: 105, title: "Library Board", date: "2026-11-12", linked: false },
            ...meetings,
          ];
          await nightOn("2026-11-06");
          expect(await wayOn("2026-11-06")).toEqual({ outcome: "ok", access: "page" });

          // What reparse says of the copies (the api's of night 1, the page's of night 2) against the
          // store (P8): each record once, none to add or remove.
          const reparse = async () => {
            const r = await runMain(["reparse", "--data", data, "--catalog", catalog], { env });
            expect(r.code, r.stderr).toBe(0);
            expect(r.stdout).toContain(
              "2 captures read, 5 records found now, 5 stored — would add 0, would remove 0, would change 0",
            );
          };
          await reparse();

          // Night 3: the api is back.
          apiFails = false;
          await nightOn("2026-11-07");
          expect(await wayOn("2026-11-07")).toEqual({ outcome: "ok", access: "api" });

          await reparse();

          const store = await openStore(loc);
          try {
            // The directory's read model: each meeting once.
            const shown = await newestRecords(store.db, "meetings", 50);
            expect(shown.map((r) => [r.date?.slice(0, 10), r.title.toLowerCase()]).sort()).toEqual([
              ["2026-10-20", "parks commission"],
              ["2026-10-28", "zoning board"],
              ["2026-11-02", "council meeting"],
              ["2026-11-12", "library board"],
              ["2026-11-16", "council meeting"],
            ]);
            // New on record: the two meetings of night 2, on night 2 only.
            const on = async (night: string) =>
              (await newRecords(store.db, { from: night, to: night }, {})).items
                .map((r) => [r.date?.slice(0, 10), r.title.toLowerCase()])
                .sort();
            expect(await on("2026-11-05")).toEqual([]);
            expect(await on("2026-11-06")).toEqual([
              ["2026-11-12", "library board"],
              ["2026-11-16", "council meeting"],
            ]);
            expect(await on("2026-11-07")).toEqual([]);
            // The night's own counts say so too, and each record is known by the api's id again; the
            // one first listed through the page keeps that name for its feed entries (migration 022).
            const counts = await store.db
              .selectFrom("night_sources")
              .select(["night", "new_records"])
              .where("source_id", "=", "meetings")
              .orderBy("night")
              .execute();
            expect(counts.map((c) => Number(c.new_records))).toEqual([0, 2, 0]);
            const ids = await store.db
              .selectFrom("records")
              .select(["record_id", "first_id"])
              .where("source_id", "=", "meetings")
              .orderBy("record_id")
              .execute();
            expect(ids).toEqual([
              { record_id: "101", first_id: null },
              { record_id: "102", first_id: null },
              { record_id: "103", first_id: null },
              { record_id: "104", first_id: site.url("/meetings/104") },
              { record_id: "105", first_id: expect.stringMatching(/^h:[0-9a-f]{16}$/) },
            ]);
          } finally {
            await store.close();
          }
        } finally {
          if (admin) {
            await admin.query(`drop schema if exists "${schema}" cascade`);
            await admin.end();
          }
        }
      },
      60_000,
    );
  },
);
