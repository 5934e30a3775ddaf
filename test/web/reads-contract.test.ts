import { load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NO_OUTCOMES } from "../../src/night/types.js";
import type { StoreLocation } from "../../src/store/db.js";
import { storePasswordHash } from "../../src/store/read/console.js";
import { nightReport } from "../../src/store/read/night-report.js";
import { openWebReads, type WebReads } from "../../src/store/read-pool.js";
import { SqlRequestLog } from "../../src/store/request-log.js";
import { createApp } from "../../src/web/app.js";
import { answerJobModule } from "../../src/web/public/answer-job.js";
import { entry } from "../store/entries.js";
import { postgresFactory, postgresUrl, sqliteFactory } from "../store/stores.js";
import { Browser, hashOf, PASSWORD, seedNight } from "./console-support.js";
import { buildFixture, type Fixture, NOW, ORIGIN, REFUSAL } from "./fixture.js";

/**
 * One contract for the web's read model (src/store/read-pool.ts `WebReads`) over every
 * implementation: SQLite read on the main thread (what `createApp({ db })` does), SQLite read
 * in worker threads (what `nor serve` does), and PostgreSQL through its asynchronous pools; the
 * last two build the heaviest public answers in worker threads of their own (`build`). The
 * same store, the same answers, public and console. (There is no in-memory read model: the
 * web reads only from a store.)
 */
type Impl = {
  name: string;
  location: () => Promise<StoreLocation>;
  reads: (loc: StoreLocation, f: Fixture) => Promise<WebReads>;
  cleanup: () => Promise<void>;
};

const sqlite = sqliteFactory();
const pg = postgresUrl ? postgresFactory(postgresUrl) : undefined;

const impls: Impl[] = [
  {
    name: "SQLite on the main thread",
    location: sqlite.fresh,
    reads: async (_loc, f) => ({
      public: f.store.db,
      console: f.store.db,
      kind: "async-driver",
      close: async () => {},
    }),
    cleanup: sqlite.cleanup,
  },
  {
    name: "SQLite in worker threads",
    location: sqlite.fresh,
    reads: async (loc) => {
      const r = await openWebReads(loc, { jobs: answerJobModule() });
      expect(r.kind).toBe("worker-threads");
      expect(r.build).toBeDefined();
      return r;
    },
    cleanup: sqlite.cleanup,
  },
  ...(pg
    ? [
        {
          name: "PostgreSQL",
          location: pg.fresh,
          reads: async (loc: StoreLocation) => {
            const r = await openWebReads(loc, { jobs: answerJobModule() });
            expect(r.kind).toBe("async-driver");
            expect(r.build).toBeDefined();
            return r;
          },
          cleanup: pg.cleanup,
        },
      ]
    : []),
];

const T0 = Date.UTC(2026, 10, 6, 6);
const isNo = (o: string) => NO_OUTCOMES.has(o as never);

describe.each(impls)("the web's reads: $name", (impl) => {
  let f: Fixture;
  let reads: WebReads;
  let b: Browser;
  let app: ReturnType<typeof createApp>;

  beforeAll(async () => {
    const loc = await impl.location();
    f = await buildFixture(loc);
    await seedNight(f.store.db, "2026-11-06");
    // 1,200 attempts on the night of 11-06, one a second from 01:00 New York, on 3 sites.
    await new SqlRequestLog(f.store.db).appendMany(
      Array.from({ length: 1_200 }, (_, i) =>
        entry({
          startedAt: T0 + i * 1_000,
          night: "2026-11-06",
          site: `s${i % 3}.gov`,
          origin: `https://s${i % 3}.gov`,
          url: `https://s${i % 3}.gov/p/${i}`,
          source: i % 2 === 0 ? "oh-a-agendas" : "oh-b-bids",
          bytes: 100,
        }),
      ),
    );
    reads = await impl.reads(loc, f);
    // The operator's password as `nor operator set-password` stores it, at the console
    // fixtures' lower scrypt cost (console-support.ts hashOf): the sign-in only opens the
    // console pages read here (the full-cost hash and check are console-cli.test.ts's).
    await storePasswordHash(f.store.db, hashOf(PASSWORD), NOW);
    app = createApp({
      db: f.store.db,
      reads,
      now: () => NOW,
      origin: ORIGIN,
      console: {},
    });
    b = new Browser(app);
    expect((await b.signIn()).status).toBe(303);
  }, 120_000);

  afterAll(async () => {
    await reads?.close();
    await f?.close();
    await impl.cleanup();
  });

  it("P23, P26: the public pages, search and API read the same rows", async () => {
    const govs = (await (await app.request("/api/governments")).json()) as {
      governments: { id: string; sourceCount: number }[];
    };
    expect(govs.governments.map((g) => `${g.id}:${g.sourceCount}`)).toEqual([
      "franklin-county:0",
      "village-of-test:2",
      "evil-township:1",
      "city-of-akron:1",
      "ohio-epa:0",
    ]);
    const $ = load(await (await app.request("/sources/test-bids")).text());
    expect($("section.last-no .reference").text()).toBe(REFUSAL.reference);
    const news = (await (await app.request("/api/new?county=franklin")).json()) as {
      items: { recordId: string }[];
    };
    expect(news.items.map((i) => i.recordId)).toEqual([
      "https://test.example/r/22",
      "https://test.example/r/12",
      "https://test.example/r/31",
    ]);
    const s = (await (await app.request("/api/search?q=recor")).json()) as { recordTotal: number };
    expect(s.recordTotal).toBe(7);
    const feed = await app.request("/new.atom");
    expect(feed.status).toBe(200);
    expect(await feed.text()).toContain("https://directory.example/");
  });

  it("/new, its feeds, /api/new, the search feeds and the calendar: byte for byte the answers the event loop builds, refusals included", async () => {
    const here = createApp({ db: f.store.db, now: () => NOW, origin: ORIGIN });
    const paths = [
      "/new",
      "/new?window=30d&county=Franklin",
      "/new?night=2026-10-28&source=akron-minutes",
      "/new.atom",
      "/new.rss?window=7d",
      "/new.json?records=bids",
      "/api/new?window=30d",
      "/api/new?window=1y",
      "/new?night=2026-02-30",
      "/new.atom?source=nope",
      "/new?colour=red",
      "/search.atom?q=record",
      "/search.json?q=",
      "/meetings.ics?county=Franklin",
    ];
    for (const p of paths) {
      const [a, b] = await Promise.all([app.request(p), here.request(p)]);
      expect(a.status, p).toBe(b.status);
      expect(a.headers.get("content-type"), p).toBe(b.headers.get("content-type"));
      expect(a.headers.get("etag"), p).toBe(b.headers.get("etag"));
      expect(await a.text(), p).toBe(await b.text());
    }
  });

  it("the console: overview, a night's report, the nights, flags and sources", async () => {
    const overview = await (await b.get("/console")).text();
    expect(overview).toContain("Night <a");
    expect(overview).toContain("2026-11-06");
    expect(overview).toContain("<strong>1200</strong> requests");
    expect(overview).toMatch(/<strong id="open-flags">1<\/strong>/);
    const nights = await (await b.get("/console/nights")).text();
    for (const n of ["2026-11-03", "2026-11-04", "2026-11-05", "2026-11-06"])
      expect(nights).toContain(`/console/nights/${n}`);
    const flags = await (await b.get("/console/flags")).text();
    expect(flags).toMatch(/<span id="open-count">1<\/span>/);
    const sources = await (await b.get("/console/sources?show=not-read")).text();
    expect(sources).toContain("akron-minutes");
    expect(sources).not.toContain("test-agendas");

    const r = await nightReport(reads.console, "2026-11-06", isNo);
    expect(r?.byKind).toEqual([
      { kind: "ok", count: 1 },
      { kind: "refused", count: 1 },
      { kind: "unreached", count: 1 },
    ]);
    expect(r?.nos.map((o) => [o.source, o.site, o.evidence?.reference])).toEqual([
      ["oh-b-bids", "b.gov", "8f1e2a3b4c5d6e7f"],
    ]);
    expect(r?.requests).toEqual([
      { site: "s0.gov", requests: 400, bytes: 40_000 },
      { site: "s1.gov", requests: 400, bytes: 40_000 },
      { site: "s2.gov", requests: 400, bytes: 40_000 },
    ]);
  });

  it("P27: the request-log search by window and site, source and URL", async () => {
    const log = new SqlRequestLog(reads.console);
    const since = T0 + 60_000;
    const until = T0 + 120_000;
    expect(await log.query({ since, until })).toHaveLength(60);
    const site = await log.query({ since, until, site: "s1.gov" });
    expect(site).toHaveLength(20);
    expect(site[0]?.url).toBe("https://s1.gov/p/61");
    expect(await log.query({ since, until, source: "oh-b-bids" })).toHaveLength(30);
    expect((await log.query({ urlContains: "/P/11" })).map((e) => e.url)).toEqual([
      "https://s2.gov/p/11",
      ...Array.from({ length: 10 }, (_, i) => `https://s${(110 + i) % 3}.gov/p/${110 + i}`),
      ...Array.from({ length: 100 }, (_, i) => `https://s${(1100 + i) % 3}.gov/p/${1100 + i}`),
    ]);
    // The console's page: 01:01 to 01:02 New York on s1.gov.
    const q = new URLSearchParams({
      since: "2026-11-06 01:01",
      until: "2026-11-06 01:01",
      site: "https://www.s1.gov/x",
    });
    const html = await (await b.get(`/console/log?${q}`)).text();
    expect(html).toContain("20 attempts match.");
  });
});
