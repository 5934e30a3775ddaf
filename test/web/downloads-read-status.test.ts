import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { parse } from "csv-parse/sync";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { markSource } from "../../src/store/admin.js";
import { clearSiteRules, setSiteRule } from "../../src/store/site-rules.js";
import { buildFixture, type Fixture, NOT_READ_REASON } from "./fixture.js";

/**
 * P26, the directory: each source's status (read / not read and why) is in the record pages'
 * downloads too, as every page and the JSON API say it: `/downloads/sources.csv` has it in three
 * columns after the ones it had (their places unchanged), `/downloads/sources.json` a `status`
 * as `/api/sources/ID` gives it. Their ETags move with a person's mark and a site owner's
 * request, so a client holding the file before is not told it is current. Asked over HTTP on
 * loopback, as `nor serve` answers.
 */
type Status = { reading: boolean; reason: string | null; since: string | null };

const OLD_COLUMNS = ["id", "government_id", "name", "records", "url", "access", "platform"];

let f: Fixture;
let url = "";
let close: () => Promise<void> = async () => {};
beforeAll(async () => {
  f = await buildFixture();
  await new Promise<void>((resolve) => {
    const server = serve({ fetch: f.app.fetch, hostname: "127.0.0.1", port: 0 }, (info) => {
      url = `http://127.0.0.1:${(info as AddressInfo).port}`;
      close = () =>
        new Promise((done) => {
          if ("closeAllConnections" in server) server.closeAllConnections();
          server.close(() => done());
        });
      resolve();
    });
  });
});
afterAll(async () => {
  await close();
  await f?.close();
});

async function get(path: string, etag?: string) {
  const res = await fetch(`${url}${path}`, etag ? { headers: { "if-none-match": etag } } : {});
  return { status: res.status, etag: res.headers.get("etag") ?? "", body: await res.text() };
}

/** What the JSON API says of each source in the sources download: its status. */
async function apiStatus(id: string): Promise<Status> {
  const res = await fetch(`${url}/api/sources/${id}`);
  expect(res.status, id).toBe(200);
  return ((await res.json()) as { status: Status }).status;
}

/** The CSV's rows by id, and its header; the JSON's sources by id. */
async function files() {
  const csv = await get("/downloads/sources.csv");
  const json = await get("/downloads/sources.json");
  expect(csv.status).toBe(200);
  expect(json.status).toBe(200);
  const [header, ...rows] = parse(csv.body) as string[][];
  const byId = new Map(rows.map((r) => [r[0] as string, r]));
  const sources = (
    JSON.parse(json.body) as { sources: ({ id: string; status: Status } & object)[] }
  ).sources;
  return {
    header: header ?? [],
    csv: byId,
    json: new Map(sources.map((s) => [s.id, s])),
    tags: { csv: csv.etag, json: json.etag },
  };
}

/** Each source's status in both files is the API's, word for word. */
async function sameAsApi(got: Awaited<ReturnType<typeof files>>): Promise<void> {
  expect([...got.csv.keys()].sort()).toEqual([...got.json.keys()].sort());
  for (const [id, row] of got.csv) {
    const api = await apiStatus(id);
    expect(got.json.get(id)?.status, id).toEqual(api);
    expect(row.slice(OLD_COLUMNS.length), id).toEqual([
      api.reading ? "true" : "false",
      api.reason ?? "",
      api.since ?? "",
    ]);
  }
}

describe("the record pages' downloads say whether each is read, and why not", () => {
  it("P26: sources.csv has status_reading, status_reason, status_since after its columns, sources.json a status, both as the JSON API says them", async () => {
    const got = await files();
    // The columns it had keep their places; the status comes after them.
    expect(got.header).toEqual([...OLD_COLUMNS, "status_reading", "status_reason", "status_since"]);
    expect(got.csv.get("akron-minutes")?.slice(0, 5)).toEqual([
      "akron-minutes",
      "city-of-akron",
      "",
      "minutes",
      "https://akron.example/minutes",
    ]);
    // akron-minutes: marked not read by a person, with the reason, since the mark.
    expect(got.csv.get("akron-minutes")?.slice(OLD_COLUMNS.length)).toEqual([
      "false",
      NOT_READ_REASON,
      "2026-11-04T14:00:00.000Z",
    ]);
    expect(got.json.get("akron-minutes")?.status).toEqual({
      reading: false,
      reason: NOT_READ_REASON,
      since: "2026-11-04T14:00:00.000Z",
    });
    // A page never marked is read.
    expect(got.json.get("test-agendas")?.status).toEqual({
      reading: true,
      reason: null,
      since: null,
    });
    await sameAsApi(got);
  });

  it("P26, P24: a site owner's request not to be read, its clearing, and a person's marks each change both files and their ETags; a tag held from before is a 200 with the new bytes", async () => {
    const db = f.store.db;
    const seen = [await files()];
    const changed = async () => {
      const now = await files();
      const before = seen.at(-1);
      for (const k of ["csv", "json"] as const) {
        expect(now.tags[k], k).not.toBe(before?.tags[k]);
        const path = `/downloads/sources.${k}`;
        expect((await get(path, before?.tags[k])).status, k).toBe(200);
        expect((await get(path, now.tags[k])).status, k).toBe(304);
      }
      await sameAsApi(now);
      seen.push(now);
      return now;
    };

    // The owner of test.example asks the whole site not to be read.
    const at = Date.parse("2026-11-06T15:00:00.000Z");
    const set = await setSiteRule(db, {
      site: "test.example",
      kind: "not-read",
      reason: "asked by the clerk, e-mail of Nov 6",
      at,
      by: "operator",
    });
    expect(set.kind).toBe("set");
    const owner = await changed();
    for (const id of ["test-agendas", "test-bids"]) {
      expect(owner.json.get(id)?.status, id).toEqual({
        reading: false,
        reason: "the site's owner asked not to be read (asked by the clerk, e-mail of Nov 6)",
        since: "2026-11-06T15:00:00.000Z",
      });
    }
    expect(owner.json.get("evil-notices")?.status.reading).toBe(true);

    // Cleared: read again.
    expect(
      await clearSiteRules(db, {
        site: "test.example",
        kind: "not-read",
        at: at + 60_000,
        by: "operator",
      }),
    ).toBe(1);
    const cleared = await changed();
    expect(cleared.json.get("test-agendas")?.status.reading).toBe(true);

    // A person marks evil-notices not read, then akron-minutes read again.
    const mark = async (source: string, reading: boolean, minutes: number) =>
      expect(
        (
          await markSource(db, {
            source,
            reading,
            ...(reading ? {} : { reason: "the feed lists another township's notices" }),
            by: "operator",
            at: at + minutes * 60_000,
            night: "2026-11-06",
          })
        ).kind,
      ).toBe("marked");
    await mark("evil-notices", false, 2);
    expect((await changed()).csv.get("evil-notices")?.slice(OLD_COLUMNS.length)).toEqual([
      "false",
      "the feed lists another township's notices",
      "2026-11-06T15:02:00.000Z",
    ]);
    await mark("akron-minutes", true, 3);
    expect((await changed()).json.get("akron-minutes")?.status).toEqual({
      reading: true,
      reason: null,
      since: "2026-11-06T15:03:00.000Z",
    });
  });
});
