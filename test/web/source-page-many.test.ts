import { load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RECORDS_SHOWN } from "../../src/web/public/load.js";
import { buildFixture, type Fixture } from "./fixture.js";

/**
 * A source's page lists its newest records, RECORDS_SHOWN at most: with more noted from the
 * page, it says only the newest are listed and where all of them are (an outside tester found
 * 65 records listed as 50 without a word).
 */
let f: Fixture;
beforeAll(async () => {
  f = await buildFixture();
});
afterAll(async () => {
  await f?.close();
});

const notes = async (id: string) => {
  const res = await f.app.request(`/sources/${id}`);
  expect(res.status).toBe(200);
  const $ = load(await res.text());
  return { rows: $("table.records tbody tr").length, text: $("main").text() };
};

describe("a source's page with many records", () => {
  it("says when only the newest are listed, and where the rest are", async () => {
    const before = await notes("test-agendas");
    expect(before.text).not.toContain("Only the newest");
    const have = Number(
      (
        await f.store.db
          .selectFrom("records")
          .select((eb) => eb.fn.countAll<number>().as("n"))
          .where("source_id", "=", "test-agendas")
          .executeTakeFirstOrThrow()
      ).n,
    );
    const add = (from: number, to: number) =>
      f.store.db
        .insertInto("records")
        .values(
          Array.from({ length: to - from }, (_, i) => ({
            source_id: "test-agendas",
            record_id: `many-${from + i}`,
            title: `Agenda ${from + i}`,
            date: "2026-10-01",
            url: `https://test.example/a/${from + i}`,
            kind: null,
            first_seen_night: "2026-11-03",
            first_seen_at: "2026-11-03T06:00:00.000Z",
          })),
        )
        .execute();
    // Exactly as many as are listed: nothing more to say.
    await add(0, RECORDS_SHOWN - have);
    const full = await notes("test-agendas");
    expect(full.rows).toBe(RECORDS_SHOWN);
    expect(full.text).not.toContain("Only the newest");
    // One more: the newest are listed, and said so.
    await add(RECORDS_SHOWN - have, RECORDS_SHOWN - have + 1);
    const more = await notes("test-agendas");
    expect(more.rows).toBe(RECORDS_SHOWN);
    expect(more.text.replace(/\s+/g, " ")).toContain(
      `Only the newest ${RECORDS_SHOWN} records noted from this page are listed here; every record noted from every page is in the downloads.`,
    );
  });
});
