import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import type { Clock } from "../../src/clock.js";
import { requestKey } from "../../src/net/journal.js";
import { MIN_ADMIT_AHEAD_MS } from "../../src/net/steps/site-gate.js";
import { backfillText } from "../../src/night/backfill-words.js";
import { checkSource } from "../../src/night/check-source.js";
import type { ValidatorStore, WayReader } from "../../src/night/reader.js";
import type { BackfillState, SourceHistory } from "../../src/night/types.js";
import { BACKFILL_MISSES, BACKFILL_UNANSWERED_NIGHTS } from "../../src/policy/constants.js";
import { originOf, siteOf } from "../../src/policy/site.js";
import type { Source } from "../../src/sources/catalog/types.js";
import { backfillOfRow, cursorJson } from "../../src/store/backfill.js";
import { type Harness, harness } from "../fleet/harness.js";

/**
 * P7: an older page that fails tonight counts against the backfill only when the site answered
 * with something that is not the page (a 4xx, too large, unreadable): BACKFILL_MISSES such
 * nights end it. A night it got no answer at all (a time-out, a connection refused, a 5xx) is
 * no miss: the page is asked again the next night, for at most BACKFILL_UNANSWERED_NIGHTS
 * nights in a row, then the backfill gives up on it (its cursor kept for `nor backfill
 * restart`). Each test is one night of one source, on a real loopback server.
 */
let h: Harness | undefined;
const servers: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await h?.close();
  h = undefined;
  for (const s of servers.splice(0)) await s.close();
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

function sourceAt(url: string): Source {
  return {
    id: "bf",
    government: "g",
    url,
    access: "page",
    alternates: [],
    backfill: { pagesPerNight: 3 },
  } as unknown as Source;
}

function history(backfill: BackfillState): SourceHistory {
  return {
    reading: true,
    unreachedLast: false,
    recentOutcomes: [],
    recordsKnown: 1,
    backfill,
  } as never;
}

/** A loopback server of our own (so it can stop listening between two requests), its requests seen. */
async function server(
  handle: (req: IncomingMessage, res: ServerResponse, stop: () => void) => void,
): Promise<{ origin: string; paths: string[] }> {
  const paths: string[] = [];
  const sockets = new Set<Socket>();
  const srv = createServer((req, res) => {
    paths.push(req.url ?? "");
    handle(req, res, () => srv.close());
  });
  srv.on("connection", (s: Socket) => {
    sockets.add(s);
    s.once("close", () => sockets.delete(s));
  });
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", () => r()));
  servers.push({
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        srv.close(() => r());
        if (!srv.listening) r();
      }),
  });
  return { origin: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`, paths };
}

describe("P7: an older page that gets no answer is no miss", () => {
  it("P7, P14: an older page that times out is asked again the next night: it counts apart from the answers that were not the page, and two of those before do not end the backfill", async () => {
    h = await harness({ realTime: true, gapMs: 20 });
    const s = await server((req, res) => {
      if (req.url === "/robots.txt") return void res.writeHead(404).end();
      if (req.url === "/list") return void res.writeHead(200).end(`one|${origin}/older`);
      // /older: no headers, ever (the fetcher's time limit, shortened on loopback, ends it).
    });
    const origin = s.origin;
    const result = await checkSource(
      {
        fetcher: h.fetcher({ transportOptions: { headersTimeoutMs: 300 } }),
        clock: h.clock,
        reader,
        validators,
      },
      sourceAt(`${origin}/list`),
      history({
        done: false,
        pagesRead: 2,
        cursor: { url: `${origin}/older` },
        failedNights: BACKFILL_MISSES - 1,
      }),
    );
    // Asked once (P15: a time-out is not retried tonight), and the source's night is page 1's.
    expect(s.paths.filter((p) => p === "/older")).toHaveLength(1);
    expect(result.outcome.kind).toBe("ok");
    expect(result.backfill).toEqual({
      done: false,
      pagesRead: 2,
      cursor: { url: `${origin}/older` },
      failedNights: BACKFILL_MISSES - 1,
      unansweredNights: 1,
      way: `${origin}/list`,
    });
  });

  it("P7: an older page whose server refuses the connection is no miss: one night short of BACKFILL_UNANSWERED_NIGHTS, the backfill goes on from that page", async () => {
    h = await harness({ realTime: true, gapMs: 20 });
    const s = await server((req, res, stop) => {
      if (req.url === "/robots.txt") return void res.writeHead(404, { connection: "close" }).end();
      if (req.url === "/list") {
        // Page 1 answers, then the server stops listening: the older page's connection is refused.
        res.writeHead(200, { connection: "close" }).end(`one|${s.origin}/older`);
        return stop();
      }
      res.writeHead(200).end("old|");
    });
    const ctx = { fetcher: h.fetcher(), clock: h.clock, reader, validators };
    const before: BackfillState = {
      done: false,
      pagesRead: 2,
      cursor: { url: `${s.origin}/older` },
      unansweredNights: BACKFILL_UNANSWERED_NIGHTS - 2,
    };
    const once = await checkSource(ctx, sourceAt(`${s.origin}/list`), history(before));
    expect(once.outcome.kind).toBe("ok");
    expect(once.backfill).toEqual({
      ...before,
      unansweredNights: BACKFILL_UNANSWERED_NIGHTS - 1,
      way: `${s.origin}/list`,
    });
    expect(s.paths).toEqual(["/robots.txt", "/list"]);
  });

  it("P7: an older page that got no answer BACKFILL_UNANSWERED_NIGHTS nights running (a 503 after its retries) is given up, with its address and why, its cursor kept", async () => {
    h = await harness({ realTime: true, gapMs: 20 });
    const s = await server((req, res) => {
      if (req.url === "/robots.txt") return void res.writeHead(404).end();
      if (req.url === "/list") return void res.writeHead(200).end(`one|${s.origin}/older`);
      res.writeHead(503, { "retry-after": "0" }).end("busy");
    });
    const ctx = { fetcher: h.fetcher(), clock: h.clock, reader, validators };
    const r = await checkSource(
      ctx,
      sourceAt(`${s.origin}/list`),
      history({
        done: false,
        pagesRead: 4,
        cursor: { url: `${s.origin}/older` },
        unansweredNights: BACKFILL_UNANSWERED_NIGHTS - 1,
      }),
    );
    // P15: asked three times tonight, all 503.
    expect(s.paths.filter((p) => p === "/older")).toHaveLength(3);
    expect(r.backfill).toMatchObject({
      done: true,
      pagesRead: 4,
      cursor: { url: `${s.origin}/older` },
      ended: { why: "gave-up", url: `${s.origin}/older` },
    });
    expect(r.backfill?.ended?.reason).toBe(
      `no answer ${BACKFILL_UNANSWERED_NIGHTS} nights running (last: error, HTTP 503 (retries-exhausted))`,
    );
  });

  it("P7: an older page answered with something else than the page (a 400) BACKFILL_MISSES nights running ends the backfill: given up, said so", async () => {
    h = await harness({ realTime: true, gapMs: 20 });
    const s = await server((req, res) => {
      if (req.url === "/robots.txt") return void res.writeHead(404).end();
      if (req.url === "/list") return void res.writeHead(200).end(`one|${s.origin}/older`);
      res.writeHead(400).end("bad request");
    });
    const ctx = { fetcher: h.fetcher(), clock: h.clock, reader, validators };
    const r = await checkSource(
      ctx,
      sourceAt(`${s.origin}/list`),
      history({
        done: false,
        pagesRead: 4,
        cursor: { url: `${s.origin}/older` },
        failedNights: BACKFILL_MISSES - 1,
        unansweredNights: 5,
      }),
    );
    expect(s.paths.filter((p) => p === "/older")).toHaveLength(1);
    expect(r.backfill).toMatchObject({
      done: true,
      ended: {
        why: "gave-up",
        url: `${s.origin}/older`,
        reason: `not the page ${BACKFILL_MISSES} nights running (last: error, HTTP 400)`,
      },
    });
  });
  it("P7, P15: an older page whose server asks for a wait longer than the night waits (a 503 with Retry-After: 7200) got no answer about itself: it counts as such a night, and BACKFILL_UNANSWERED_NIGHTS of them give up on it, so it is not asked every night for ever", async () => {
    h = await harness({ realTime: true, gapMs: 20 });
    const s = await server((req, res) => {
      if (req.url === "/robots.txt") return void res.writeHead(404).end();
      if (req.url === "/list") return void res.writeHead(200).end(`one|${s.origin}/older`);
      res.writeHead(503, { "retry-after": "7200" }).end("busy");
    });
    const ctx = { fetcher: h.fetcher(), clock: h.clock, reader, validators };
    const cursor = { url: `${s.origin}/older` };
    const first = await checkSource(
      ctx,
      sourceAt(`${s.origin}/list`),
      history({ done: false, pagesRead: 4, cursor }),
    );
    // Asked once (the site's hold: not again tonight), and counted.
    expect(s.paths.filter((p) => p === "/older")).toHaveLength(1);
    expect(first.backfill).toEqual({
      done: false,
      pagesRead: 4,
      cursor,
      unansweredNights: 1,
      way: `${s.origin}/list`,
    });
    const last = await checkSource(
      ctx,
      sourceAt(`${s.origin}/list`),
      history({
        done: false,
        pagesRead: 4,
        cursor,
        unansweredNights: BACKFILL_UNANSWERED_NIGHTS - 1,
      }),
    );
    expect(last.backfill).toMatchObject({
      done: true,
      cursor,
      ended: { why: "gave-up", url: `${s.origin}/older` },
    });
  });
  it("P7: an older page the net never sends (its address carries credentials, P3) is no night of no answer: it counts as not the page (BACKFILL_MISSES), the net's outcome saying which, never its words", async () => {
    h = await harness({ realTime: true, gapMs: 20 });
    const s = await server((req, res) => {
      if (req.url === "/robots.txt") return void res.writeHead(404).end();
      if (req.url === "/list") return void res.writeHead(200).end("one|");
      res.writeHead(200).end("old|");
    });
    const ctx = { fetcher: h.fetcher(), clock: h.clock, reader, validators };
    const cursor = { url: `${s.origin.replace("//", "//u:p@")}/older` };
    const r = await checkSource(
      ctx,
      sourceAt(`${s.origin}/list`),
      history({ done: false, pagesRead: 4, cursor }),
    );
    expect(s.paths).not.toContain("/older");
    expect(r.backfill).toEqual({
      done: false,
      pagesRead: 4,
      cursor,
      failedNights: 1,
      lastMiss: expect.stringContaining("user-info"),
      way: `${s.origin}/list`,
    });
  });
  it("P7: an older page that answers redirects without end (too many redirects) answered with something that is not the page: a night of BACKFILL_MISSES, not of no answer (the net's outcome says which, never its words)", async () => {
    h = await harness({ realTime: true, gapMs: 20 });
    const s = await server((req, res) => {
      if (req.url === "/robots.txt") return void res.writeHead(404).end();
      if (req.url === "/list") return void res.writeHead(200).end(`one|${s.origin}/older`);
      // /older → /older/1 → /older/1/1 → … each a new address, never ending.
      res.writeHead(302, { location: `${req.url}/1` }).end();
    });
    const ctx = { fetcher: h.fetcher(), clock: h.clock, reader, validators };
    const cursor = { url: `${s.origin}/older` };
    const r = await checkSource(
      ctx,
      sourceAt(`${s.origin}/list`),
      history({ done: false, pagesRead: 4, cursor }),
    );
    expect(r.backfill).toEqual({
      done: false,
      pagesRead: 4,
      cursor,
      failedNights: 1,
      lastMiss: "error, too many redirects",
      way: `${s.origin}/list`,
    });
  });
});

/**
 * A clock whose sleeps keep their time until `early` is set; from then on a short sleep (the
 * last moments before a request's planned start) wakes a millisecond early, every time: the
 * site gate never sees the planned start come, and does not send (P10: never before it).
 */
class WakesEarly implements Clock {
  early = false;
  #t = Date.UTC(2026, 10, 5, 7, 0, 0);
  now(): number {
    return this.#t;
  }
  async sleep(ms: number): Promise<void> {
    await new Promise((r) => setImmediate(r));
    const wait = Math.max(0, ms);
    this.#t += this.early && wait <= MIN_ADMIT_AHEAD_MS ? Math.max(0, wait - 1) : wait;
  }
}

describe("P7: an older page not sent is no answer", () => {
  it("P7, P10: an older page the politeness gate did not send (its planned start never came) counts as nothing: no night of 'not the page', none of no answer; asked again the next night", async () => {
    h = await harness({ realTime: true });
    const clock = new WakesEarly();
    const s = await server((req, res) => {
      if (req.url === "/robots.txt") return void res.writeHead(404).end();
      if (req.url === "/list") {
        clock.early = true;
        return void res.writeHead(200).end(`one|${s.origin}/older`);
      }
      res.writeHead(200).end("old|");
    });
    const ctx = { fetcher: h.fetcher({ clock }), clock, reader, validators };
    const before: BackfillState = {
      done: false,
      pagesRead: 4,
      cursor: { url: `${s.origin}/older` },
      failedNights: BACKFILL_MISSES - 1,
      unansweredNights: BACKFILL_UNANSWERED_NIGHTS - 1,
    };
    const r = await checkSource(ctx, sourceAt(`${s.origin}/list`), history(before));
    // Never sent: the site saw robots.txt and page 1 only.
    expect(s.paths).toEqual(["/robots.txt", "/list"]);
    expect(r.outcome.kind).toBe("ok");
    // Nothing counted, nothing given up: the state as it was (not written again).
    expect(r.backfill ?? before).toEqual(before);
  });

  it("P7, P20: an older page whose robots.txt the checker's own crashes left unasked (its sends used up) was not sent: no night of no answer", async () => {
    h = await harness();
    const night = "2026-11-05";
    const list = await h.fleet.server();
    // Another origin of the same site (127.0.0.1): the list's own site, its robots.txt apart.
    const other = await h.fleet.server({ host: list.host });
    list.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    list.route("/list", (_q, res) => void res.writeHead(200).end(`one|${other.url("/older")}`));
    other.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    other.route("/older", (_q, res) => void res.writeHead(200).end("old|"));
    // Three sends of its robots.txt tonight, each cut short by the checker's own end.
    const robotsUrl = other.url("/robots.txt");
    for (let i = 0; i < 3; i++) {
      const at = h.clock.now() - 100_000 + i * 10_000;
      const a = await h.ports.journal.admit(
        {
          night,
          key: requestKey({ method: "GET", url: robotsUrl }),
          method: "GET",
          url: robotsUrl,
          site: siteOf(robotsUrl),
          origin: originOf(robotsUrl),
          purpose: "robots",
          gapMs: 2000,
          replayAllowed: true,
        },
        "host:1:gone",
        at,
      );
      if (a.kind !== "go") throw new Error(a.kind);
      await h.ports.journal.complete(a.id, "host:1:gone", {
        endedAt: at + 5,
        status: null,
        outcome: "interrupted",
        failure: "internal: the checker stopped",
        bytes: 0,
        final: false,
        closedEarly: false,
      });
    }
    const ctx = { fetcher: h.fetcher({ night }), clock: h.clock, reader, validators };
    const before: BackfillState = {
      done: false,
      pagesRead: 4,
      cursor: { url: other.url("/older") },
      unansweredNights: BACKFILL_UNANSWERED_NIGHTS - 1,
    };
    const r = await checkSource(ctx, sourceAt(list.url("/list")), history(before));
    expect(other.hits("/older")).toHaveLength(0);
    expect(other.hits("/robots.txt")).toHaveLength(0);
    expect(r.outcome.kind).toBe("ok");
    expect(r.backfill ?? before).toEqual(before);
  });

  it("P7, P20: an older page that redirects to an origin whose robots.txt the checker's own crashes left unasked (its sends used up) got no answer of its own: no night of no answer", async () => {
    h = await harness();
    const night = "2026-11-05";
    const list = await h.fleet.server();
    const other = await h.fleet.server({ host: list.host });
    const third = await h.fleet.server({ host: list.host });
    list.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    list.route("/list", (_q, res) => void res.writeHead(200).end(`one|${other.url("/older")}`));
    other.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    other.route(
      "/older",
      (_q, res) => void res.writeHead(302, { location: third.url("/moved") }).end(),
    );
    third.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    third.route("/moved", (_q, res) => void res.writeHead(200).end("old|"));
    const robotsUrl = third.url("/robots.txt");
    for (let i = 0; i < 3; i++) {
      const at = h.clock.now() - 100_000 + i * 10_000;
      const a = await h.ports.journal.admit(
        {
          night,
          key: requestKey({ method: "GET", url: robotsUrl }),
          method: "GET",
          url: robotsUrl,
          site: siteOf(robotsUrl),
          origin: originOf(robotsUrl),
          purpose: "robots",
          gapMs: 2000,
          replayAllowed: true,
        },
        "host:1:gone",
        at,
      );
      if (a.kind !== "go") throw new Error(a.kind);
      await h.ports.journal.complete(a.id, "host:1:gone", {
        endedAt: at + 5,
        status: null,
        outcome: "interrupted",
        failure: "internal: the checker stopped",
        bytes: 0,
        final: false,
        closedEarly: false,
      });
    }
    const ctx = { fetcher: h.fetcher({ night }), clock: h.clock, reader, validators };
    const before: BackfillState = {
      done: false,
      pagesRead: 4,
      cursor: { url: other.url("/older") },
      unansweredNights: BACKFILL_UNANSWERED_NIGHTS - 1,
    };
    const r = await checkSource(ctx, sourceAt(list.url("/list")), history(before));
    expect(other.hits("/older")).toHaveLength(1);
    expect(third.hits("/moved")).toHaveLength(0);
    expect(third.hits("/robots.txt")).toHaveLength(0);
    expect(r.outcome.kind).toBe("ok");
    expect(r.backfill ?? before).toEqual(before);
  });
});

describe("what is said of an older page robots.txt keeps unasked", () => {
  it("P7, P17: a next page robots.txt disallows is never asked, counts as a night it was not read, and is said so: not that the site answered", async () => {
    h = await harness({ realTime: true, gapMs: 20 });
    const s = await server((req, res) => {
      if (req.url === "/robots.txt")
        return void res.writeHead(200).end("User-agent: *\nDisallow: /private\n");
      if (req.url === "/list") return void res.writeHead(200).end(`one|${s.origin}/private/p2`);
      res.writeHead(200).end("two|");
    });
    const ctx = { fetcher: h.fetcher(), clock: h.clock, reader, validators };
    const r = await checkSource(
      ctx,
      sourceAt(`${s.origin}/list`),
      history({ done: false, pagesRead: 0 }),
    );
    expect(s.paths).not.toContain("/private/p2");
    expect(r.backfill).toMatchObject({ done: false, failedNights: 1 });
    const said = backfillText(r.backfill, "bf");
    expect(said).not.toMatch(/answered/);
    expect(said).toContain(
      `it was not read as the page 1 night running (last: ${r.backfill?.lastMiss}`,
    );
    expect(r.backfill?.lastMiss).toMatch(/robots/);
    // Kept with the cursor in the store, so a later command says the same.
    expect(
      backfillOfRow({
        done: 0,
        cursor: cursorJson(r.backfill as BackfillState),
        pages_read: 0,
        ended: null,
      } as never),
    ).toMatchObject({ failedNights: 1, lastMiss: r.backfill?.lastMiss });
  });
});
