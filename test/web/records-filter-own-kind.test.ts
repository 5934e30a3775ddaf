import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAtomFeed } from "feedsmith";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ExtractedRecord } from "../../src/sources/record.js";
import { openStore, type Store, type StoreLocation } from "../../src/store/db.js";
import { catalogVersion, recordsVersion } from "../../src/store/read/versions.js";
import { createApp } from "../../src/web/app.js";
import { downloadTag } from "../../src/web/public/downloads.js";
import { postgresFactory, postgresUrl } from "../store/stores.js";
import { importYaml, nightOver } from "./catalog-store.js";

/**
 * An outside tester's finding (ot-public): a CivicPlus Agenda Center is listed as a page of
 * agendas (`records: agendas`) and lists the minutes of the same meetings; the directory shows
 * each such record as "Minutes" (/new beside its title, the feeds' category and summary), but
 * the "Records: Minutes" filter read the page's kind only: /new?records=minutes, its feeds, the
 * counts by kind, a search narrowed to minutes and the minutes download left those minutes out,
 * and "Agendas" listed them. In the README's demo, a search of "regular council meeting" found 5
 * minutes unfiltered and none with Records: Minutes. The filter now reads the kind each record
 * is shown as: its own kind where that is one of the kinds of records, else its page's.
 */
const NOW = Date.parse("2026-11-05T15:00:00.000Z");
const NIGHT = "2026-11-05";
const CATALOG = `
governments:
  - { id: village-of-test, name: Village of Test, kind: village, county: Franklin }
sources:
  - { id: test-agenda-center, government: village-of-test, records: agendas, access: feed, url: "https://test.example/AgendaCenter" }
  - { id: test-minutes, government: village-of-test, records: minutes, access: feed, url: "https://test.example/minutes.rss" }
`;

async function seed(loc: StoreLocation): Promise<Store> {
  const store = await openStore(loc);
  const cat = await importYaml(store.db, CATALOG, NOW - 5 * 86_400_000);
  const startedAt = Date.parse(`${NIGHT}T06:00:00.000Z`);
  const night = await nightOver(store.db, NIGHT, startedAt, cat);
  const result = (id: string, url: string, at: number, records: ExtractedRecord[]) => ({
    sourceId: id,
    outcome: { kind: "ok" as const, url },
    records,
    validators: [],
    flags: [],
    startedAt: at,
    endedAt: at + 1000,
  });
  // The page's meeting of Dec 10: its agenda (dated ahead) and the minutes of Nov 3's.
  await night.commit(
    NIGHT,
    result("test-agenda-center", "https://test.example/AgendaCenter", startedAt + 1000, [
      {
        id: "A_12102026-1",
        title: "Council Regular Meeting Dec 10",
        date: "2026-12-10",
        url: "https://test.example/AgendaCenter/ViewFile/Agenda/_12102026-1",
        kind: "agendas",
      },
      {
        id: "M_11032026-1",
        title: "Council Regular Meeting Nov 3",
        date: "2026-11-03",
        url: "https://test.example/AgendaCenter/ViewFile/Minutes/_11032026-1",
        kind: "minutes",
      },
    ]),
  );
  await night.commit(
    NIGHT,
    result("test-minutes", "https://test.example/minutes.rss", startedAt + 4000, [
      {
        id: "https://test.example/m/1",
        title: "Council Minutes Oct 20",
        date: "2026-10-20",
        url: "https://test.example/m/1",
      },
    ]),
  );
  await night.finishNight(NIGHT, startedAt + 60_000);
  // New on record: the pages had been read on a night before this one.
  await store.db.updateTable("records").set({ already_listed: 0 }).execute();
  return store;
}

type NewAnswer = {
  items: { title: string }[];
  counts: { total: number; byRecords: { records: string; count: number }[] };
};

function suite(name: string, location: () => Promise<StoreLocation>, done: () => Promise<void>) {
  describe(name, () => {
    let store: Store;
    let app: ReturnType<typeof createApp>;
    beforeAll(async () => {
      store = await seed(await location());
      app = createApp({ db: store.db, now: () => NOW, origin: "https://directory.example" });
    }, 60_000);
    afterAll(async () => {
      await store?.close();
      await done();
    });

    const titles = async (path: string) =>
      ((await (await app.request(path)).json()) as NewAnswer).items.map((i) => i.title).sort();

    it("/api/new and /new.atom with records=minutes hold an Agenda Center's minutes, records=agendas its agendas only", async () => {
      expect(await titles("/api/new?records=minutes")).toEqual([
        "Council Minutes Oct 20",
        "Council Regular Meeting Nov 3",
      ]);
      expect(await titles("/api/new?records=agendas")).toEqual(["Council Regular Meeting Dec 10"]);
      const atom = parseAtomFeed(await (await app.request("/new.atom?records=minutes")).text());
      expect(atom.entries?.map((e) => e.title?.value).sort()).toEqual([
        "Council Minutes Oct 20",
        "Council Regular Meeting Nov 3",
      ]);
      expect(atom.entries?.map((e) => e.categories?.[0]?.term)).toEqual(["minutes", "minutes"]);
    });

    it("P23: narrowed to one Agenda Center's minutes, the night is said as it ran, never that no page of the selection was listed", async () => {
      const a = (await (
        await app.request(`/api/new?night=${NIGHT}&source=test-agenda-center&records=minutes`)
      ).json()) as NewAnswer & { nights: { state: string }[] };
      expect(a.items.map((i) => i.title)).toEqual(["Council Regular Meeting Nov 3"]);
      expect(a.nights.map((n) => n.state)).toEqual(["finished"]);
      // A kind no record is shown as but its page's own (`other`) still narrows the pages.
      const other = (await (await app.request(`/api/new?night=${NIGHT}&records=other`)).json()) as {
        nights: { state: string; text: string }[];
      };
      expect(other.nights[0]?.text).toContain("no record page in the directory matches");
    });

    it("the counts by kind of records count each record as it is shown, and add up to the total", async () => {
      const all = (await (await app.request("/api/new")).json()) as NewAnswer;
      expect(all.counts.total).toBe(3);
      expect(all.counts.byRecords).toEqual([
        { records: "minutes", count: 2 },
        { records: "agendas", count: 1 },
      ]);
      const page = await (await app.request("/new")).text();
      expect(page).toContain('href="/new?records=minutes"');
    });

    it("a search narrowed to minutes finds the Agenda Center's minutes; narrowed to agendas, not them", async () => {
      const s = async (q: string) =>
        (
          (await (await app.request(`/api/search?q=${q}`)).json()) as {
            records: { title: string }[];
          }
        ).records
          .map((r) => r.title)
          .sort();
      expect(await s("council&records=minutes")).toEqual([
        "Council Minutes Oct 20",
        "Council Regular Meeting Nov 3",
      ]);
      expect(await s("council&records=agendas")).toEqual(["Council Regular Meeting Dec 10"]);
      // The record pages a search lists are still narrowed by their own kind of records.
      const pages = (await (await app.request("/api/search?q=test&records=minutes")).json()) as {
        sources: { id: string }[];
      };
      expect(pages.sources.map((x) => x.id)).toEqual(["test-minutes"]);
    });

    it("the records download narrowed to minutes holds them; the calendar, of meetings, narrows by the page's kind (a bids page's pre-bid meeting is under bids): the agenda, never the minutes", async () => {
      const res = await app.request("/downloads/records.csv?records=minutes");
      // Its ETag is not the one this file had when the filter read the page's kind (layout 2):
      // a client's copy from before is not taken as current.
      const parts = [
        "?records=minutes",
        await catalogVersion(store.db),
        JSON.stringify(await recordsVersion(store.db)),
      ];
      const before = `W/"records.csv-${createHash("sha256")
        .update(JSON.stringify([2, "records.csv", ...parts]))
        .digest("base64url")
        .slice(0, 27)}"`;
      expect(res.headers.get("etag")).toBe(downloadTag("records.csv", parts));
      expect(res.headers.get("etag")).not.toBe(before);
      const csv = await res.text();
      expect(csv).toContain("M_11032026-1");
      expect(csv).not.toContain("A_12102026-1");
      const ics = await (await app.request("/meetings.ics?records=agendas")).text();
      expect(ics).toContain("SUMMARY:Council Regular Meeting Dec 10");
      const none = await (await app.request("/meetings.ics?records=minutes")).text();
      expect(none).not.toContain("BEGIN:VEVENT");
    });
  });
}

let dir = "";
suite(
  "the records filter reads each record's kind as shown (SQLite)",
  async () => {
    dir = mkdtempSync(join(tmpdir(), "nor-own-kind-"));
    return { kind: "sqlite", dir };
  },
  async () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  },
);

if (postgresUrl) {
  const factory = postgresFactory(postgresUrl);
  suite(
    "the records filter reads each record's kind as shown (PostgreSQL)",
    () => factory.fresh(),
    () => factory.cleanup(),
  );
}
