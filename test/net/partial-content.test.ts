import { afterEach, describe, expect, it } from "vitest";
import { type Harness, harness } from "../fleet/harness.js";
import { noRobots } from "../night/tester-nights.js";

/**
 * The checker never sends Range: a 206 (Partial Content) is a cache or proxy handing out a
 * stored fragment, by its own Content-Range only part of the page or feed. Read as the whole,
 * a list cut short would lose its later records (fix-edges).
 */
let h: Harness;
afterEach(async () => h?.close());

const FEED = `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>
<item><title>One</title><link>https://example.gov/1</link></item>`;

describe("P14, P27: a page or feed answered 206, unasked", () => {
  it("P14, P27: a feed answered 206 with a Content-Range of part of it is a failed read, saying why, not the list; the log says so", async () => {
    h = await harness();
    const a = await h.fleet.server();
    a.route("/robots.txt", noRobots);
    a.route("/feed.xml", (_q, res) => {
      res
        .writeHead(206, {
          "content-type": "application/rss+xml",
          "content-range": `bytes 0-${FEED.length - 1}/${FEED.length * 3}`,
        })
        .end(FEED);
    });
    const out = await h.fetcher().fetch({ url: a.url("/feed.xml"), purpose: "page", source: "s" });
    expect(out.kind).toBe("error");
    expect((out as { reason: string }).reason).toMatch(/206 Partial Content/);
    const row = h.ports.log.entries.find((e) => e.url === a.url("/feed.xml"));
    expect(row).toMatchObject({ status: 206 });
    expect(row?.failure).toMatch(/206 Partial Content/);
  });
});
