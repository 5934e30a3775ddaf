import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../src/store/db.js";
import { createApp } from "../../src/web/app.js";
import { importYaml } from "./catalog-store.js";

/**
 * An outside tester's finding (ot-public): a source read through its site's API (a calendar
 * JSON endpoint that answers POST) showed that endpoint as its "Public page", a link that opens
 * nothing a person can read. Its page says what the address is and links the government's
 * website beside it.
 */
const NOW = Date.parse("2026-11-05T15:00:00.000Z");
let dir: string;
let store: Store;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "nor-api-link-"));
  store = await openStore({ kind: "sqlite", dir });
  await importYaml(
    store.db,
    `governments:
  - { id: city-of-columbus, name: City of Columbus, kind: city, county: Franklin, website: "https://www.columbus.example/" }
sources:
  - { id: columbus-meetings, government: city-of-columbus, records: meetings, access: api, platform: granicus-opencities, url: "https://www.columbus.example/ocapi/calendars/getcalendaritems" }
  - { id: columbus-agendas, government: city-of-columbus, records: agendas, access: feed, url: "https://www.columbus.example/agendas.rss" }
`,
    NOW - 86_400_000,
  );
  app = createApp({ db: store.db, now: () => NOW, origin: "https://directory.example" });
});
afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("a source read through its site's API", () => {
  it("P26: its page names the address as the API it is read from, and links the government's website", async () => {
    const res = await app.request("/sources/columbus-meetings");
    expect(res.status).toBe(200);
    const $ = load(await res.text());
    const link = $(".public-link");
    expect(link.prev("dt").text()).toBe("Read from");
    expect(link.find("a").attr("href")).toBe(
      "https://www.columbus.example/ocapi/calendars/getcalendaritems",
    );
    const note = $("dd.api-note");
    expect(note.text()).toContain("An address for programs (the site's API)");
    expect(note.find("a").attr("href")).toBe("https://www.columbus.example/");
  });

  it("P26: the government's page says which of its addresses is an API", async () => {
    const $ = load(await (await app.request("/governments/city-of-columbus")).text());
    expect($("tr#source-columbus-meetings .api-note").text()).toBe(
      " (the site's API, for programs)",
    );
    expect($("tr#source-columbus-agendas .api-note").length).toBe(0);
  });

  it("P26: a feed's page keeps its address as the public page, with no such note", async () => {
    const $ = load(await (await app.request("/sources/columbus-agendas")).text());
    expect($(".public-link").prev("dt").text()).toBe("Public page");
    expect($("dd.api-note").length).toBe(0);
  });
});
