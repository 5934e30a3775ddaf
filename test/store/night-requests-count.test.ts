import { describe, expect, it } from "vitest";
import { DISCOVER_SOURCE, NOT_SENT } from "../../src/policy/admission.js";
import { nightTotals } from "../../src/store/admin.js";
import { openStore } from "../../src/store/db.js";
import { nightReport } from "../../src/store/read/night-report.js";
import { storeFactories } from "./stores.js";

/**
 * tester-b 2a, 2b: a night's `requests` (its end summary, `nor demo`) counts the requests the
 * night sent: not a row completed without being sent (`not sent: …`, the site saw nothing of
 * it), nor `nor discover`'s requests, whose rows carry that night's date (P16, P20: tonight's
 * robots.txt answers hold for it) but are not the night's work.
 */
const NIGHT = "2026-12-05";
const at = "2026-12-06T01:00:00.000Z";

const row = (
  source: string | null,
  outcome: string,
  failure: string | null,
  site = "test.example",
) => ({
  started_at: at,
  ended_at: at,
  method: "GET",
  url: `https://${site}/agendas.rss`,
  status: outcome === "ok" ? 200 : null,
  outcome,
  failure,
  bytes: 0,
  site,
  origin: `https://${site}`,
  source,
  purpose: "page",
  attempt: 1,
  night: NIGHT,
});

describe.each(storeFactories().map((f) => [f.name, f] as const))("%s store", (_name, factory) => {
  it("P27: a catalog source whose id is 'discover' (kebab-case, allowed) has its requests counted; nor discover's are not", async () => {
    const store = await openStore(await factory.migrated());
    try {
      await store.db
        .insertInto("request_log")
        .values([row("discover", "ok", null), row(DISCOVER_SOURCE, "ok", null)] as never)
        .execute();
      expect((await nightTotals(store.db, NIGHT)).requests).toBe(1);
    } finally {
      await store.close();
    }
  });

  it("P27, P3: a request the checker's own address check refused (blocked-address) left nothing for the site: not counted as sent", async () => {
    const store = await openStore(await factory.migrated());
    try {
      await store.db
        .insertInto("request_log")
        .values([
          row("s1", "ok", null),
          row("s4", "blocked-address", "the address 10.0.0.7 is not a public address"),
        ] as never)
        .execute();
      expect((await nightTotals(store.db, NIGHT)).requests).toBe(1);
    } finally {
      await store.close();
    }
  });

  it("P27: the console's night report counts the requests the night's summary counts, site by site", async () => {
    const store = await openStore(await factory.migrated());
    try {
      await store.db
        .insertInto("nights")
        .values({
          night: NIGHT,
          started_at: at,
          deadline_at: "2026-12-06T06:00:00.000Z",
          finished_at: "2026-12-06T01:05:00.000Z",
          runs: 1,
          user_agent: null,
          catalog_note: null,
        })
        .execute();
      await store.db
        .insertInto("request_log")
        .values([
          row("s1", "ok", null),
          row("s2", "interrupted", `${NOT_SENT} stopped before its planned start`),
          row("s3", "interrupted", "interrupted: the process ended during it"),
          row(DISCOVER_SOURCE, "ok", null, "other.example"),
        ] as never)
        .execute();
      const report = await nightReport(store.db, NIGHT, () => false);
      expect(report?.totalRequests).toBe((await nightTotals(store.db, NIGHT)).requests);
      expect(report?.totalRequests).toBe(2);
      expect(report?.requests).toEqual([{ site: "test.example", requests: 2, bytes: 0 }]);
    } finally {
      await store.close();
    }
  });

  it("P27: a night's requests count those it sent: not a row never sent, nor nor discover's", async () => {
    const store = await openStore(await factory.migrated());
    try {
      await store.db
        .insertInto("request_log")
        .values([
          row("s1", "ok", null),
          row("s2", "interrupted", `${NOT_SENT} stopped before its planned start`),
          row("s3", "interrupted", "interrupted: the process ended during it"),
          row(DISCOVER_SOURCE, "ok", null),
        ] as never)
        .execute();
      expect((await nightTotals(store.db, NIGHT)).requests).toBe(2);
    } finally {
      await store.close();
    }
  });
});
