import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { checkSource } from "../../src/night/check-source.js";
import { flagsFor } from "../../src/night/flags.js";
import type { ValidatorStore, WayReader } from "../../src/night/reader.js";
import type { BackfillState, SourceHistory } from "../../src/night/types.js";
import type { Source } from "../../src/sources/catalog/types.js";
import { type Harness, harness } from "../fleet/harness.js";

/**
 * P7: a catalog's `backfill.pagesPerNight: 0` is a pause, not an end. A night that reads none
 * keeps the backfill "off" (its cursor and pages read kept); the first night the catalog asks
 * for older pages again, they are read from where it was, without `nor backfill restart`. A
 * backfill that ended for a reason of its own (its last page, given up) stays ended. Each test
 * is nights of one source on a real loopback server.
 */
let h: Harness | undefined;
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await h?.close();
  h = undefined;
  for (const c of closers.splice(0)) await c();
});

/** A line of text: "record|next page address". */
const reader: WayReader = {
  firstRequest: (way) => ({ url: way.url }),
  extract: (_way, body) => {
    const [title] = new TextDecoder().decode(body).split("|");
    return { records: title ? [{ id: title, title }] : [] } as never;
  },
  nextRequest: (_way, _prev, body) => {
    const next = new TextDecoder().decode(body).split("|")[1];
    return next ? { url: next } : undefined;
  },
};
const validators: ValidatorStore = { get: async () => undefined };

function sourceAt(url: string, pagesPerNight: number): Source {
  return {
    id: "bf",
    government: "g",
    url,
    access: "page",
    alternates: [],
    backfill: { pagesPerNight },
  } as unknown as Source;
}

function history(backfill: BackfillState | undefined): SourceHistory {
  return {
    reading: true,
    unreachedLast: false,
    recentOutcomes: [],
    recordsKnown: 1,
    ...(backfill ? { backfill } : {}),
  } as never;
}

/** A list of four pages: /list → /p2 → /p3 → /p4 (the last). */
async function list(): Promise<{ origin: string; paths: string[] }> {
  const paths: string[] = [];
  const srv = createServer((req, res) => {
    paths.push(req.url ?? "");
    const o = origin;
    if (req.url === "/robots.txt") return void res.writeHead(404).end();
    if (req.url === "/list") return void res.writeHead(200).end(`one|${o}/p2`);
    if (req.url === "/p2") return void res.writeHead(200).end(`two|${o}/p3`);
    if (req.url === "/p3") return void res.writeHead(200).end(`three|${o}/p4`);
    if (req.url === "/p4") return void res.writeHead(200).end("four|");
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", () => r()));
  const origin = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
  closers.push(() => new Promise<void>((r) => srv.close(() => r())));
  return { origin, paths };
}

describe("P7: backfill.pagesPerNight 0 pauses a backfill; raised again, it goes on by itself", () => {
  it("P7: a backfill under way, paused by a night of pagesPerNight 0, goes on from its cursor the first night the catalog asks for older pages again (no restart)", async () => {
    h = await harness({ realTime: true, gapMs: 20 });
    const s = await list();
    const ctx = { fetcher: h.fetcher(), clock: h.clock, reader, validators };
    const reading: BackfillState = { done: false, pagesRead: 1, cursor: { url: `${s.origin}/p3` } };
    const paused = await checkSource(ctx, sourceAt(`${s.origin}/list`, 0), history(reading));
    expect(paused.backfill).toMatchObject({ pagesRead: 1, cursor: { url: `${s.origin}/p3` } });
    expect(paused.backfill?.ended?.why).toBe("off");
    expect(s.paths).not.toContain("/p3");
    const state = paused.backfill as BackfillState;
    // The next night, the catalog asks for 3 a night again.
    const again = await checkSource(ctx, sourceAt(`${s.origin}/list`, 3), history(state));
    expect(s.paths.filter((p) => p === "/p3")).toHaveLength(1);
    expect(s.paths.filter((p) => p === "/p4")).toHaveLength(1);
    expect(again.records.map((r) => r.id)).toEqual(["one", "three", "four"]);
    expect(again.backfill).toMatchObject({ done: true, pagesRead: 3, ended: { why: "last-page" } });
  });

  it("P7: a source whose catalog asked for no older pages from its first night reads them from the list's first page once it asks (no restart)", async () => {
    h = await harness({ realTime: true, gapMs: 20 });
    const s = await list();
    const ctx = { fetcher: h.fetcher(), clock: h.clock, reader, validators };
    const off = await checkSource(ctx, sourceAt(`${s.origin}/list`, 0), history(undefined));
    expect(off.backfill).toMatchObject({ done: true, pagesRead: 0, ended: { why: "off" } });
    expect(s.paths).toEqual(["/robots.txt", "/list"]);
    // Still 0 the next night: nothing more asked, the state unchanged (not written again).
    const still = await checkSource(
      ctx,
      sourceAt(`${s.origin}/list`, 0),
      history(off.backfill as BackfillState),
    );
    expect(still.backfill).toBeUndefined();
    expect(s.paths.filter((p) => p !== "/list" && p !== "/robots.txt")).toEqual([]);
    const on = await checkSource(
      ctx,
      sourceAt(`${s.origin}/list`, 2),
      history(off.backfill as BackfillState),
    );
    expect(s.paths.filter((p) => p.startsWith("/p"))).toEqual(["/p2", "/p3"]);
    // The cursor kept with the way whose list it is on (P4).
    expect(on.backfill).toEqual({
      done: false,
      pagesRead: 2,
      cursor: { url: `${s.origin}/p4` },
      way: `${s.origin}/list`,
    });
  });

  it("P7: a pause keeps the nights its next page failed so far and the empty pages in a row, so a page that never answers is given up after BACKFILL_UNANSWERED_NIGHTS nights it was asked, a pause between or not (not counted from zero again)", async () => {
    h = await harness({ realTime: true, gapMs: 20 });
    const s = await list();
    const ctx = { fetcher: h.fetcher(), clock: h.clock, reader, validators };
    const failing: BackfillState = {
      done: false,
      pagesRead: 1,
      cursor: { url: `${s.origin}/p3` },
      misses: 1,
      failedNights: 2,
      unansweredNights: 9,
    };
    const paused = await checkSource(ctx, sourceAt(`${s.origin}/list`, 0), history(failing));
    expect(paused.backfill).toEqual({
      done: true,
      pagesRead: 1,
      cursor: { url: `${s.origin}/p3` },
      misses: 1,
      failedNights: 2,
      unansweredNights: 9,
      ended: { why: "off" },
    });
    expect(s.paths).not.toContain("/p3");
  });

  it("P7, P24: a backfill paused off that gives up the night it goes on again (its page's failed nights kept through the pause) raises its backfill-gave-up flag", () => {
    const off: BackfillState = {
      done: true,
      pagesRead: 1,
      cursor: { url: "https://a.gov/p3" },
      failedNights: 2,
      ended: { why: "off" },
    };
    const gaveUp: BackfillState = {
      done: true,
      pagesRead: 1,
      cursor: { url: "https://a.gov/p3" },
      ended: { why: "gave-up", url: "https://a.gov/p3", reason: "not the page 3 nights running" },
    };
    const flags = flagsFor(
      {
        sourceId: "bf",
        outcome: { kind: "ok", url: "https://a.gov/list" },
        records: [],
        validators: [],
        flags: [],
        startedAt: 0,
        endedAt: 1,
        backfill: gaveUp,
      },
      history(off),
    );
    expect(flags.map((f) => f.kind)).toContain("backfill-gave-up");
  });

  it("P7: a backfill that ended for a reason of its own (its last page, given up) stays ended through a pause and after it", async () => {
    h = await harness({ realTime: true, gapMs: 20 });
    const s = await list();
    const ctx = { fetcher: h.fetcher(), clock: h.clock, reader, validators };
    const gaveUp: BackfillState = {
      done: true,
      pagesRead: 1,
      cursor: { url: `${s.origin}/p3` },
      ended: { why: "gave-up", url: `${s.origin}/p3`, reason: "not the page 3 nights running" },
    };
    for (const perNight of [0, 3]) {
      const r = await checkSource(ctx, sourceAt(`${s.origin}/list`, perNight), history(gaveUp));
      expect(r.backfill).toBeUndefined();
    }
    expect(s.paths.filter((p) => p.startsWith("/p"))).toEqual([]);
  });
});
