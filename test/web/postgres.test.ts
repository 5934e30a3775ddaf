import { load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresFactory, postgresUrl } from "../store/stores.js";
import { buildFixture, type Fixture, NOT_READ_REASON, REFUSAL } from "./fixture.js";

/**
 * The directory's queries on PostgreSQL (NOR_TEST_POSTGRES_URL): the same fixture, the same
 * answers as on SQLite — grouping, `nulls last`, counts that come back as strings.
 */
describe.skipIf(!postgresUrl)("the directory on PostgreSQL", () => {
  const factory = postgresFactory(postgresUrl ?? "");
  let f: Fixture;
  beforeAll(async () => {
    f = await buildFixture(await factory.fresh());
  }, 60_000);
  afterAll(async () => {
    await f?.close();
    await factory.cleanup();
  });

  it("P23, P26: pages and API read the same rows as on SQLite", async () => {
    const govs = (await (await f.app.request("/api/governments")).json()) as {
      governments: { id: string; sourceCount: number }[];
    };
    expect(govs.governments.map((g) => `${g.id}:${g.sourceCount}`)).toEqual([
      "franklin-county:0",
      "village-of-test:2",
      "evil-township:1",
      "city-of-akron:1",
      "ohio-epa:0",
    ]);
    const $ = load(await (await f.app.request("/sources/test-bids")).text());
    expect($("section.last-no .reference").text()).toBe(REFUSAL.reference);
    const akron = load(await (await f.app.request("/governments/city-of-akron")).text());
    expect(akron("#source-akron-minutes .reason").text()).toBe(NOT_READ_REASON);
    const news = (await (await f.app.request("/api/new?county=franklin")).json()) as {
      items: { recordId: string }[];
    };
    expect(news.items.map((i) => i.recordId)).toEqual([
      "https://test.example/r/22",
      "https://test.example/r/12",
    ]);
    const records = load(await (await f.app.request("/sources/test-agendas")).text());
    expect(records("table.records tbody tr").length).toBe(4);
  });
});
