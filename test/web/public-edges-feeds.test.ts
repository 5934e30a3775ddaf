import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildFixture, type Fixture } from "./fixture.js";

/**
 * JSON Feed 1.1 (https://jsonfeed.org/version/1.1) requires `items`: a feed of a list with
 * nothing in it says so with `"items": []`, never by leaving the key out.
 */
let f: Fixture;
beforeAll(async () => {
  f = await buildFixture();
});
afterAll(async () => {
  await f?.close();
});

async function feed(path: string): Promise<Record<string, unknown>> {
  const res = await f.app.request(path);
  expect(res.status, path).toBe(200);
  expect(res.headers.get("content-type"), path).toMatch(/^application\/feed\+json/);
  return (await res.json()) as Record<string, unknown>;
}

describe("a JSON Feed always has its items", () => {
  it("an empty night, an empty filter and a search that finds nothing give items: []", async () => {
    // Each in a selection whose pages are all read: akron-minutes is not read, so a feed of a
    // selection holding it (the whole state's too) holds one item saying so (P26).
    for (const path of [
      "/new.json?night=2026-10-30&kind=village",
      // A county with nothing listed.
      "/new.json?county=Adams",
      "/search.json?q=zzzzqqq&county=Franklin",
    ]) {
      const json = await feed(path);
      expect(json["version"], path).toBe("https://jsonfeed.org/version/1.1");
      expect(Object.hasOwn(json, "items"), path).toBe(true);
      expect(json["items"], path).toEqual([]);
    }
  });

  it("a feed with records lists them in items as before", async () => {
    const json = await feed("/new.json?window=7d&county=Franklin");
    const items = json["items"] as { id: string }[];
    expect(items.length).toBeGreaterThan(0);
    expect(items.every((i) => i.id.startsWith("urn:new-on-record:record:"))).toBe(true);
  });
});
