import { afterEach, describe, expect, it } from "vitest";
import type { Handler } from "../fleet/fleet.js";
import { type Harness, harness } from "../fleet/harness.js";
import { html, robots } from "../fleet/routes.js";

/**
 * What the adversarial review "review-fetcher" found in the fetcher's reading of undici's
 * errors (loopback servers on 127.0.0.1, virtual time).
 */
let h: Harness;
afterEach(async () => h?.close());

/** A chunked body on a `Connection: close` answer, cut by the server after its first chunk. */
const cutChunkedClose =
  (how: "end" | "reset"): Handler =>
  (_req, res) => {
    const socket = res.socket;
    socket?.write(
      "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\n<ul><\r\n",
      "latin1",
      () => (how === "end" ? socket.end() : socket.resetAndDestroy()),
    );
  };

describe("found by review: review-fetcher", () => {
  for (const how of ["end", "reset"] as const) {
    it(`P15, P21: a chunked body on a Connection: close answer cut by the server (${how}) is a connection closed before a full response: tried twice more, then the site's no`, async () => {
      h = await harness();
      const s = await h.fleet.server({ host: "127.0.0.1" });
      s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
      s.route("/cut", cutChunkedClose(how));
      s.route("/list", html("<ul><li>bid</li></ul>"));
      const f = h.fetcher();
      const out = await f.fetch({ url: s.url("/cut"), purpose: "page" });
      expect(s.hits("/cut")).toHaveLength(3);
      expect(out).toMatchObject({ kind: "refused", reason: "connection closed on every attempt" });
      // The site said no: nothing more is asked of it tonight.
      expect((await f.fetch({ url: s.url("/list"), purpose: "page" })).kind).not.toBe("ok");
      expect(s.hits("/list")).toHaveLength(0);
    });
  }

  it("P12, P21: a 304 that names its copy's Content-Length (RFC 9110 §8.6 lets it) is not-modified, asked once: no connection closed early, never the site's no", async () => {
    h = await harness();
    const s = await h.fleet.server({ host: "127.0.0.1" });
    s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    // A 304 has no body whatever its Content-Length says (RFC 9112 §6.3); undici reports
    // "body length does not match content-length" for it, after its head.
    s.route("/feed", (_req, res) => {
      res.socket?.write(
        'HTTP/1.1 304 Not Modified\r\nETag: "v7"\r\nContent-Length: 1234\r\n\r\n',
        "latin1",
      );
    });
    s.route("/list", html("<ul><li>bid</li></ul>"));
    const f = h.fetcher();
    const out = await f.fetch({
      url: s.url("/feed"),
      purpose: "page",
      validators: { etag: '"v7"' },
    });
    expect(out).toMatchObject({ kind: "not-modified", status: 304 });
    expect(s.hits("/feed")).toHaveLength(1);
    expect((await f.fetch({ url: s.url("/list"), purpose: "page" })).kind).toBe("ok");
  });

  it("P14, P9: a gzip body that fails to decode while the server goes quiet is let go at once: the server sees its connection closed, not when the 30 s of silence are up", async () => {
    h = await harness();
    const s = await h.fleet.server({ host: "127.0.0.1" });
    s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    let closed = false;
    s.route("/corrupt", (_req, res) => {
      res.writeHead(200, { "content-type": "text/html", "content-encoding": "gzip" });
      // A gzip header, then a deflate block of a type that does not exist; then nothing more,
      // the connection left open.
      res.write(Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0x03, 0xff, 0xff, 0xff, 0xff]));
      res.on("close", () => {
        closed = true;
      });
    });
    const out = await h.fetcher().fetch({ url: s.url("/corrupt"), purpose: "page" });
    expect(out).toMatchObject({ kind: "error", status: 200 });
    // Bounded: 100 looks, 20 ms apart (the body's own limits are 30 s).
    for (let i = 0; i < 100 && !closed; i++) await new Promise((r) => setTimeout(r, 20));
    expect(closed).toBe(true);
  });

  it("P15, P21: a chunked body whose trailers run past the 256 KiB a head may take is asked once and is no 'no' (as a head that long is): not a connection closed early", async () => {
    h = await harness();
    const s = await h.fleet.server({ host: "127.0.0.1" });
    s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
    s.route("/trailers", (_req, res) => {
      res.socket?.write(
        `HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n15\r\n<ul><li>bid</li></ul>\r\n0\r\nX-Trailer: ${"a".repeat(300 * 1024)}\r\n\r\n`,
        "latin1",
      );
    });
    s.route("/list", html("<ul><li>bid</li></ul>"));
    const f = h.fetcher();
    const out = await f.fetch({ url: s.url("/trailers"), purpose: "page" });
    expect(out.kind).not.toBe("refused");
    expect(s.hits("/trailers")).toHaveLength(1);
    expect((await f.fetch({ url: s.url("/list"), purpose: "page" })).kind).toBe("ok");
  });
});
