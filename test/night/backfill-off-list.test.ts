import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { checkSource } from "../../src/night/check-source.js";
import { loadWayReader } from "../../src/night/lazy-reader.js";
import type { WayReader } from "../../src/night/reader.js";
import type { SourceHistory } from "../../src/night/types.js";
import type { Source } from "../../src/sources/catalog/types.js";
import { type Harness, harness } from "../fleet/harness.js";
import { robots } from "../fleet/routes.js";

/**
 * P6, P7: the backfill reads older pages of the list on the list's own site only. Found by an
 * adversarial review of the first mend: a next request with no host (a preset's form sent to
 * `javascript:`) threw out of the whole check, losing page 1's records every night, and a
 * cursor kept from an earlier night was followed wherever it pointed.
 */
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const fresh: SourceHistory = {
  reading: true,
  unreachedLast: false,
  recentOutcomes: [],
  recordsKnown: 0,
};

/** A reader of pages "title|": one record each; its next request is `next`. */
const textReader = (next: WayReader["nextRequest"]): WayReader => ({
  firstRequest: (way) => ({ url: way.url }),
  extract: (_w, body) => {
    const [t] = new TextDecoder().decode(body).split("|");
    return { records: [{ id: t ?? "", title: t ?? "" }] } as never;
  },
  nextRequest: next,
});

const sourceAt = (url: string, extra: Partial<Source> = {}): Source =>
  ({
    id: "bf",
    government: "g",
    records: "bids",
    url,
    access: "page",
    alternates: [],
    backfill: { pagesPerNight: 3 },
    ...extra,
  }) as unknown as Source;

describe("P6, P7: the backfill stays on the list's site", () => {
  it("P7: a next request to no web address (javascript:) ends the list: nothing thrown, page 1's records stand", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots(""));
    s.route("/list", (_q, res) => void res.writeHead(200).end("one|"));
    const reader = textReader(() => ({ url: "javascript:void(0)", method: "POST", body: "x=1" }));
    const r = await checkSource(
      { fetcher: h.fetcher(), clock: h.clock, reader, validators: { get: async () => undefined } },
      sourceAt(s.url("/list")),
      fresh,
    );
    expect(r.outcome.kind).toBe("ok");
    expect(r.records.map((x) => x.title)).toEqual(["one"]);
    expect(r.backfill?.done).toBe(true);
  });

  it("P6, P7: a cursor kept from an earlier night that points to another site is not followed; the list ends there", async () => {
    h = await harness();
    const list = await h.fleet.server();
    const other = await h.fleet.server();
    for (const s of [list, other]) s.route("/robots.txt", robots(""));
    list.route("/list", (_q, res) => void res.writeHead(200).end("one|"));
    other.route("/older", (_q, res) => void res.writeHead(200).end("elsewhere|"));
    expect(other.origin).not.toBe(list.origin);
    const history: SourceHistory = {
      ...fresh,
      recentOutcomes: ["ok"],
      recordsKnown: 1,
      backfill: { done: false, pagesRead: 1, cursor: { url: other.url("/older") } },
    };
    const r = await checkSource(
      {
        fetcher: h.fetcher(),
        clock: h.clock,
        reader: textReader(() => undefined),
        validators: { get: async () => undefined },
      },
      sourceAt(list.url("/list")),
      history,
    );
    expect(other.requests).toEqual([]);
    expect(r.records.map((x) => x.title)).toEqual(["one"]);
    // P7: the list ends there for the checker: its last page, as the operator is told.
    expect(r.backfill).toEqual({ done: true, pagesRead: 1, ended: { why: "last-page" } });
  });

  it("P5, P7: a Legistar calendar whose ASP.NET form is sent to javascript: is read, its pages not turned", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots(""));
    const html = readFileSync(
      new URL(
        "../fixtures/platforms/legistar-html/TN_nashville_Calendar.aspx_GET_thisyear.html",
        import.meta.url,
      ),
      "utf8",
    ).replace(/(<form[^>]*\saction=")[^"]*"/i, '$1javascript:void(0)"');
    s.route(
      "/Calendar.aspx",
      (_q, res) =>
        void res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(html),
    );
    const source = sourceAt(s.url("/Calendar.aspx"), {
      access: "form",
      platform: "legistar-html",
    } as Partial<Source>);
    const reader = await loadWayReader([source]);
    const r = await checkSource(
      { fetcher: h.fetcher(), clock: h.clock, reader, validators: { get: async () => undefined } },
      source,
      fresh,
    );
    expect(r.outcome.kind).toBe("ok");
    expect(r.records.length).toBeGreaterThan(0);
    expect(s.requests.map((q) => `${q.method} ${q.path}`)).toEqual([
      "GET /robots.txt",
      "GET /Calendar.aspx",
    ]);
  });

  it("P7: a list that moved to another site (a 301 to its new domain) goes on from page 1's own next link there; the cursor kept on the old site is dropped", async () => {
    h = await harness();
    const oldSite = await h.fleet.server();
    const newSite = await h.fleet.server();
    for (const s of [oldSite, newSite]) s.route("/robots.txt", robots(""));
    oldSite.route(
      "/list",
      (_q, res) => void res.writeHead(301, { location: newSite.url("/list") }).end(),
    );
    oldSite.route(
      "/list2",
      (_q, res) => void res.writeHead(301, { location: newSite.url("/list2") }).end(),
    );
    newSite.route("/list", (_q, res) => void res.writeHead(200).end("one|"));
    newSite.route("/list2", (_q, res) => void res.writeHead(200).end("two|"));
    const history: SourceHistory = {
      ...fresh,
      recentOutcomes: ["ok"],
      recordsKnown: 1,
      backfill: { done: false, pagesRead: 1, cursor: { url: oldSite.url("/list2") } },
    };
    const r = await checkSource(
      {
        fetcher: h.fetcher(),
        clock: h.clock,
        reader: textReader((_w, req) =>
          req.url.endsWith("/list") ? { url: newSite.url("/list2") } : undefined,
        ),
        validators: { get: async () => undefined },
      },
      sourceAt(oldSite.url("/list")),
      history,
    );
    expect(r.records.map((x) => x.title)).toEqual(["one", "two"]);
    expect(oldSite.hits("/list2")).toEqual([]);
    expect(r.backfill).toEqual({ done: true, pagesRead: 2, ended: { why: "last-page" } });
  });
});
