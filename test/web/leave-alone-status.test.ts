import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type StoreLocation } from "../../src/store/db.js";
import { createApp } from "../../src/web/app.js";
import { runMain } from "../cli/cli-capture.js";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";
import { rss, writeCatalog } from "../night/cli-night.js";
import { postgresFactory, type StoreFactory } from "../store/stores.js";

/**
 * P26, the directory's status (read / not read and why): a site owner's request to leave some
 * pages alone (`nor site --leave-alone`) makes the nights ask nothing of a record page whose
 * every way in it covers, as the night decides it (the URL each way is first asked at: where it
 * moved permanently, P11; each way in its order, P4). The directory says that page is not read,
 * in the owner's words, since the request: the JSON API, the page, the downloads, the lists'
 * notices, `nor status`. A page of the same site the request does not cover reads, and says
 * read. Real nights over a loopback site; the directory served over HTTP on loopback.
 */
const REASON = "the clerk's e-mail of Nov 6";
const SAYS = `the site's owner asked for /permits/ to be left alone (${REASON})`;

type Status = { reading: boolean; reason: string | null; since: string | null };

const pgUrl = process.env["NOR_TEST_POSTGRES_URL"];
const stores: { name: string; factory?: StoreFactory }[] = [
  { name: "SQLite" },
  ...(pgUrl ? [{ name: "PostgreSQL", factory: postgresFactory(pgUrl) }] : []),
];

let fleet: Fleet;
const dirs: string[] = [];
beforeAll(async () => {
  fleet = await startFleet();
});
afterAll(async () => {
  await fleet?.close();
  for (const s of stores) await s.factory?.cleanup();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const feed = (site: FleetServer, path: string, prefix: string) =>
  site.route(
    path,
    (_q, res) =>
      void res
        .writeHead(200, { "content-type": "application/rss+xml" })
        .end(rss(site.origin, 1, prefix)),
  );

/** The directory of the store at `loc`, served on loopback while `body` runs. */
async function served<T>(loc: StoreLocation, body: (url: string) => Promise<T>): Promise<T> {
  const store = await openStore(loc, { create: false });
  const app = createApp({ db: store.db, now: Date.now });
  let close: () => Promise<void> = async () => {};
  const url = await new Promise<string>((resolve) => {
    const server = serve({ fetch: app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
      close = () =>
        new Promise((done) => {
          if ("closeAllConnections" in server) server.closeAllConnections();
          server.close(() => done());
        });
      resolve(`http://127.0.0.1:${(info as AddressInfo).port}`);
    });
  });
  try {
    return await body(url);
  } finally {
    await close();
    await store.close();
  }
}

/** What the directory says of each source: API, page, downloads (with their ETag), notices. */
async function directory(loc: StoreLocation, ids: readonly string[]) {
  return served(loc, async (url) => {
    const api = new Map<string, Status>();
    const page = new Map<string, string>();
    for (const id of ids) {
      const res = await fetch(`${url}/api/sources/${id}`);
      expect(res.status, id).toBe(200);
      api.set(id, ((await res.json()) as { status: Status }).status);
      const html = await fetch(`${url}/sources/${id}`);
      expect(html.status, id).toBe(200);
      page.set(id, await html.text());
    }
    const csvRes = await fetch(`${url}/downloads/sources.csv`);
    expect(csvRes.status).toBe(200);
    const [header, ...rows] = parse(await csvRes.text()) as string[][];
    const col = (name: string) => (header ?? []).indexOf(name);
    const csv = new Map(
      rows.map((r) => [
        r[0] as string,
        {
          reading: r[col("status_reading")],
          reason: r[col("status_reason")],
          since: r[col("status_since")],
        },
      ]),
    );
    const jsonRes = await fetch(`${url}/downloads/sources.json`);
    expect(jsonRes.status).toBe(200);
    await jsonRes.arrayBuffer();
    const newRes = await fetch(`${url}/api/new`);
    expect(newRes.status).toBe(200);
    const notRead = ((await newRes.json()) as { notRead: { source: string; reason: string }[] })
      .notRead;
    return {
      api,
      page,
      csv,
      notRead: new Map((notRead ?? []).map((p) => [p.source, p.reason])),
      etag: { csv: csvRes.headers.get("etag"), json: jsonRes.headers.get("etag") },
    };
  });
}

describe.each(stores)(
  "a site owner's request to leave pages alone, in the directory ($name)",
  ({ factory }) => {
    it("P26, P18: a real night asks nothing of the page the request covers (where it moved too, and each way in), and the API, the page, sources.csv, the lists' notice and nor status say it is not read with the owner's reason since the request; the page it does not cover reads and says read; cleared, read again; / covers every page; the downloads' ETags move each time", async () => {
      const dir = mkdtempSync(join(tmpdir(), "nor-leave-alone-status-"));
      dirs.push(dir);
      const loc: StoreLocation = factory
        ? await factory.fresh()
        : { kind: "sqlite", dir: join(dir, "data") };
      const env = factory ? { NOR_DATABASE_URL: (loc as { url: string }).url } : {};
      const data = join(dir, "data");
      const nor = async (args: string[]) => {
        const r = await runMain([...args, "--data", data], { env });
        expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
        return r.stdout;
      };
      const night = async (date: string) => {
        const r = await runMain(
          [
            "night",
            "--catalog",
            catalog,
            "--data",
            data,
            "--night",
            date,
            "--allow-private-addresses",
            "--gap-ms",
            "50",
            "--concurrency",
            "4",
          ],
          { env },
        );
        expect(r.code, r.stderr).toBe(0);
      };

      const site = await fleet.server();
      site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
      feed(site, "/permits/list.rss", "permit");
      feed(site, "/agendas/list.rss", "agenda");
      feed(site, "/permits/bids.rss", "bid");
      feed(site, "/permits/notices.rss", "notice");
      feed(site, "/notices/list.rss", "notice2");
      // The bids' catalog URL moved permanently into /permits/ (P11: asked there from then on).
      site.route(
        "/old/bids.rss",
        (_q, res) => void res.writeHead(301, { location: site.url("/permits/bids.rss") }).end(),
      );
      const entry = (id: string, path: string, more: string[] = []) => [
        `id: ${id}`,
        "government: village-of-test",
        `records: ${id}`,
        "access: feed",
        `url: ${site.url(path)}`,
        ...more,
      ];
      const catalog = writeCatalog(dir, [
        entry("permits", "/permits/list.rss"),
        entry("agendas", "/agendas/list.rss"),
        entry("bids", "/old/bids.rss"),
        // Two ways in: the first is left alone, the second asked (P4): read.
        entry("notices", "/permits/notices.rss", [
          `alternates: [{ access: feed, url: "${site.url("/notices/list.rss")}" }]`,
        ]),
      ]);
      const ids = ["permits", "agendas", "bids", "notices"];
      const asked = () => site.requests.map((q) => q.path);

      // A first night before any request: everything read, the bids' move remembered.
      await night("2026-11-04");
      expect(asked()).toContain("/permits/bids.rss");
      const before = await directory(loc, ids);
      for (const id of ids) expect(before.api.get(id)?.reading, id).toBe(true);

      await nor(["site", site.url("/"), "--leave-alone", "/permits/", "--reason", REASON]);
      const set = await directory(loc, ids);
      const since = set.api.get("permits")?.since ?? "";
      expect(Number.isNaN(Date.parse(since))).toBe(false);
      for (const id of ["permits", "bids"]) {
        expect(set.api.get(id), id).toEqual({ reading: false, reason: SAYS, since });
        expect(set.csv.get(id), id).toEqual({ reading: "false", reason: SAYS, since });
        expect(set.page.get(id), id).toContain("to be left alone");
        expect(set.page.get(id), id).toContain("e-mail of Nov 6");
        expect(set.notRead.get(id), id).toBe(SAYS);
      }
      for (const id of ["agendas", "notices"]) {
        expect(set.api.get(id)?.reading, id).toBe(true);
        expect(set.csv.get(id)?.reading, id).toBe("true");
        expect(set.notRead.has(id), id).toBe(false);
      }
      expect(set.etag.csv).not.toBe(before.etag.csv);
      expect(set.etag.json).not.toBe(before.etag.json);
      const status = async () =>
        new Map(
          (
            JSON.parse(await nor(["status", "--json"])) as { id: string; siteNotRead?: string }[]
          ).map((r) => [r.id, r.siteNotRead]),
        );
      const st = await status();
      expect(st.get("permits")).toBe(SAYS);
      expect(st.get("bids")).toBe(SAYS);
      expect(st.get("agendas")).toBeUndefined();
      expect(st.get("notices")).toBeUndefined();
      expect(await nor(["status"])).toContain(`\tnot read: ${SAYS}\t`);

      // The night that follows asks nothing the request covers, and reads the rest.
      const from = site.requests.length;
      await night("2026-11-05");
      const second = site.requests.slice(from).map((q) => q.path);
      expect(second.filter((p) => p.startsWith("/permits/"))).toEqual([]);
      expect(second).toEqual(expect.arrayContaining(["/agendas/list.rss", "/notices/list.rss"]));
      expect(second).not.toContain("/old/bids.rss");

      // Cleared: read again, said so, and asked by the next night.
      await nor(["site", site.url("/"), "--clear-leave-alone", "/permits/", "--reason", "done"]);
      const cleared = await directory(loc, ids);
      for (const id of ids) {
        expect(cleared.api.get(id)?.reading, id).toBe(true);
        expect(cleared.csv.get(id)?.reading, id).toBe("true");
      }
      expect(cleared.notRead.size).toBe(0);
      expect(cleared.etag.csv).not.toBe(set.etag.csv);
      expect(cleared.etag.json).not.toBe(set.etag.json);
      expect([...(await status()).values()].filter((v) => v !== undefined)).toEqual([]);
      const third = site.requests.length;
      await night("2026-11-06");
      expect(site.requests.slice(third).map((q) => q.path)).toEqual(
        expect.arrayContaining(["/permits/list.rss", "/permits/bids.rss", "/agendas/list.rss"]),
      );

      // The whole site left alone: every page of it is not read, in those words.
      await nor(["site", site.url("/"), "--leave-alone", "/", "--reason", REASON]);
      const whole = await directory(loc, ids);
      const all = `the site's owner asked for / to be left alone (${REASON})`;
      for (const id of ids) {
        expect(whole.api.get(id)?.reading, id).toBe(false);
        expect(whole.api.get(id)?.reason, id).toBe(all);
        expect(whole.csv.get(id)?.reason, id).toBe(all);
      }
      expect(whole.etag.csv).not.toBe(cleared.etag.csv);
    }, 120_000);

    it("P26, P18: a platform's page is judged where the night asks it (its first request, not its catalog URL): a request for that path leaves it unread and the night asks nothing; one for the catalog URL's path alone does not, and the night reads it", async () => {
      const site = await fleet.server();
      site.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
      site.route(
        "/Bids.aspx",
        (_q, res) =>
          void res
            .writeHead(200, { "content-type": "text/html" })
            .end(
              '<html><body><a href="Bids.aspx?bidID=417">Road Salt (RFB 26-04)</a></body></html>',
            ),
      );
      /** A store whose one page is a civicplus-bids page, its site's owner asking for `path`. */
      const withRequest = async (path: string) => {
        const dir = mkdtempSync(join(tmpdir(), "nor-leave-alone-platform-"));
        dirs.push(dir);
        const loc: StoreLocation = factory
          ? await factory.fresh()
          : { kind: "sqlite", dir: join(dir, "data") };
        const env = factory ? { NOR_DATABASE_URL: (loc as { url: string }).url } : {};
        const data = join(dir, "data");
        const nor = async (args: string[]) => {
          const r = await runMain([...args, "--data", data], { env });
          expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
        };
        // civicplus-bids asks the site's /Bids.aspx whatever page of it the catalog names.
        const catalog = writeCatalog(dir, [
          [
            "id: bids",
            "government: village-of-test",
            "records: bids",
            "access: page",
            "platform: civicplus-bids",
            `url: ${site.url("/city/bids")}`,
          ],
        ]);
        await nor(["catalog", "import", catalog]);
        await nor(["site", site.url("/"), "--leave-alone", path, "--reason", REASON]);
        const status = (await directory(loc, ["bids"])).api.get("bids");
        const from = site.requests.length;
        await nor([
          ...["night", "--catalog", catalog, "--night", "2026-11-05"],
          ...["--allow-private-addresses", "--gap-ms", "50"],
        ]);
        return { status, asked: site.requests.slice(from).map((q) => q.path) };
      };

      // Only the catalog URL's path left alone: the night never asks that path, it asks /Bids.aspx;
      // the page is read, and says so.
      const other = await withRequest("/city/");
      expect(other.status?.reading).toBe(true);
      expect(other.asked).toContain("/Bids.aspx");
      expect(other.asked.filter((p) => p.startsWith("/city/"))).toEqual([]);

      // Left alone where the night asks it: not read, and nothing asked of it.
      const alone = await withRequest("/Bids.aspx");
      expect(alone.status).toEqual({
        reading: false,
        reason: `the site's owner asked for /Bids.aspx to be left alone (${REASON})`,
        since: expect.any(String),
      });
      expect(alone.asked).not.toContain("/Bids.aspx");
    }, 120_000);

    it("P26, P11: a page whose feed moved permanently onto another site is asked only there; that site's owner asks not to be read: the night asks nothing of it (on either site) and the API, the lists' notice and nor status say it not read in the owner's words; a page of its old site stays read", async () => {
      const dir = mkdtempSync(join(tmpdir(), "nor-moved-not-read-"));
      dirs.push(dir);
      const loc: StoreLocation = factory
        ? await factory.fresh()
        : { kind: "sqlite", dir: join(dir, "data") };
      const env = factory ? { NOR_DATABASE_URL: (loc as { url: string }).url } : {};
      const data = join(dir, "data");
      const nor = async (args: string[]) => {
        const r = await runMain([...args, "--data", data], { env });
        expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
        return r.stdout;
      };
      const old = await fleet.server();
      const vendor = await fleet.server();
      for (const s of [old, vendor])
        s.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
      old.route(
        "/agendas.rss",
        (_q, res) => void res.writeHead(301, { location: vendor.url("/x/agendas.rss") }).end(),
      );
      feed(vendor, "/x/agendas.rss", "agenda");
      feed(old, "/bids.rss", "bid");
      const entry = (id: string, url: string) => [
        `id: ${id}`,
        "government: village-of-test",
        `records: ${id}`,
        "access: feed",
        `url: ${url}`,
      ];
      const catalog = writeCatalog(dir, [
        entry("agendas", old.url("/agendas.rss")),
        entry("bids", old.url("/bids.rss")),
      ]);
      const night = (date: string) =>
        nor([
          ...["night", "--catalog", catalog, "--night", date, "--allow-private-addresses"],
          ...["--gap-ms", "50"],
        ]);
      await night("2026-11-04");
      expect(vendor.requests.map((q) => q.path)).toContain("/x/agendas.rss");
      const VENDOR = "the vendor's e-mail of Nov 6";
      await nor(["site", vendor.url("/"), "--not-read", "--reason", VENDOR]);
      const words = `the site's owner asked not to be read (${VENDOR})`;
      const said = await directory(loc, ["agendas", "bids"]);
      expect(said.api.get("agendas")).toEqual({
        reading: false,
        reason: words,
        since: expect.any(String),
      });
      expect(said.notRead.get("agendas")).toBe(words);
      expect(said.api.get("bids")?.reading).toBe(true);
      const st = new Map(
        (JSON.parse(await nor(["status", "--json"])) as { id: string; siteNotRead?: string }[]).map(
          (r) => [r.id, r.siteNotRead],
        ),
      );
      expect(st.get("agendas")).toBe(words);
      expect(st.get("bids")).toBeUndefined();
      const [fromOld, fromVendor] = [old.requests.length, vendor.requests.length];
      await night("2026-11-05");
      expect(vendor.requests.slice(fromVendor)).toEqual([]);
      const asked = old.requests.slice(fromOld).map((q) => q.path);
      expect(asked).not.toContain("/agendas.rss");
      expect(asked).toContain("/bids.rss");
    }, 120_000);

    it("P26, P4: a page on a site whose owner asked not to be read, with another way in on a site that did not ask, is read by that way each night, and the API, the lists and nor status say it read; a page of that site with no other way is not read", async () => {
      const dir = mkdtempSync(join(tmpdir(), "nor-not-read-other-way-"));
      dirs.push(dir);
      const loc: StoreLocation = factory
        ? await factory.fresh()
        : { kind: "sqlite", dir: join(dir, "data") };
      const env = factory ? { NOR_DATABASE_URL: (loc as { url: string }).url } : {};
      const data = join(dir, "data");
      const nor = async (args: string[]) => {
        const r = await runMain([...args, "--data", data], { env });
        expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(0);
        return r.stdout;
      };
      const city = await fleet.server();
      const vendor = await fleet.server();
      for (const s of [city, vendor])
        s.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
      feed(city, "/agendas.rss", "agenda");
      feed(city, "/bids.rss", "bid");
      feed(vendor, "/city/agendas.rss", "vagenda");
      const catalog = writeCatalog(dir, [
        [
          "id: agendas",
          "government: village-of-test",
          "records: agendas",
          "access: feed",
          `url: ${city.url("/agendas.rss")}`,
          `alternates: [{ access: feed, url: "${vendor.url("/city/agendas.rss")}" }]`,
        ],
        [
          "id: bids",
          "government: village-of-test",
          "records: bids",
          "access: feed",
          `url: ${city.url("/bids.rss")}`,
        ],
      ]);
      await nor(["catalog", "import", catalog]);
      const CITY = "the clerk's e-mail of Nov 6";
      await nor(["site", city.url("/"), "--not-read", "--reason", CITY]);
      await nor([
        ...["night", "--catalog", catalog, "--night", "2026-11-05", "--allow-private-addresses"],
        ...["--gap-ms", "50"],
      ]);
      expect(city.requests.map((q) => q.path).filter((p) => p !== "/robots.txt")).toEqual([]);
      expect(vendor.requests.map((q) => q.path)).toContain("/city/agendas.rss");
      const said = await directory(loc, ["agendas", "bids"]);
      expect(said.api.get("agendas")?.reading).toBe(true);
      expect(said.csv.get("agendas")?.reading).toBe("true");
      expect(said.notRead.has("agendas")).toBe(false);
      const words = `the site's owner asked not to be read (${CITY})`;
      expect(said.api.get("bids")?.reason).toBe(words);
      expect(said.notRead.get("bids")).toBe(words);
      const st = new Map(
        (JSON.parse(await nor(["status", "--json"])) as { id: string; siteNotRead?: string }[]).map(
          (r) => [r.id, r.siteNotRead],
        ),
      );
      expect(st.get("agendas")).toBeUndefined();
      expect(st.get("bids")).toBe(words);
    }, 120_000);
  },
);
