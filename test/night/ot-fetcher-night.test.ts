import type { IncomingMessage, ServerResponse } from "node:http";
import { describe, expect, it } from "vitest";
import { rss } from "./cli-night.js";
import { nightOn, outcomesOn, testerCatalog, testerWorld } from "./tester-nights.js";

/**
 * What the outside tester "ot-fetcher" found, in a real `nor night` against one loopback site
 * whose server answers some pages in ways undici cannot read (each the same on every try). Each
 * such page was tried three times and then taken for the site's no, closing the site for the
 * night: its good feed was never read, and its page said the site had refused.
 */
const world = testerWorld("nor-ot-fetcher-");

/** Writes `raw` as the whole answer, the connection left open (the server closes nothing). */
const rawAnswer = (raw: string) => (_q: IncomingMessage, res: ServerResponse) => {
  res.socket?.write(raw, "latin1");
};

describe("found from outside: ot-fetcher, a night", () => {
  it("P15, P21, P20: pages answered with an unasked 100 Continue, a malformed chunked body or Content-Length twice are each asked once and are no 'no'; the site's robots.txt of no bytes marked gzip allows all; its good feed is read", async () => {
    const site = await world.fleet.server();
    site.route("/robots.txt", (_q, res) => {
      res.writeHead(200, { "content-type": "text/plain", "content-encoding": "gzip" }).end();
    });
    const ok = "HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\n";
    site.route(
      "/continue.xml",
      rawAnswer(`HTTP/1.1 100 Continue\r\n\r\n${ok}Content-Length: 2\r\n\r\nok`),
    );
    site.route(
      "/chunks.xml",
      rawAnswer(`${ok}Transfer-Encoding: chunked\r\n\r\nZZ\r\nxx\r\n0\r\n\r\n`),
    );
    site.route("/twice.xml", rawAnswer(`${ok}Content-Length: 2\r\nContent-Length: 2\r\n\r\nok`));
    site.route(
      "/good.xml",
      (_q, res) =>
        void res
          .writeHead(200, { "content-type": "application/rss+xml" })
          .end(rss(site.origin, 1, "good")),
    );
    const names = ["continue", "chunks", "twice", "good"];
    const catalog = testerCatalog(
      world.dir,
      "odd-server",
      names.flatMap((n) => [
        `  - id: ${n}`,
        "    government: city-of-test",
        "    records: agendas",
        "    access: feed",
        `    url: "${site.url(`/${n}.xml`)}"`,
      ]),
    );
    const data = `${world.dir}/odd-server`;
    await nightOn(catalog, data, "2026-11-05");
    // robots.txt once, then each page once: none tried again, and none left unasked.
    expect(site.requests[0]?.path).toBe("/robots.txt");
    expect(site.requests.map((r) => r.path).sort()).toEqual(
      ["/robots.txt", ...names.map((n) => `/${n}.xml`)].sort(),
    );
    const outcomes = outcomesOn(data, "2026-11-05");
    expect(outcomes["good"]?.outcome).toBe("ok");
    for (const n of ["continue", "chunks", "twice"]) {
      expect(outcomes[n]?.outcome).toMatch(/^(unreachable|error)$/);
    }
    expect(outcomes["continue"]?.reason).toMatch(/100 Continue/);
    expect(outcomes["chunks"]?.reason).toMatch(/chunk size/);
    expect(outcomes["twice"]?.reason).toMatch(/Content-Length/);
  });
});
