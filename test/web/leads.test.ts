import { load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildFixture, type Fixture, LEAD_SCRIPT_WHY } from "./fixture.js";

/**
 * The catalog's leads (record pages seen in public material, not confirmed, never read) are in
 * the public directory: on their government's page, marked as not yet confirmed, with the
 * address, why it is not read and the evidence; and in /api/governments/{id}.
 */
let f: Fixture;
beforeAll(async () => {
  f = await buildFixture();
});
afterAll(async () => {
  await f?.close();
});

const COMMIT = "8e2c109cf14fa6424eaebcc1460b7190e9a38e5f";
const SPIDER = "city_scrapers/spiders/colum_city_council.py";

async function page(path: string) {
  const res = await f.app.request(path);
  expect(res.status, path).toBe(200);
  const text = await res.text();
  return { $: load(text), text };
}

interface LeadJson {
  records: string;
  confirmed: boolean;
  address: string | null;
  url: string | null;
  platform: string | null;
  why: string;
  evidence: { text: string; url: string | null }[];
  listedSince: string;
}

describe("leads in the public directory", () => {
  it("the government's page lists its leads as not yet confirmed, with the link, why and the evidence", async () => {
    const { $ } = await page("/governments/village-of-test");
    const section = $("#leads");
    expect(section.find("h2").text()).toBe("Record pages not yet confirmed");
    expect(section.text()).toMatch(/not yet confirmed/);
    const rows = section.find("tr.lead");
    expect(rows.length).toBe(2);
    expect(rows.toArray().every((r) => $(r).attr("data-confirmed") === "false")).toBe(true);
    expect(rows.toArray().every((r) => $(r).find(".status").text() === "not yet confirmed")).toBe(
      true,
    );
    // The first: a link to the page, and its evidence linked (GitHub file at its commit, a stored page).
    const first = rows.eq(0);
    expect(first.find("td").eq(0).text()).toMatch(/^Minutes/);
    expect(first.find("td").eq(1).find("a").attr("href")).toBe(
      "https://test.example/minutes-archive",
    );
    expect(first.find("td").eq(2).text()).toBe("needs a page recipe");
    expect(
      first
        .find("td")
        .eq(3)
        .find("a")
        .map((_i, a) => $(a).attr("href"))
        .get(),
    ).toEqual([
      `https://github.com/City-Bureau/city-scrapers-coloh/blob/${COMMIT}/${SPIDER}`,
      "https://stored.example/village-meetings",
    ]);
    // The second: a template is shown as text, never linked; no evidence is a dash.
    const second = rows.eq(1);
    expect(second.find("td").eq(1).find("a").length).toBe(0);
    expect(second.find("td").eq(1).find("code").text()).toBe("test.example/agendas/{year}");
    expect(second.find("td").eq(3).text()).toBe("—");
    // Sources stay where they were: the leads are their own section, after them.
    expect($("table.sources tr[id^=source-]").length).toBe(2);
  });

  it("a government without leads shows no such section", async () => {
    const { $ } = await page("/governments/city-of-akron");
    expect($("#leads").length).toBe(0);
  });

  it("a lead's reason and address are text, never markup", async () => {
    const { $, text } = await page("/governments/evil-township");
    expect(text).not.toContain("<script>alert(3)");
    expect($("#leads tr.lead td").eq(2).text()).toBe(LEAD_SCRIPT_WHY);
    expect($("#leads b").length).toBe(0);
  });

  it("/api/governments/{id} gives its leads, unconfirmed, with the address as seen and a URL only for http(s)", async () => {
    const res = await f.app.request("/api/governments/village-of-test");
    const body = (await res.json()) as { leads: LeadJson[] };
    expect(body.leads).toEqual([
      {
        records: "minutes",
        confirmed: false,
        address: "https://test.example/minutes-archive",
        url: "https://test.example/minutes-archive",
        platform: "other",
        why: "needs a page recipe",
        evidence: [
          {
            text: `City-Bureau/city-scrapers-coloh/${SPIDER}@${COMMIT}`,
            url: `https://github.com/City-Bureau/city-scrapers-coloh/blob/${COMMIT}/${SPIDER}`,
          },
          {
            text: "https://stored.example/village-meetings",
            url: "https://stored.example/village-meetings",
          },
        ],
        listedSince: expect.stringMatching(/^2026-10-31T/) as string,
      },
      {
        records: "agendas",
        confirmed: false,
        address: "test.example/agendas/{year}",
        url: null,
        platform: null,
        why: "the address is a template",
        evidence: [],
        listedSince: expect.stringMatching(/^2026-10-31T/) as string,
      },
    ]);
    const akron = (await (await f.app.request("/api/governments/city-of-akron")).json()) as {
      leads: unknown[];
    };
    expect(akron.leads).toEqual([]);
  });

  it("a script address written into the store before the catalog refused it is never passed on", async () => {
    await f.store.db
      .insertInto("leads")
      .values({
        government_id: "ohio-epa",
        records: "notices",
        url: "javascript:alert(4)",
        platform: null,
        why: "old row",
        evidence: "javascript:alert(5) ; https://epa.example/seen",
        notes: null,
        position: 99,
        first_seen_at: "2026-01-01T00:00:00.000Z",
      })
      .execute();
    try {
      const api = (await (await f.app.request("/api/governments/ohio-epa")).json()) as {
        leads: LeadJson[];
      };
      expect(api.leads[0]).toMatchObject({
        address: null,
        url: null,
        evidence: [{ text: "https://epa.example/seen", url: "https://epa.example/seen" }],
      });
      const { $ } = await page("/governments/ohio-epa");
      expect($("#leads a[href^='javascript']").length).toBe(0);
    } finally {
      await f.store.db.deleteFrom("leads").where("government_id", "=", "ohio-epa").execute();
    }
  });
});
