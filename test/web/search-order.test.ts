import { load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StoreLocation } from "../../src/store/db.js";
import { postgresFactory, postgresUrl, type StoreFactory, sqliteFactory } from "../store/stores.js";
import { buildFixture, type Fixture } from "./fixture.js";

/**
 * Records whose titles match a search equally well (the same words) are listed newest first
 * by the date each names, whatever its text looks like: a day, a local time with its offset, a
 * time in UTC; then the latest first seen; then by source and record id. Ids and dates are
 * never compared as text ("r/10" before "r/9", `…T21:00:00-05:00` before `…T01:00:00Z` of the
 * next day). The same on SQLite and PostgreSQL.
 */
const SEEN = "2026-11-04T05:00:00.000Z";
const TIES = [
  { id: "r/9", date: "2026-03-09" },
  // Half an hour before r/9's day begins (UTC), in summer time in Ohio: on a PostgreSQL whose
  // zone is New York, a day counted in that zone would begin an hour early, before it.
  { id: "r/utc-before-9", date: "2026-03-08T23:30:00Z" },
  { id: "r/10", date: "2026-03-10" },
  { id: "r/11", date: "2026-02-01" },
  // The evening before Feb 1 in Ohio, written with its offset (01:00 UTC on Feb 1): older than
  // the bare day Feb 1, which begins in Ohio.
  { id: "r/eve-before-11", date: "2026-01-31T20:00:00-05:00" },
  // 02:00 UTC on Mar 11: later than the next one, though its text sorts first.
  { id: "r/late-local", date: "2026-03-10T21:00:00-05:00" },
  { id: "r/utc", date: "2026-03-11T01:00:00Z" },
  { id: "r/undated", date: null },
  { id: "r/seen-later", date: "2026-01-05", seen: "2026-11-05T05:00:00.000Z" },
  { id: "r/seen-earlier", date: "2026-01-05", seen: "2026-11-03T05:00:00.000Z" },
  // Not a date in any form the readers write: listed with the undated, after them by its id.
  { id: "r/zz-unreadable", date: "2026-02-30T99:00:00X" },
  // A leap second, as a reader may write one: a time SQLite does not read, so undated on both.
  { id: "r/leap", date: "2026-12-31T23:59:60Z" },
];
const BEST_FIRST = [
  "r/late-local",
  "r/utc",
  "r/10",
  "r/9",
  "r/utc-before-9",
  "r/11",
  "r/eve-before-11",
  "r/seen-later",
  "r/seen-earlier",
  "r/leap",
  "r/undated",
  "r/zz-unreadable",
];
/** The dated ones, all of 2026. */
const DATED = 9;

const sqlite = sqliteFactory();
const pg = postgresUrl ? postgresFactory(postgresUrl) : undefined;

/** A PostgreSQL store whose connections keep New York time (an Ohio host's server may). */
function inNewYork(base: StoreFactory): StoreFactory {
  const newYork = (loc: StoreLocation): StoreLocation => {
    if (loc.kind !== "postgres") return loc;
    const url = loc.url.replace(
      /options=([^&]*)/,
      (_m, o: string) =>
        `options=${encodeURIComponent(`${decodeURIComponent(o)} -c timezone=America/New_York`)}`,
    );
    return { ...loc, url };
  };
  return {
    name: `${base.name} in New York time`,
    fresh: async () => newYork(await base.fresh()),
    migrated: async () => newYork(await base.migrated()),
    cleanup: () => base.cleanup(),
  };
}
const pgNewYork = postgresUrl ? inNewYork(postgresFactory(postgresUrl)) : undefined;

describe.each([sqlite, ...(pg ? [pg] : []), ...(pgNewYork ? [pgNewYork] : [])])(
  "search ties on $name",
  (factory) => {
    let f: Fixture;
    beforeAll(async () => {
      f = await buildFixture(await factory.migrated());
      await f.store.db
        .insertInto("records")
        .values(
          TIES.map((t) => ({
            source_id: "test-agendas",
            record_id: t.id,
            title: "Levy hearing",
            date: t.date,
            url: null,
            kind: null,
            first_seen_night: "2026-11-03",
            first_seen_at: t.seen ?? SEEN,
          })),
        )
        .execute();
    }, 60_000);
    afterAll(async () => {
      await f?.close();
      await factory.cleanup();
    });

    it("records of equal relevance are listed newest first by the instant their date names, undated last, then by when first seen, then by id", async () => {
      const api = (await (await f.app.request("/api/search?q=levy%20hearing")).json()) as {
        recordTotal: number;
        records: { recordId: string }[];
      };
      expect(api.recordTotal).toBe(TIES.length);
      expect(api.records.map((r) => r.recordId)).toEqual(BEST_FIRST);
      // The page lists them in the same order, with their dates as their governments wrote them.
      const $ = load(await (await f.app.request("/search?q=levy%20hearing")).text());
      const dates = $("table.new tbody tr td:nth-child(2)")
        .map((_i, td) => $(td).text())
        .get();
      expect(dates.slice(0, 5)).toEqual([
        "Mar 10, 2026",
        "Mar 10, 2026",
        "Mar 10, 2026",
        "Mar 9, 2026",
        "Mar 8, 2026",
      ]);
    });

    it("a source's newest records are ordered by the instant their date names, not its text", async () => {
      const api = (await (await f.app.request("/api/sources/test-agendas")).json()) as {
        newestRecords: { recordId: string }[];
      };
      const ids = api.newestRecords.map((r) => r.recordId).filter((id) => id.startsWith("r/"));
      // `…-03-10T21:00:00-05:00` (02:00 UTC on Mar 11) is newer than `…-03-11T01:00:00Z`.
      expect(ids.indexOf("r/late-local")).toBeLessThan(ids.indexOf("r/utc"));
      expect(ids.slice(0, 5)).toEqual(["r/late-local", "r/utc", "r/10", "r/9", "r/utc-before-9"]);
    });

    it("pages of a search cut the same order: the second page goes on where the first stopped", async () => {
      // 20 more matches, all dated before the others, so the first page is 20 of 33.
      await f.store.db
        .insertInto("records")
        .values(
          Array.from({ length: 20 }, (_v, i) => ({
            source_id: "akron-minutes",
            record_id: `old/${i}`,
            title: "Levy hearing",
            date: `2025-12-${String(i + 1).padStart(2, "0")}`,
            url: null,
            kind: null,
            first_seen_night: "2026-11-03",
            first_seen_at: SEEN,
          })),
        )
        .execute();
      try {
        const ids = async (page: number) =>
          (
            (await (await f.app.request(`/api/search?q=levy%20hearing&page=${page}`)).json()) as {
              records: { recordId: string }[];
            }
          ).records.map((r) => r.recordId);
        const both = [...(await ids(1)), ...(await ids(2))];
        const old = Array.from({ length: 20 }, (_v, i) => `old/${19 - i}`);
        expect(both).toEqual([...BEST_FIRST.slice(0, DATED), ...old, ...BEST_FIRST.slice(DATED)]);
      } finally {
        await f.store.db
          .deleteFrom("records")
          .where("source_id", "=", "akron-minutes")
          .where("record_id", "like", "old/%")
          .execute();
      }
    });

    it("a search feed lists the newest first seen first, and keeps that order among records first seen together", async () => {
      const feed = (await (await f.app.request("/search.json?q=levy%20hearing")).json()) as {
        items: { id: string }[];
      };
      const id = (r: string) => `urn:new-on-record:record:test-agendas:${encodeURIComponent(r)}`;
      // After the notice of akron-minutes, not read (P26: an item of its own, not a match).
      expect(
        feed.items.filter((i) => !i.id.startsWith("urn:new-on-record:not-read:")).map((i) => i.id),
      ).toEqual(
        [
          "r/seen-later",
          ...BEST_FIRST.filter((r) => r !== "r/seen-later" && r !== "r/seen-earlier"),
          "r/seen-earlier",
        ].map(id),
      );
    });
  },
);
