import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { checkUrl } from "../../src/net/redirects.js";
import { MAX_URL_LENGTH } from "../../src/policy/constants.js";
import { recordId } from "../../src/sources/record-id.js";
import { runMain } from "../cli/cli-capture.js";
import { postgresUrl, withSearchPath } from "../store/stores.js";
import { noRobots, TESTER_GAP_MS, testerCatalog, testerWorld } from "./tester-nights.js";

/**
 * An outside tester's findings on PostgreSQL: a next page's link (or a redirect's Location) over
 * about 2.7 KB made the archive's commit fail on the captures index (PostgreSQL's B-tree key
 * limit), taken for a full disk: the whole night stopped (exit 2), every night, asking the same
 * long page again each time; a record whose link was as long failed its source's commit on the
 * records key, and none of that source's records were kept, night after night. URLs found on a
 * site are capped as the catalog's are (2,048 characters: not asked), and a record id longer
 * than 1,024 characters is kept as its SHA-256.
 */
const world = testerWorld("nor-long-urls-");
const LONG =
  "s".repeat(10) + Array.from({ length: 3_500 }, (_, i) => "abcdefghij"[i % 10]).join("");

describe("addresses and ids too long for the store", () => {
  it("P3, P8: an address over 2,048 characters is not asked, whoever gives it; a record id over 1,024 is kept as its hash, the same every night", () => {
    expect(checkUrl(`https://example.gov/${"a".repeat(MAX_URL_LENGTH)}`)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(
        /^URL is 2,068 characters long, more than the 2,048 the checker asks for: not asked/,
      ),
    });
    expect(checkUrl(`https://example.gov/${"a".repeat(MAX_URL_LENGTH - 40)}`).ok).toBe(true);
    const url = `https://example.gov/doc.aspx?state=${LONG}`;
    const id = recordId({ url, title: "t" });
    expect(id).toMatch(/^l:[0-9a-f]{64}$/);
    expect(recordId({ url, title: "another title" })).toBe(id);
    expect(recordId({ url: "https://example.gov/a.pdf", title: "t" })).toBe(
      "https://example.gov/a.pdf",
    );
    // Counted in bytes, as PostgreSQL counts its keys: 1,000 CJK characters are 3,000 bytes.
    expect(recordId({ platformId: "議".repeat(1_000), title: "t" })).toMatch(/^l:[0-9a-f]{64}$/);
    expect(recordId({ platformId: "a".repeat(1_024), title: "t" })).toBe("a".repeat(1_024));
  });

  for (const dialect of ["sqlite", "postgres"] as const) {
    it.skipIf(dialect === "postgres" && !postgresUrl)(
      `P8, P13 (${dialect}): a list whose next link and one record's link are 3,500 characters long: the night ends (exit 0), the long page is never asked, every record of the source is kept`,
      async () => {
        const site = await world.fleet.server();
        site.route("/robots.txt", noRobots);
        site.route("/list", (_q, res) => {
          res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(
            `<ul><li><a href="/doc.aspx?state=${LONG}">Long link agenda</a> <span>11/05/2026</span></li>
             <li><a href="/ok.pdf">Normal agenda</a> <span>11/04/2026</span></li></ul>
             <a class="next" href="/list?s=${LONG}">Next</a>`,
          );
        });
        const catalog = testerCatalog(world.dir, `long-${dialect}`, [
          "  - id: long-list",
          "    government: city-of-test",
          "    records: agendas",
          `    url: ${site.url("/list")}`,
          "    extract: { items: li, title: a, link: a, date: span, next: a.next }",
        ]);
        const data = join(world.dir, `long-${dialect}`);
        let env: Record<string, string> = {};
        let schema = "";
        let admin: pg.Client | undefined;
        if (dialect === "postgres") {
          schema = `nor_long_${process.pid}_${Date.now().toString(36)}`;
          admin = new pg.Client({ connectionString: postgresUrl });
          await admin.connect();
          await admin.query(`create schema "${schema}"`);
          env = { NOR_DATABASE_URL: withSearchPath(postgresUrl ?? "", schema) };
        }
        try {
          for (const night of ["2026-11-05", "2026-11-06"]) {
            const r = await runMain(
              [
                ...["night", "--catalog", catalog, "--data", data, "--night", night],
                ...["--allow-private-addresses", "--gap-ms", String(TESTER_GAP_MS)],
              ],
              { env },
            );
            expect(r.code, r.stderr).toBe(0);
          }
          expect(site.requests.filter((q) => q.path.startsWith("/list?"))).toEqual([]);
          // The list ends at the next link too long to ask: no cursor kept for ever.
          const backfill =
            dialect === "postgres"
              ? (await admin!.query(`select done, cursor from "${schema}".backfill`)).rows
              : new Database(join(data, "nor.db"), { readonly: true })
                  .prepare("select done, cursor from backfill")
                  .all();
          expect(backfill).toEqual([{ done: 1, cursor: null }]);
          const rows =
            dialect === "postgres"
              ? (
                  await admin!.query(
                    `select record_id, title from "${schema}".records where source_id = 'long-list' order by title`,
                  )
                ).rows
              : new Database(join(data, "nor.db"), { readonly: true })
                  .prepare(
                    "select record_id, title from records where source_id = 'long-list' order by title",
                  )
                  .all();
          expect(rows).toEqual([
            { record_id: expect.stringMatching(/^l:[0-9a-f]{64}$/), title: "Long link agenda" },
            { record_id: site.url("/ok.pdf"), title: "Normal agenda" },
          ]);
        } finally {
          if (admin) {
            await admin.query(`drop schema if exists "${schema}" cascade`);
            await admin.end();
          }
        }
      },
      60_000,
    );
  }
});
