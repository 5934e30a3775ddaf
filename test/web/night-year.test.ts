import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/web/app.js";
import { buildFixture, type Fixture, NOW, ORIGIN } from "./fixture.js";

/**
 * An outside tester's finding (ot-public): a night is written "Nov 5", without its year, on the
 * pages, in the feeds and in the API's words. Asked for the night a year ago (`night=2025-11-05`),
 * /new said "New on record on the night of Nov 5" and "No new records on the night of Nov 5." on
 * Nov 5, 2026, as if it were that night; a year later a record page said "Last checked the night
 * of Nov 5". A night of another year than today's now carries its year; this year's do not.
 */
const YEAR = 365 * 86_400_000;
let fx: Fixture;
let later: ReturnType<typeof createApp>;

const text = (html: string) =>
  html
    .replace(/<[^>]*>/g, "")
    .replace(/&#39;/g, "'")
    .replace(/\s+/g, " ");

beforeAll(async () => {
  fx = await buildFixture();
  // The same store, read a year after its last night (Nov 5, 2027).
  later = createApp({ db: fx.store.db, now: () => NOW + YEAR, origin: ORIGIN });
});
afterAll(async () => {
  await fx?.close();
});

describe("a night of another year is written with its year", () => {
  it("/new?night= of last year: the heading, the night's words, the feed's subtitle and the API's text say 2025", async () => {
    const page = text(await (await fx.app.request("/new?night=2025-11-05")).text());
    expect(page).toContain("New on record on the night of Nov 5, 2025");
    expect(page).toContain("No new records on the night of Nov 5, 2025.");
    expect(page).toContain("The night of Nov 5, 2025 came before the directory began checking.");
    expect(page).not.toMatch(/night of Nov 5(?!, 2025)/);

    const atom = await (await fx.app.request("/new.atom?night=2025-11-05")).text();
    expect(atom).toContain("New records on the night of Nov 5, 2025 across Ohio.");

    const api = (await (await fx.app.request("/api/new?night=2025-11-05")).json()) as {
      nights: { night: string; text: string }[];
    };
    expect(api.nights[0]?.text).toBe(
      "The night of Nov 5, 2025 came before the directory began checking.",
    );
  });

  it("a night of next year that has not come is refused with its year", async () => {
    const res = await fx.app.request("/api/new?night=2027-11-05");
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: "The night of Nov 5, 2027 has not come yet." });
  });

  it("this year's nights are written as before, without the year", async () => {
    const page = text(await (await fx.app.request("/new?night=2026-11-05")).text());
    expect(page).toContain("New on record on the night of Nov 5");
    expect(page).not.toContain("2025");
    const source = text(await (await fx.app.request("/sources/test-agendas")).text());
    expect(source).toContain("Last checked the night of Nov 5: yes");
  });

  it("P23: a year later, a record page's last night, its no, its nights and its records' first nights carry their year", async () => {
    const html = await (await later.request("/sources/test-agendas")).text();
    const agendas = text(html);
    expect(agendas).toContain("Last checked the night of Nov 5, 2026: yes");
    expect(agendas).not.toMatch(/night of Nov 5(?!, 2026)/);
    // The records' "First seen" cells, and the nights' own rows.
    expect(html).toContain('<td class="small">Nov 5, 2026</td>');
    expect(html).not.toContain('<td class="small">Nov 5</td>');

    const bids = text(await (await later.request("/sources/test-bids")).text());
    expect(bids).toContain("The night of Nov 5, 2026, the site said no.");

    const gov = text(await (await later.request("/governments/village-of-test")).text());
    expect(gov).toContain("Nov 5, 2026: yes");
    expect(gov).not.toMatch(/Nov 5: /);
  });

  it("the nights' table across New Year: last year's nights carry their year, this year's do not", async () => {
    const jan2 = createApp({
      db: fx.store.db,
      now: () => Date.parse("2027-01-02T15:00:00.000Z"),
      origin: ORIGIN,
    });
    const html = await (await jan2.request("/sources/test-agendas")).text();
    expect(html).toContain('data-night="2027-01-01">Jan 1</a>');
    expect(html).toContain('data-night="2026-12-31">Dec 31, 2026</a>');
  });

  it("a year later, /new with nothing new names the latest earlier night with its year", async () => {
    const page = text(await (await later.request("/new?county=Franklin")).text());
    expect(page).toContain("The latest earlier night with new records is the night of Nov 5, 2026");
  });
});
