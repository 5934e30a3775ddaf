import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nightOf } from "../../src/policy/night-date.js";
import { parseCatalog } from "../../src/sources/catalog/load.js";
import { importCatalog } from "../../src/sources/catalog-import.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { QUIET_NIGHT_MS } from "../../src/web/public/windows.js";
import { consoleFixture } from "./console-support.js";

/**
 * An outside tester's finding (O9): a night whose process was killed, and that nothing has
 * resumed yet, stays open until its time is over; the directory said it was "still running"
 * all that while. Now a night from which no request has gone out for QUIET_NIGHT_MS says that.
 */
const MIN = 60_000;
let f: Awaited<ReturnType<typeof consoleFixture>>;
let night: string;

async function requestAt(at: number): Promise<void> {
  const iso = new Date(at).toISOString();
  await f.db
    .insertInto("request_log")
    .values({
      started_at: iso,
      ended_at: iso,
      method: "GET",
      url: "https://test.example/agendas.rss",
      status: 200,
      outcome: "ok",
      bytes: 10,
      site: "test.example",
      origin: "https://test.example",
      purpose: "page",
      attempt: 1,
      night,
    } as never)
    .execute();
}

beforeAll(async () => {
  f = await consoleFixture();
  const cat = parseCatalog(
    `governments:
  - { id: village-of-test, name: Village of Test, kind: village, county: Franklin }
sources:
  - { id: test-agendas, government: village-of-test, records: agendas, access: feed, url: "https://test.example/agendas.rss" }
`,
    "catalog.yaml",
  );
  await importCatalog(
    f.db,
    cat,
    {
      governments: new Map(cat.governments.map((g) => [g.id, "catalog.yaml"])),
      sources: new Map(cat.sources.map((s) => [s.id, "catalog.yaml"])),
    },
    f.clock.now() - 48 * 60 * MIN,
  );
  const began = f.clock.now() - 60 * MIN;
  night = nightOf(began);
  await new SqlNightStore(f.db).openNight(night, began, began + 6 * 60 * MIN);
});
afterAll(async () => {
  await f?.close();
});

const stateOf = async () => {
  const res = await f.app.request(`/api/new?night=${night}`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { nights: { night: string; state: string; text: string }[] };
  const n = body.nights.find((x) => x.night === night);
  if (!n) throw new Error(JSON.stringify(body.nights));
  return n;
};

describe("P13, P23: an open night the checker has sent nothing from for a while is not said to be running", () => {
  it("no request for longer than the quiet time: says since when, that it may have stopped and goes on when the checker runs again", async () => {
    await requestAt(f.clock.now() - QUIET_NIGHT_MS - 5 * MIN);
    const n = await stateOf();
    expect(n.state).toBe("running");
    expect(n.text).toContain("has not finished, but no request has gone out since");
    expect(n.text).toContain("it may have stopped, and goes on when the checker runs again");
    expect(n.text).not.toContain("still running");
  });

  it("a request a minute ago: still running", async () => {
    await requestAt(f.clock.now() - MIN);
    const n = await stateOf();
    expect(n.state).toBe("running");
    expect(n.text).toContain("is still running; more may appear");
  });
});
