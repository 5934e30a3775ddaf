import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { failureOutcome } from "../../src/night/outcome.js";
import { admit } from "../../src/policy/admission.js";
import { openStore, type Store } from "../../src/store/db.js";
import { createApp } from "../../src/web/app.js";
import { importYaml, nightOver } from "./catalog-store.js";

/**
 * A source its site's own wait (a Retry-After of two days) keeps from the night is unreached
 * with the words the admission gives it ("the site asked to wait until … New York time …"), and
 * labelled "not asked: the site asked to wait" (outside-tester-ot-operator.test.ts). Its page
 * wrote the label, then the reason: "not asked: the site asked to wait the site asked to wait
 * until …". And the night's own time running out read "not reached (the night ran out of time)
 * the night's time limit passed". Each is said once: what the reason adds, after the label.
 */
const NOW = Date.parse("2026-11-05T15:00:00.000Z");
const NIGHT = "2026-11-05";
const AT = Date.parse(`${NIGHT}T06:00:00.000Z`);
let dir: string;
let store: Store;
let app: ReturnType<typeof createApp>;

/** The outcome a night gives a source whose next start the site's wait puts past its deadline. */
function heldOutcome(url: string) {
  const a = admit({
    night: NIGHT,
    now: AT + 1000,
    holder: "h",
    gapMs: 1000,
    deadline: AT + 6 * 3_600_000,
    isRobots: false,
    path: "/other.xml",
    site: { lastEnd: AT, notBefore: AT + 2 * 86_400_000 },
    rules: [],
    prior: [],
    replayAllowed: true,
    holderDead: () => false,
  });
  if (a.kind !== "not-tonight" || a.held === undefined) throw new Error(`not held: ${a.kind}`);
  return failureOutcome({ kind: "deadline", url, reason: a.held });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "nor-held-words-"));
  store = await openStore({ kind: "sqlite", dir });
  const cat = await importYaml(
    store.db,
    `governments:
  - { id: city-of-waitport, name: City of Waitport, kind: city, county: Erie }
sources:
  - { id: waitport-minutes, government: city-of-waitport, records: minutes, access: feed, url: "https://waitport.example/other.xml" }
  - { id: waitport-bids, government: city-of-waitport, records: bids, access: feed, url: "https://waitport.example/bids.xml" }
`,
    NOW - 5 * 86_400_000,
  );
  const night = await nightOver(store.db, NIGHT, AT, cat);
  const result = (sourceId: string, outcome: ReturnType<typeof failureOutcome>) => ({
    sourceId,
    outcome,
    records: [],
    validators: [],
    flags: [],
    startedAt: AT,
    endedAt: AT + 1000,
  });
  await night.commit(
    NIGHT,
    result("waitport-minutes", heldOutcome("https://waitport.example/other.xml")),
  );
  await night.commit(
    NIGHT,
    result(
      "waitport-bids",
      failureOutcome({ kind: "deadline", url: "https://waitport.example/bids.xml" }),
    ),
  );
  await night.finishNight(NIGHT, AT + 60_000);
  app = createApp({ db: store.db, now: () => NOW, origin: "https://directory.example" });
});
afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const flat = (s: string) => s.replace(/\s+/g, " ").trim();

describe("a source not asked tonight, its page", () => {
  it("P13: the site's wait is said once: 'not asked: the site asked to wait until … New York time', in the last night, its row and the strip's words", async () => {
    const $ = load(await (await app.request("/sources/waitport-minutes")).text());
    const last = flat($("p.last-outcome").text());
    expect(last).toMatch(
      /^Last checked the night of Nov 5: not asked: the site asked to wait until 2026-11-07 01:00 New York time \(a Retry-After, or the wait before a retry\), after the night's deadline$/,
    );
    const row = flat($(`#night-${NIGHT} td`).first().text());
    expect(row).toMatch(/^not asked: the site asked to wait until 2026-11-07 01:00 New York time/);
    expect($(`.strip a[data-night="${NIGHT}"] title`).text()).not.toMatch(
      /asked to wait.*asked to wait/,
    );
    const gov = load(await (await app.request("/governments/city-of-waitport")).text());
    expect(flat(gov("main").text())).not.toMatch(/asked to wait the site asked to wait/);
  });

  it("P13: the night's own time running out is said once", async () => {
    const $ = load(await (await app.request("/sources/waitport-bids")).text());
    expect(flat($("p.last-outcome").text())).toBe(
      "Last checked the night of Nov 5: not reached (the night ran out of time)",
    );
  });

  it("the API keeps the night's own reasons", async () => {
    const a = (await (await app.request("/api/sources/waitport-minutes")).json()) as {
      lastOutcome: { outcome: string; reason: string };
    };
    expect(a.lastOutcome.outcome).toBe("unreached");
    expect(a.lastOutcome.reason).toMatch(/^the site asked to wait until 2026-11-07 01:00 /);
    const b = (await (await app.request("/api/sources/waitport-bids")).json()) as {
      lastOutcome: { outcome: string; reason: string };
    };
    expect(b.lastOutcome.reason).toBe("the night's time limit passed");
  });
});
