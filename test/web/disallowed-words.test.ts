import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { failureOutcome } from "../../src/night/outcome.js";
import { openStore, type Store } from "../../src/store/db.js";
import { createApp } from "../../src/web/app.js";
import { importYaml, nightOver } from "./catalog-store.js";

/**
 * An outside tester's finding (ot-public): in the README's demo, the page robots.txt keeps the
 * checker off said "Last checked the night of Dec 6: disallowed by robots.txt robots.txt
 * disallows it", the night's reason repeating its outcome's words, in its nights' table, on
 * its government's page and in the strip's words. The reason is said where it says more.
 */
const NOW = Date.parse("2026-11-05T15:00:00.000Z");
const NIGHT = "2026-11-05";
let dir: string;
let store: Store;
let app: ReturnType<typeof createApp>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "nor-disallowed-"));
  store = await openStore({ kind: "sqlite", dir });
  const cat = await importYaml(
    store.db,
    `governments:
  - { id: city-of-closedport, name: City of Closedport, kind: city, county: Erie }
sources:
  - { id: closedport-permits, government: city-of-closedport, records: permits, access: page, url: "https://closedport.example/permits", extract: { items: li, title: a, link: a } }
`,
    NOW - 5 * 86_400_000,
  );
  const at = Date.parse(`${NIGHT}T06:00:00.000Z`);
  const night = await nightOver(store.db, NIGHT, at, cat);
  // The outcome the night itself makes of robots.txt's no (P18).
  await night.commit(NIGHT, {
    sourceId: "closedport-permits",
    outcome: failureOutcome({ kind: "disallowed", url: "https://closedport.example/permits" }),
    records: [],
    validators: [],
    flags: [],
    startedAt: at,
    endedAt: at + 1000,
  });
  await night.finishNight(NIGHT, at + 60_000);
  app = createApp({ db: store.db, now: () => NOW, origin: "https://directory.example" });
});
afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("a night robots.txt said no to", () => {
  it("P18, P23: its page says 'disallowed by robots.txt' once, in the last night, its row and the strip's words", async () => {
    const $ = load(await (await app.request("/sources/closedport-permits")).text());
    const last = $("p.last-outcome").text().replace(/\s+/g, " ").trim();
    expect(last).toBe("Last checked the night of Nov 5: disallowed by robots.txt");
    const row = $(`#night-${NIGHT} td`).first().text().replace(/\s+/g, " ").trim();
    expect(row).toBe("disallowed by robots.txt");
    expect($(`.strip a[data-night="${NIGHT}"] title`).text()).toBe(
      "Nov 5: disallowed by robots.txt",
    );
    const gov = load(await (await app.request("/governments/city-of-closedport")).text());
    expect(gov("main").text()).not.toMatch(/robots\.txt\s+robots\.txt/);
  });

  it("the API keeps the night's own reason", async () => {
    const a = (await (await app.request("/api/sources/closedport-permits")).json()) as {
      lastOutcome: { outcome: string; reason: string };
    };
    expect(a.lastOutcome).toMatchObject({
      outcome: "disallowed",
      reason: "robots.txt disallows it",
    });
  });
});
