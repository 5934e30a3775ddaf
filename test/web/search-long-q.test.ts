import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildFixture, type Fixture } from "./fixture.js";

/**
 * docs/api.md, search: "Every word must match", and a `q` with more words than a search takes is
 * a 400 "never cut". A `q` was cut at its 500th character, silently: a word typed after it was
 * left out (the search widened: `record`, 600 spaces, `zzzz` found every record), and the word
 * the cut fell in was searched as its first letters. Runs of spaces count as one; a `q` longer
 * than that is a 400 that says so, as JSON, a page and plain text.
 */
let f: Fixture;
beforeAll(async () => {
  f = await buildFixture();
});
afterAll(async () => {
  await f?.close();
});

describe("a long q is searched whole or refused, never cut", () => {
  it("a word after many spaces still has to match", async () => {
    const q = encodeURIComponent(`record${" ".repeat(600)}zzzzqqq`);
    const res = await f.app.request(`/api/search?q=${q}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { q: string; recordTotal: number };
    expect(body.recordTotal).toBe(0);
    expect(body.q).toBe("record zzzzqqq");
    const all = (await (await f.app.request("/api/search?q=record")).json()) as {
      recordTotal: number;
    };
    expect(all.recordTotal).toBeGreaterThan(0);
  });

  it("a q over 500 characters is a 400 naming the limit, never searched as its first 500", async () => {
    const q = encodeURIComponent(`record ${"x".repeat(600)}`);
    const api = await f.app.request(`/api/search?q=${q}`);
    expect(api.status).toBe(400);
    expect(((await api.json()) as { error: string }).error).toContain("at most 500 characters");
    const page = await f.app.request(`/search?q=${q}`);
    expect(page.status).toBe(400);
    expect(await page.text()).toContain("at most 500 characters");
    for (const format of ["atom", "rss", "json"]) {
      const feed = await f.app.request(`/search.${format}?q=${q}`);
      expect(feed.status, format).toBe(400);
      expect(await feed.text()).toContain("at most 500 characters");
    }
    // 500 is still searched.
    const fits = encodeURIComponent(`record ${"x".repeat(493)}`);
    expect((await f.app.request(`/api/search?q=${fits}`)).status).toBe(200);
  });

  it("characters are counted as written: a character outside the BMP (an emoji) is one, not two", async () => {
    // 255 characters, 506 UTF-16 code units: searched (emoji are no words; "bid" is).
    const q = encodeURIComponent(`${"\u{1F600}".repeat(251)} bid`);
    expect((await f.app.request(`/api/search?q=${q}`)).status).toBe(200);
    const over = encodeURIComponent(`${"\u{1F600}".repeat(501)} bid`);
    const res = await f.app.request(`/api/search?q=${over}`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toContain("this one has 505");
  });
});
