import { afterEach, describe, expect, it } from "vitest";
import type { Handler } from "../fleet/fleet.js";
import { type Harness, harness } from "../fleet/harness.js";
import { html } from "../fleet/routes.js";

/**
 * An answer with neither Content-Length nor chunked framing ends when its connection does
 * (RFC 9112 §6.3); undici takes a connection reset for that end as well, so an answer cut by a
 * reset read as whole (review-fetcher). A reset is no end (RFC 9112 §8: incomplete): a robots.txt
 * cut so is unreachable (P20), never the rules its first lines happen to make.
 */
let h: Harness;
afterEach(async () => h?.close());

/**
 * `head` and `body` written with no length (Connection: close), then the connection ended
 * (`end`: a FIN, the answer whole) or reset (`reset`) a moment later, once the client has read
 * what was written.
 */
const noLength =
  (body: string, how: "end" | "reset", type = "text/plain"): Handler =>
  (_req, res) => {
    const socket = res.socket;
    socket?.write(
      `HTTP/1.1 200 OK\r\nContent-Type: ${type}\r\nConnection: close\r\n\r\n${body}`,
      "latin1",
      () => {
        setTimeout(() => (how === "end" ? socket.end() : socket.resetAndDestroy()), 50);
      },
    );
  };

const RULES = "User-agent: *\nDisallow: /private\n";

describe("an answer without a length that ends in a reset", () => {
  it("P20: a robots.txt without a length cut by a reset is unreachable: nothing on the origin is asked, not even what its first lines allow", async () => {
    h = await harness();
    const s = await h.fleet.server({ host: "127.0.0.1" });
    // The first line came; the Disallow it went on to was cut off by the reset.
    s.route("/robots.txt", noLength("User-agent: *\n", "reset"));
    s.route("/private/bids", html("<ul><li>bid</li></ul>"));
    const f = h.fetcher();
    const out = await f.fetch({ url: s.url("/private/bids"), purpose: "page" });
    expect(out.kind).not.toBe("ok");
    expect(s.hits("/private/bids")).toHaveLength(0);
    expect(s.hits("/robots.txt").length).toBeGreaterThanOrEqual(1);
  });

  it("P17, P18: a robots.txt without a length that ends with its connection (a FIN) is read whole, its rules kept", async () => {
    h = await harness();
    const s = await h.fleet.server({ host: "127.0.0.1" });
    s.route("/robots.txt", noLength(RULES, "end"));
    s.route("/private/bids", html("<ul><li>bid</li></ul>"));
    s.route("/bids", html("<ul><li>bid</li></ul>"));
    const f = h.fetcher();
    expect((await f.fetch({ url: s.url("/private/bids"), purpose: "page" })).kind).toBe(
      "disallowed",
    );
    expect((await f.fetch({ url: s.url("/bids"), purpose: "page" })).kind).toBe("ok");
    expect(s.hits("/private/bids")).toHaveLength(0);
    expect(s.hits("/robots.txt")).toHaveLength(1);
  });

  it("P15: a page without a length cut by a reset is a connection closed before a full response (tried again), and one ended by a FIN is read once", async () => {
    h = await harness();
    const s = await h.fleet.server({ host: "127.0.0.1" });
    s.route("/robots.txt", noLength("User-agent: *\nAllow: /\n", "end"));
    s.route("/whole", noLength("<ul><li>bid</li></ul>", "end", "text/html"));
    s.route("/cut", noLength("<ul><li>bid", "reset", "text/html"));
    const f = h.fetcher();
    expect((await f.fetch({ url: s.url("/whole"), purpose: "page" })).kind).toBe("ok");
    expect(s.hits("/whole")).toHaveLength(1);
    const cut = await f.fetch({ url: s.url("/cut"), purpose: "page" });
    expect(cut.kind).not.toBe("ok");
    expect(s.hits("/cut")).toHaveLength(3);
  });
});
