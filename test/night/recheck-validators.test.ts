import { afterEach, describe, expect, it } from "vitest";
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
