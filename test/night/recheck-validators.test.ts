import { afterEach, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import type { ValidatorStore } from "../../src/night/reader.js";
import { recheckSource } from "../../src/night/recheck.js";
import type { Source } from "../../src/sources/catalog/types.js";
import { type Harness, harness } from "../fleet/harness.js";
import { robots } from "../fleet/routes.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** P12 on a recheck (P25): the page's stored validators go with it, and a 304 is an answer. */
describe("a recheck asks with the stored validators (P12, P25)", () => {
  it("P12, P25: the recheck sends If-None-Match; the site's 304 counts as answering again", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots(""));
    s.route("/list", (req, res) => {
      if (req.headers["if-none-match"] === '"v3"') return void res.writeHead(304).end();
      res.writeHead(200, { etag: '"v3"' }).end("<li>bid</li>");
    });
    const validators: ValidatorStore = {
      get: async (url) => (url === s.url("/list") ? { etag: '"v3"' } : undefined),
    };
    const source = {
      id: "marked",
      government: "g",
      url: s.url("/list"),
      access: "page",
      alternates: [],
    } as unknown as Source;
    const r = await recheckSource(h.fetcher(), h.clock, source, validators);
    expect(s.hits("/list").map((q) => q.headers["if-none-match"])).toEqual(['"v3"']);
    expect(r.outcome).toMatchObject({ kind: "recheck-answers", status: 304 });
    expect(r.flags.map((f) => f.kind)).toEqual(["answers-again"]);
  });
});

/** P25, P11: a recheck asks where the page moved permanently (the store's move), as a night. */
describe("a recheck of a page that moved permanently (P25, P11)", () => {
  const marked = (url: string) =>
    ({
      id: "marked",
      government: "g",
      url,
      access: "page",
      alternates: [],
    }) as unknown as Source;

  it("P25, P11, P21: the site it moved to said no earlier tonight: not asked, said as a closed site's source is, and the move kept", async () => {
    const asked: string[] = [];
    const fetcher = {
      fetch: async (req: { url: string }) => {
        asked.push(req.url);
        return {
          kind: "site-closed" as const,
          url: req.url,
          reason: "site said no earlier tonight: HTTP 403",
        };
      },
    };
    const moved = [{ from: "https://a.example/old", to: "https://b.example/new", night: "n" }];
    const r = await recheckSource(
      fetcher as never,
      new ManualClock(0),
      marked("https://a.example/old"),
      undefined,
      moved,
    );
    expect(asked).toEqual(["https://b.example/new"]);
    expect(r.outcome).toMatchObject({ kind: "refused" });
    expect(r.outcome.reason).toContain("site said no earlier tonight");
    expect(r.flags).toEqual([]);
    expect(r.moves).toBeUndefined();
    expect(r.way?.used?.asked).toBe("https://b.example/new");
  });

  it("P25, P11: a move kept for a URL the catalog no longer lists is not asked, and is forgotten", async () => {
    const asked: string[] = [];
    const fetcher = {
      fetch: async (req: { url: string }) => {
        asked.push(req.url);
        return { kind: "gone" as const, url: req.url, status: 404 };
      },
    };
    const moved = [{ from: "https://a.example/old", to: "https://b.example/new", night: "n" }];
    const r = await recheckSource(
      fetcher as never,
      new ManualClock(0),
      marked("https://a.example/edited"),
      undefined,
      moved,
    );
    expect(asked).toEqual(["https://a.example/edited"]);
    expect(r.outcome).toMatchObject({ kind: "recheck-still-no" });
    expect(r.moves).toEqual([
      {
        kind: "forget",
        from: "https://a.example/old",
        to: "https://b.example/new",
        why: "no longer the catalog's URL",
      },
    ]);
  });
});
