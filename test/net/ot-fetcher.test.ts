import { brotliCompressSync, createGzip, gzipSync } from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { ROBOTS_MAX_BYTES } from "../../src/policy/constants.js";
import type { Handler } from "../fleet/fleet.js";
import { type Harness, harness } from "../fleet/harness.js";
import { html, robots, text } from "../fleet/routes.js";

/**
 * What the outside tester "ot-fetcher" found at the fetcher's edges, proved against loopback
 * servers that answer as an odd or broken web server does (virtual time: the real 2 s gap and
 * P15's waits cost nothing).
 */
let h: Harness;
afterEach(async () => h?.close());

/** Writes `raw` bytes as the whole answer, the connection left open (the server closes nothing). */
const rawAnswer =
  (raw: string): Handler =>
  (_req, res) => {
    res.socket?.write(raw, "latin1");
  };

describe("found from outside: ot-fetcher", () => {
  it("P15, P21: a body whose chunked framing is malformed is asked once, not tried again, and is no 'no': the site's other pages are still read", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    // The server closes nothing: its chunk-size line is not hex, and the checker's HTTP
    // parser gives up on the answer. That is a malformed answer, not "a connection closed
    // before a full response" (P15), and the site never said no (P21).
    s.route(
      "/bad",
      rawAnswer(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n<ul><li>bid</li></ul>\r\n0\r\n\r\n",
      ),
    );
    s.route("/list", html("<ul><li>bid</li></ul>"));
    const f = h.fetcher();
    const bad = await f.fetch({ url: s.url("/bad"), purpose: "page" });
    expect(bad).toMatchObject({ kind: "error", status: 200 });
    expect(s.hits("/bad")).toHaveLength(1);
    const rows = h.ports.log.entries.filter((e) => e.url === s.url("/bad"));
    expect(rows.map((e) => e.outcome)).toEqual(["error"]);
    expect(rows[0]?.failure).toMatch(/chunk/i);
    // Not the site's no: its next page is asked, and read.
    expect((await f.fetch({ url: s.url("/list"), purpose: "page" })).kind).toBe("ok");
    expect(s.hits("/list")).toHaveLength(1);
  });

  it("P15: a 503 whose body comes malformed is tried again as a 503 is (after 5 s), not as a connection closed early", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    s.route("/busy", (req, res, ctx) =>
      ctx.count === 1
        ? rawAnswer(
            "HTTP/1.1 503 Service Unavailable\r\nTransfer-Encoding: chunked\r\n\r\nbusy\r\n",
          )(req, res, ctx)
        : html("<ul><li>bid</li></ul>")(req, res, ctx),
    );
    const out = await h.fetcher().fetch({ url: s.url("/busy"), purpose: "page" });
    expect(out.kind).toBe("ok");
    const [first, second] = s.hits("/busy");
    expect(second).toBeDefined();
    expect((second?.startedAt ?? 0) - (first?.startedAt ?? 0)).toBeGreaterThanOrEqual(5_000);
    const rows = h.ports.log.entries.filter((e) => e.url === s.url("/busy"));
    expect(rows.map((e) => e.outcome)).toEqual(["retry", "ok"]);
  });

  it("P17, P18: a robots.txt saved as UTF-16 (its BOM first, LE or BE, CRLF) is read as its owner wrote it: the disallowed path is never asked", async () => {
    h = await harness();
    const rules = "User-agent: *\r\nDisallow: /private\r\n";
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(rules, "utf16le")]);
    const be = Buffer.from(le);
    be.swap16();
    for (const file of [le, be]) {
      const s = await h.fleet.server();
      s.route("/robots.txt", robots(file));
      s.route("/private/x", html("<ul><li>secret</li></ul>"));
      s.route("/list", html("<ul><li>bid</li></ul>"));
      const f = h.fetcher();
      expect((await f.fetch({ url: s.url("/private/x"), purpose: "page" })).kind).toBe(
        "disallowed",
      );
      expect((await f.fetch({ url: s.url("/list"), purpose: "page" })).kind).toBe("ok");
      expect(s.requests.map((r) => r.path)).toEqual(["/robots.txt", "/list"]);
    }
  });

  it("P17: a robots.txt over 500 KiB that starts with a UTF-8 BOM: the line cut by the limit is dropped, not read short (an Allow cut to /pub would open /pub)", async () => {
    h = await harness();
    const s = await h.fleet.server();
    const head = "User-agent: *\nDisallow: /pub\n";
    // The fetcher keeps the file's first 500 KiB and one byte (BOM included), so the text it
    // was given ends inside `Allow: /public/page`, at `Allow: /publ`: kept short, that Allow is
    // longer than the Disallow and opens all of /publ.
    const cutAt = "Allow: /publ".length;
    const pad = ROBOTS_MAX_BYTES - 2 - head.length - cutAt;
    const text = `${head}#${"x".repeat(pad - 2)}\nAllow: /public/page\n`;
    s.route(
      "/robots.txt",
      robots(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])),
    );
    s.route("/public/other", html("<ul><li>x</li></ul>"));
    s.route("/public/page", html("<ul><li>x</li></ul>"));
    const f = h.fetcher();
    expect((await f.fetch({ url: s.url("/public/other"), purpose: "page" })).kind).toBe(
      "disallowed",
    );
    expect(s.hits("/public/other")).toHaveLength(0);
  });

  it("P15, P21: an answer that opens with a 100 Continue nobody asked for is asked once and is no 'no': the site's other pages are still read", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    // RFC 9110 §15.2: a client must read past a 1xx it did not ask for. undici does not for a
    // 100 (it drops the connection), so the page cannot be read; but the server sends it on
    // every try (a proxy that adds Expect on its way in), and it said no to nothing.
    s.route(
      "/form",
      rawAnswer(
        "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 21\r\n\r\n<ul><li>bid</li></ul>",
      ),
    );
    s.route("/list", html("<ul><li>bid</li></ul>"));
    const f = h.fetcher();
    const out = await f.fetch({ url: s.url("/form"), purpose: "page" });
    expect(out.kind).not.toBe("refused");
    expect(s.hits("/form")).toHaveLength(1);
    const rows = h.ports.log.entries.filter((e) => e.url === s.url("/form"));
    expect(rows).toHaveLength(1);
    expect(rows[0]?.failure).toMatch(/100 Continue/);
    expect((await f.fetch({ url: s.url("/list"), purpose: "page" })).kind).toBe("ok");
  });

  it("P15, P21: an answer whose head carries Content-Length twice is asked once and is no 'no': the site's other pages are still read", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    // undici's parser refuses the head (RFC 9112 §6.3 lets it), but says "body length does
    // not match content-length", which read as a connection closed early: tried twice more,
    // then the site's no. The server closed nothing, and sends the same head on every try.
    s.route(
      "/twice",
      rawAnswer(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 21\r\nContent-Length: 21\r\n\r\n<ul><li>bid</li></ul>",
      ),
    );
    s.route("/list", html("<ul><li>bid</li></ul>"));
    const f = h.fetcher();
    const out = await f.fetch({ url: s.url("/twice"), purpose: "page" });
    expect(out.kind).not.toBe("refused");
    expect(s.hits("/twice")).toHaveLength(1);
    expect(h.ports.log.entries.filter((e) => e.url === s.url("/twice"))).toHaveLength(1);
    expect((await f.fetch({ url: s.url("/list"), purpose: "page" })).kind).toBe("ok");
  });

  it("P16, P20: a robots.txt answered 200 with an empty body marked gzip is an empty file (everything allowed), not unreachable", async () => {
    h = await harness();
    const s = await h.fleet.server();
    // Nothing to decode: a browser shows an empty file. Read as a gzip stream cut at its
    // first byte it kept the checker off the host for the night, every source there a no.
    s.route("/robots.txt", (_req, res) => {
      res.writeHead(200, {
        "content-type": "text/plain",
        "content-encoding": "gzip",
        "content-length": "0",
      });
      res.end();
    });
    s.route("/list", html("<ul><li>bid</li></ul>"));
    const out = await h.fetcher().fetch({ url: s.url("/list"), purpose: "page" });
    expect(out.kind).toBe("ok");
    expect(s.requests.map((r) => r.path)).toEqual(["/robots.txt", "/list"]);
  });

  it("P19, P15: a redirect or a 503 whose body cannot be decoded is still a redirect (followed) and a 503 (tried again): only a page's own body must decode", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    // Marked gzip, sent as plain HTML: a browser follows the redirect without reading it.
    const notGzip = { "content-encoding": "gzip" };
    s.route("/old", text("<html>moved</html>", 301, { ...notGzip, location: "/list" }));
    s.route("/list", html("<ul><li>bid</li></ul>"));
    s.route("/busy", (req, res, ctx) =>
      ctx.count === 1
        ? text("<html>busy</html>", 503, notGzip)(req, res, ctx)
        : html("<ul><li>bid</li></ul>")(req, res, ctx),
    );
    const f = h.fetcher();
    expect(await f.fetch({ url: s.url("/old"), purpose: "page" })).toMatchObject({
      kind: "ok",
      status: 200,
    });
    expect((await f.fetch({ url: s.url("/busy"), purpose: "page" })).kind).toBe("ok");
    expect(s.requests.map((r) => r.path)).toEqual([
      "/robots.txt",
      "/old",
      "/list",
      "/busy",
      "/busy",
    ]);
  });

  it("P14, P13: a body wrapped in a thousand content codings is not undone a thousand times (no timer bounds that work once the bytes are in): it is an error at once; two codings are still read", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    const page = "<ul><li>bid</li></ul>";
    let layered = Buffer.from(page);
    for (let i = 0; i < 1000; i++) layered = gzipSync(layered);
    // 2,000 such layers took 35 s of a core to undo, 3,000 minutes.
    s.route(
      "/onion",
      text(layered, 200, {
        "content-type": "text/html",
        "content-encoding": Array(1000).fill("gzip").join(", "),
      }),
    );
    s.route(
      "/two",
      text(brotliCompressSync(gzipSync(page)), 200, {
        "content-type": "text/html",
        "content-encoding": "gzip, br",
      }),
    );
    const f = h.fetcher();
    const onion = await f.fetch({ url: s.url("/onion"), purpose: "page" });
    expect(onion).toMatchObject({ kind: "error", status: 200 });
    expect(onion.kind === "error" && onion.reason).toMatch(/1000 codings/);
    expect(s.hits("/onion")).toHaveLength(1);
    const two = await f.fetch({ url: s.url("/two"), purpose: "page" });
    expect(two.kind === "ok" && new TextDecoder().decode(two.body)).toBe(page);
  });

  it("P14, P9: a gzip body that never ends is let go at 20 MiB decoded: the server sees its connection closed at once, not when a time limit comes", async () => {
    h = await harness();
    const s = await h.fleet.server();
    s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    let closed = false;
    s.route("/endless", (_req, res) => {
      res.writeHead(200, { "content-type": "text/html", "content-encoding": "gzip" });
      const gz = createGzip();
      gz.pipe(res);
      const zeros = Buffer.alloc(256 * 1024);
      const pump = () => {
        while (!res.destroyed && gz.write(zeros));
        if (!res.destroyed) gz.once("drain", pump);
      };
      res.on("close", () => {
        closed = true;
        gz.destroy();
      });
      pump();
    });
    const out = await h.fetcher().fetch({ url: s.url("/endless"), purpose: "page" });
    expect(out.kind).toBe("too-large");
    // Bounded: 100 looks, 20 ms apart (the body's own limits are 30 s).
    for (let i = 0; i < 100 && !closed; i++) await new Promise((r) => setTimeout(r, 20));
    expect(closed).toBe(true);
  });

  it("P20, P16: a robots.txt and a page whose heads are 40 KB (a long Content-Security-Policy, many cookies) are read, as a browser reads them", async () => {
    h = await harness();
    const s = await h.fleet.server();
    const big = {
      "content-security-policy": `default-src 'self' ${"https://cdn.example.gov ".repeat(1600)}`,
    };
    s.route("/robots.txt", text("User-agent: *\nDisallow: /private\n", 200, big));
    s.route("/list", html("<ul><li>bid</li></ul>", 200, big));
    const f = h.fetcher();
    expect((await f.fetch({ url: s.url("/list"), purpose: "page" })).kind).toBe("ok");
    expect((await f.fetch({ url: s.url("/private/x"), purpose: "page" })).kind).toBe("disallowed");
    expect(s.requests.map((r) => r.path)).toEqual(["/robots.txt", "/list"]);
  });

  it("P19, P20: an answer with two different Locations is no redirect anyone can follow (a browser refuses it): a page's is an error, asked once; a robots.txt's is unreachable, never a 404's allow-all", async () => {
    h = await harness();
    const s = await h.fleet.server();
    const two =
      (first: string, second: string): Handler =>
      (_req, res) => {
        res.setHeader("location", [first, second]);
        res.writeHead(302).end();
      };
    // Joined as one (`/real-robots.txt, /elsewhere`), it named an address nobody wrote: its 404
    // read as "no robots.txt", and everything was allowed.
    s.route("/robots.txt", two("/real-robots.txt", "/elsewhere"));
    s.route("/real-robots.txt", robots("User-agent: *\nDisallow: /\n"));
    s.route("/list", html("<ul><li>bid</li></ul>"));
    const f = h.fetcher();
    expect((await f.fetch({ url: s.url("/list"), purpose: "page" })).kind).toBe(
      "robots-unavailable",
    );
    expect(s.requests.map((r) => r.path)).toEqual(["/robots.txt"]);

    const other = await h.fleet.server();
    other.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    other.route("/moved", two("/list", "/other"));
    other.route("/same", two("/list", "/list"));
    other.route("/list", html("<ul><li>bid</li></ul>"));
    const moved = await f.fetch({ url: other.url("/moved"), purpose: "page" });
    expect(moved).toMatchObject({ kind: "error", status: 302 });
    expect(moved.kind === "error" && moved.reason).toMatch(/Location/);
    // The same Location twice is one Location (as a browser reads it).
    expect((await f.fetch({ url: other.url("/same"), purpose: "page" })).kind).toBe("ok");
    expect(other.requests.map((r) => r.path)).toEqual(["/robots.txt", "/moved", "/same", "/list"]);
  });
});
