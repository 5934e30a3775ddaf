import { load } from "cheerio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SourceResult } from "../../src/night/types.js";
import { RECHECK_SOON_NIGHTS } from "../../src/policy/constants.js";
import { siteOf } from "../../src/policy/site.js";
import { importCatalog } from "../../src/sources/catalog-import.js";
import { SqlNightStore } from "../../src/store/night-store.js";
import { setSiteRule } from "../../src/store/site-rules.js";
import { createApp } from "../../src/web/app.js";
import { buildFixture, catalog, type Fixture, NOT_READ_REASON, ORIGIN } from "./fixture.js";

/**
 * What a source's page says comes next after its latest no (P23) or a night the checker was
 * offline: "the next night's check, the same way and at the same pace" only while the page is
 * read and in the catalog. A page a person marked not read is only rechecked (P25); one whose
 * site's owner asked not to be read is sent nothing; a retired one is no longer checked.
 */
const READ_SENTENCE =
  "The page stays in the next night's check, asked the same way and at the same pace.";
/** The day after the fixture's last night, with one more night (Nov 6) committed below. */
const LATER = Date.parse("2026-11-07T15:00:00.000Z");
const EXTRA_NIGHT = "2026-11-06";
const OWNER_REASON = "Owner e-mail of Nov 6";

let plain: Fixture;
let plainApp: ReturnType<typeof createApp>;
let changed: Fixture;
let changedApp: ReturnType<typeof createApp>;

const at = Date.parse(`${EXTRA_NIGHT}T06:00:00.000Z`) + 22 * 3_600_000;

/** Opens the night of Nov 6 in a fixture's store, for the outcomes committed to it. */
async function extraNight(f: Fixture): Promise<SqlNightStore> {
  const night = new SqlNightStore(f.store.db);
  const startedAt = at - 3_600_000;
  await night.openNight(EXTRA_NIGHT, startedAt, startedAt + 6 * 3_600_000);
  await night.syncSources(
    catalog()
      .sources.filter((s) => s.id !== "old-permits")
      .map((s) => ({
        id: s.id,
        government: s.government,
        url: s.url,
        site: new URL(s.url).origin,
      })),
    startedAt,
  );
  return night;
}

function result(sourceId: string, outcome: SourceResult["outcome"], offset: number): SourceResult {
  return {
    sourceId,
    outcome,
    records: [],
    validators: [],
    flags: [],
    startedAt: at + offset,
    endedAt: at + offset + 1000,
  };
}

const OFFLINE = { kind: "checker-offline", reason: "most sites failed to resolve" } as const;

beforeAll(async () => {
  // Read and in the catalog: test-bids said no on Nov 5 (fixture); on Nov 6 the checker was
  // offline for test-agendas.
  plain = await buildFixture();
  {
    const night = await extraNight(plain);
    await night.commit(EXTRA_NIGHT, result("test-agendas", OFFLINE, 1000));
    await night.finishNight(EXTRA_NIGHT, at + 60_000);
  }
  plainApp = createApp({ db: plain.store.db, now: () => LATER, origin: ORIGIN });
  changed = await buildFixture();
  const db = changed.store.db;
  // Nov 6: akron-minutes (marked not read on Nov 4 by a person) is rechecked and still says no
  // (P25); evil-notices says no; test-agendas meets a night the checker was offline.
  const night = await extraNight(changed);
  await night.commit(
    EXTRA_NIGHT,
    result("akron-minutes", { kind: "recheck-still-no", reason: "403 again", status: 403 }, 1000),
  );
  await night.commit(
    EXTRA_NIGHT,
    result("evil-notices", { kind: "refused", reason: "Forbidden (403)", status: 403 }, 2000),
  );
  await night.commit(EXTRA_NIGHT, result("test-agendas", OFFLINE, 3000));
  await night.finishNight(EXTRA_NIGHT, at + 60_000);
  // The owner of test.example asks by e-mail that the site not be read (`nor site --not-read`):
  // test-bids, whose latest night (Nov 5) was a no, and test-agendas are on it.
  await setSiteRule(db, {
    site: siteOf("https://test.example/bids"),
    kind: "not-read",
    reason: OWNER_REASON,
    at: Date.parse("2026-11-06T16:00:00.000Z"),
    by: "operator",
  });
  // evil-notices leaves the catalog after its no of Nov 6: retired.
  const full = catalog();
  const kept = {
    ...full,
    sources: full.sources.filter((s) => s.id !== "old-permits" && s.id !== "evil-notices"),
  };
  await importCatalog(
    db,
    kept,
    {
      governments: new Map(kept.governments.map((g) => [g.id, "catalog.yaml"])),
      sources: new Map(kept.sources.map((s) => [s.id, "catalog.yaml"])),
    },
    Date.parse("2026-11-07T12:00:00.000Z"),
    { allowRetire: true },
  );
  changedApp = createApp({ db, now: () => LATER, origin: ORIGIN });
});
afterAll(async () => {
  await plain?.close();
  await changed?.close();
});

async function page(app: ReturnType<typeof createApp>, id: string) {
  const res = await app.request(`/sources/${id}`);
  expect(res.status).toBe(200);
  return load(await res.text());
}

describe("a source's page after its latest no says what comes next, as it is for this page", () => {
  it("P23: a page still read and in the catalog stays in the next night's check, the same way and at the same pace", async () => {
    const $ = await page(plainApp, "test-bids");
    const no = $("section.last-no");
    expect(no.text()).toContain("The night of Nov 5, the site said no.");
    expect(no.find(".next-check").attr("data-next")).toBe("read");
    expect(no.find(".next-check").text()).toBe(READ_SENTENCE);
  });

  it("P24, P25: a page a person marked not read is not promised the next night's check; the page says it is only rechecked (up to three nights soon after, then once a week, robots.txt permitting, no records taken)", async () => {
    const $ = await page(changedApp, "akron-minutes");
    expect($(".read-status").text()).toContain("not read");
    expect($(".read-status .reason").text()).toBe(NOT_READ_REASON);
    const no = $("section.last-no");
    expect(no.text()).toContain("The night of Nov 6, the site said no.");
    expect(no.find(".status").text()).toBe("recheck: still no");
    expect(no.text()).not.toContain("next night's check");
    expect(no.text()).not.toContain("same pace");
    const next = no.find(".next-check");
    expect(next.attr("data-next")).toBe("not-read");
    const words = next.text().replace(/\s+/g, " ");
    expect(words).toContain("A person marked this page not read");
    expect(words).toContain("whether the no still stands");
    expect(words).toContain(
      `on up to ${RECHECK_SOON_NIGHTS} nights soon after it was marked, then once a week`,
    );
    expect(words).toContain("only when robots.txt allows");
    expect(words).toContain("no records are taken from it");
    expect(words).toContain("a person decides whether to read the page again");
  });

  it("P26: a page whose site's owner asked not to be read is not promised a next check: the checker asks it nothing, not even to recheck", async () => {
    const $ = await page(changedApp, "test-bids");
    expect($(".read-status .site-owner").text()).toContain("test.example");
    const no = $("section.last-no");
    expect(no.text()).toContain("The night of Nov 5, the site said no.");
    expect(no.text()).not.toContain("next night's check");
    const next = no.find(".next-check");
    expect(next.attr("data-next")).toBe("site-owner");
    expect(next.text().replace(/\s+/g, " ")).toBe(
      "The owner of its site asked that the site not be read, so the checker asks it nothing more, not even whether this no still stands.",
    );
  });

  it("P23: a retired page whose latest night was a no says it is no longer checked, never that it stays in the next night's check", async () => {
    const $ = await page(changedApp, "evil-notices");
    expect($("p.retired").text()).toContain("It is no longer checked");
    const no = $("section.last-no");
    expect(no.text()).toContain("The night of Nov 6, the site said no.");
    expect(no.text()).not.toContain("next night's check");
    const next = no.find(".next-check");
    expect(next.attr("data-next")).toBe("retired");
    expect(next.text()).toBe(
      "It has left the directory's catalog, so the checker asks it nothing more.",
    );
    // Its status says so, and no feed of what is new is offered: a retired page is in none.
    expect($(".read-status .status").text()).toBe("retired");
    expect($("a[href^='/new.']").length).toBe(0);
    expect($("link[rel=alternate]").length).toBe(0);
    expect($("p.retired").text()).toContain("no longer in the lists and feeds of what is new");
  });

  it("P20, P26: after a night the checker was offline, a page whose site's owner asked not to be read is not promised the next night either", async () => {
    const $ = await page(changedApp, "test-agendas");
    const offline = $("section.checker-offline");
    expect(offline.text()).toContain("The night of Nov 6, the checker itself could not reach");
    expect(offline.text()).not.toContain("checked again the next night");
    expect(offline.find(".next-check").attr("data-next")).toBe("site-owner");
    expect(offline.find(".next-check").text().replace(/\s+/g, " ")).toBe(
      "The owner of its site asked that the site not be read, so the checker asks it nothing more.",
    );
    // While read, the same night says the page is checked again the next night.
    const read = (await page(plainApp, "test-agendas"))("section.checker-offline .next-check");
    expect(read.attr("data-next")).toBe("read");
    expect(read.text()).toBe("The page is checked again the next night, first in its lane.");
  });
});
