import { afterEach, describe, expect, it } from "vitest";
import { type Harness, harness } from "../fleet/harness.js";
import { html } from "../fleet/routes.js";

/**
 * Adversarial review (review-edges): a 206 (Partial Content, never asked: the checker sends no
 * Range) on robots.txt's redirect target, and on a page, is still only part of the answer.
 */
let h: Harness;
afterEach(async () => h?.close());

const FILE = "User-agent: *\nDisallow: /private/\n";

describe("P20, P27: 206 behind a redirect", () => {
  it("P20, P18, P27: a robots.txt that redirects to a 206 part of the file keeps the checker off the origin, and the target's log row says why", async () => {
    h = await harness();
    const a = await h.fleet.server();
    const part = FILE.slice(0, 14);
    a.route("/robots.txt", (_q, res) => {
      res.writeHead(301, { location: "/robots-live.txt" }).end();
    });
    a.route("/robots-live.txt", (q, res) => {
      expect(q.headers.range).toBeUndefined();
      res
        .writeHead(206, {
          "content-type": "text/plain",
          "content-range": `bytes 0-${part.length - 1}/${FILE.length}`,
        })
        .end(part);
    });
    a.route("/private/list", html("private"));
    const out = await h
      .fetcher()
      .fetch({ url: a.url("/private/list"), purpose: "page", source: "s" });
    expect(out.kind).toBe("robots-unavailable");
    expect(a.hits("/private/list")).toHaveLength(0);
    const row = h.ports.log.entries.find((e) => e.url === a.url("/robots-live.txt"));
    expect(row).toMatchObject({ status: 206, outcome: "unreachable" });
    expect(row?.failure).toMatch(/206 Partial Content/);
  });

  it("P14, P27: a page's request sends no Range, and a 206 page is a failed read whose row says why", async () => {
    h = await harness();
    const a = await h.fleet.server();
    a.route("/robots.txt", (_q, res) => {
      res.writeHead(404).end();
    });
    const ranges: (string | undefined)[] = [];
    a.route("/list", (q, res) => {
      ranges.push(q.headers.range);
      res
        .writeHead(206, { "content-type": "text/html", "content-range": "bytes 0-9/100" })
        .end("<html><bo");
    });
    const out = await h.fetcher().fetch({ url: a.url("/list"), purpose: "page", source: "s" });
    expect(ranges).toEqual([undefined]);
    expect(out).toMatchObject({ kind: "error", status: 206 });
    const row = h.ports.log.entries.find((e) => e.url === a.url("/list"));
    expect(row?.failure).toMatch(/206 Partial Content/);
  });
});
