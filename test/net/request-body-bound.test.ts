import { afterEach, describe, expect, it } from "vitest";
import { MAX_REQUEST_BODY_BYTES } from "../../src/policy/constants.js";
import { type Harness, harness } from "../fleet/harness.js";
import { html, robots } from "../fleet/routes.js";

let h: Harness;
afterEach(async () => h?.close());

async function site() {
  h = await harness();
  const a = await h.fleet.server();
  a.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
  a.route("/search", html("results"));
  return { a, f: h.fetcher() };
}

const FORM = "application/x-www-form-urlencoded";

/**
 * P5, P14: a form page's hidden state is posted back as the page gave it, so a page of up to
 * 20 MiB could make the checker POST 20 MB to a government site (an outside tester's 19.7 MB
 * __VIEWSTATE). The one way out refuses a body longer than MAX_REQUEST_BODY_BYTES before
 * admission, as it refuses a credential: nothing sent, no row in the log, the outcome naming
 * the URL and the size.
 */
describe("P5, P14: a request body past MAX_REQUEST_BODY_BYTES is never sent", () => {
  it("P5, P14: a POST of a 19.7 MB form body is never sent, nor logged, and the outcome names the URL and its size", async () => {
    const { a, f } = await site();
    const body = `__VIEWSTATE=${"A".repeat(19_700_000)}&q=x`;
    const out = await f.fetch({
      url: a.url("/search"),
      method: "POST",
      body,
      contentType: FORM,
      purpose: "form",
    });
    expect(out.kind).toBe("error");
    if (out.kind === "error") {
      expect(out.reason).toContain(a.url("/search"));
      expect(out.reason).toContain("19,700,016 bytes");
      expect(out.reason).toContain(MAX_REQUEST_BODY_BYTES.toLocaleString("en-US"));
      expect(out.reason.length).toBeLessThan(1000);
    }
    // Counted, not compared: a POST seen would carry 20 MB into the failure's diff.
    expect(a.requests.filter((r) => r.method === "POST").length).toBe(0);
    expect(a.requests.length).toBe(0);
    expect(h.ports.log.entries.length).toBe(0);
  });

  it("P5, P14: the bound counts bytes as sent: a body of exactly MAX_REQUEST_BODY_BYTES is sent, one byte more is not", async () => {
    const { a, f } = await site();
    const at = `q=${"a".repeat(MAX_REQUEST_BODY_BYTES - 2)}`;
    const ok = await f.fetch({
      url: a.url("/search"),
      method: "POST",
      body: at,
      contentType: FORM,
      purpose: "form",
    });
    expect(ok.kind).toBe("ok");
    expect(a.hits("/search")).toHaveLength(1);
    // The same length in characters, its last one two bytes in UTF-8: one byte too many.
    const over = `q=${"a".repeat(MAX_REQUEST_BODY_BYTES - 3)}é`;
    const out = await f.fetch({
      url: a.url("/search"),
      method: "POST",
      body: over,
      contentType: FORM,
      purpose: "form",
    });
    expect(out.kind).toBe("error");
    expect(a.hits("/search")).toHaveLength(1);
    expect(h.ports.log.entries.filter((e) => e.method === "POST")).toHaveLength(1);
  });
});
