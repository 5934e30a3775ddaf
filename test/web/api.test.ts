import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildFixture, EVIL, type Fixture, NOT_READ_REASON, REFUSAL } from "./fixture.js";

let f: Fixture;
beforeAll(async () => {
  f = await buildFixture();
});
afterAll(async () => {
  await f?.close();
});

// biome-ignore lint/suspicious/noExplicitAny: JSON read back from the API under test
async function json(path: string, status = 200): Promise<any> {
  const res = await f.app.request(path);
  expect(res.status, path).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  return res.json();
}

describe("the JSON API", () => {
  it("/api/governments lists current governments with stable fields, filterable like the page", async () => {
    const all = await json("/api/governments");
    expect(all.governments.map((g: { id: string }) => g.id)).toEqual([
      "franklin-county",
      "village-of-test",
      "evil-township",
      "city-of-akron",
      "ohio-epa",
    ]);
    expect(all.governments[1]).toEqual({
      id: "village-of-test",
      name: "Village of Test",
      kind: "village",
      county: "Franklin",
      website: "https://test.example/",
      sourceCount: 2,
      retiredAt: null,
    });
    expect(all.governments[2].name).toBe(EVIL);
    const cities = await json("/api/governments?kind=city");
    expect(cities.governments.map((g: { id: string }) => g.id)).toEqual(["city-of-akron"]);
    expect((await json("/api/governments?county=Mars", 400)).error).toContain(
      'Unknown county "Mars"',
    );
    // As the pages write it ("Franklin County"), in any case.
    for (const name of ["Franklin%20County", "franklin+county", "FRANKLIN"])
      expect(
        (await json(`/api/governments?county=${name}`)).governments.map(
          (g: { id: string }) => g.id,
        ),
      ).toEqual(["franklin-county", "village-of-test"]);
    expect((await json("/api/governments?county=County", 400)).error).toContain(
      'Unknown county "County"',
    );
  });

  it("/api/governments/:id: its sources with status and last outcome (P26: not read, with reason)", async () => {
    const akron = await json("/api/governments/city-of-akron");
    expect(akron.sources).toHaveLength(1);
    expect(akron.sources[0]).toMatchObject({
      id: "akron-minutes",
      url: "https://akron.example/minutes",
      records: "minutes",
      status: { reading: false, reason: NOT_READ_REASON, since: "2026-11-04T14:00:00.000Z" },
      lastOutcome: { night: "2026-11-03", outcome: "ok" },
    });
  });

  it("P23: /api/sources/:id carries the refusal's reason, provider and reference, and every night", async () => {
    const s = await json("/api/sources/test-bids");
    expect(s.status).toEqual({ reading: true, reason: null, since: null });
    expect(s.government.id).toBe("village-of-test");
    // The last 30 nights, newest first; before the first night the checker was offline.
    expect(s.nights).toHaveLength(30);
    expect(
      s.nights.slice(0, 4).map((n: { night: string; state: string }) => `${n.night}:${n.state}`),
    ).toEqual([
      "2026-11-05:checked",
      "2026-11-04:checked",
      "2026-11-03:checked",
      "2026-11-02:offline",
    ]);
    expect(s.nights[0].outcome).toMatchObject({
      outcome: "refused",
      reason: REFUSAL.reason,
      evidence: {
        provider: REFUSAL.provider,
        verdict: "challenge",
        reference: REFUSAL.reference,
        marker: null,
      },
      httpStatus: 403,
    });
    expect(s.nights[1].outcome.way).toEqual({
      used: { access: "page", platform: null, url: "https://test.example/bids", asked: null },
      skipped: [],
    });
    expect(s.newestRecords.map((r: { recordId: string }) => r.recordId)).toEqual([
      "https://test.example/r/31",
      "https://test.example/r/30",
    ]);
    const akron = await json("/api/sources/akron-minutes");
    expect(akron.nights[0]).toEqual({ night: "2026-11-05", state: "not-checked", outcome: null });
    expect((await json("/api/sources/old-permits")).retiredAt).not.toBeNull();
  });

  it("/api/new: the records new since yesterday, with the same filters as the page", async () => {
    const all = await json("/api/new");
    expect([all.window, all.from, all.to]).toEqual(["yesterday", "2026-11-04", "2026-11-05"]);
    expect(all.capped).toBe(false);
    expect(all.items).toHaveLength(4);
    expect(all.counts.total).toBe(4);
    const village = await json("/api/new?kind=village&records=agendas");
    expect(village.filter).toEqual({
      county: null,
      kind: "village",
      records: "agendas",
      government: null,
      source: null,
    });
    expect(village.items[0]).toMatchObject({
      sourceId: "test-agendas",
      recordId: "https://test.example/r/22",
      url: "https://test.example/r/22",
      firstSeenNight: "2026-11-05",
      governmentId: "village-of-test",
      governmentKind: "village",
      county: "Franklin",
    });
  });

  it("unknown ids and routes are JSON 404s with an error", async () => {
    expect((await json("/api/governments/atlantis", 404)).error).toContain('"atlantis"');
    expect((await json("/api/sources/nope", 404)).error).toContain('"nope"');
    expect((await json("/api/whatever", 404)).error).toContain("/api/whatever");
  });
});
