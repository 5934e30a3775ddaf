import { describe, expect, it } from "vitest";
import { NOT_SENT } from "../../src/policy/admission.js";
import { nightTotals } from "../../src/store/admin.js";
import { openStore } from "../../src/store/db.js";
import { storeFactories } from "./stores.js";

/**
 * tester-b 2a, 2b: a night's `requests` (its end summary, `nor demo`) counts the requests the
 * night sent: not a row completed without being sent (`not sent: …`, the site saw nothing of
 * it), nor `nor discover`'s requests, whose rows carry that night's date (P16, P20: tonight's
 * robots.txt answers hold for it) but are not the night's work.
 */
const NIGHT = "2026-12-05";
const at = "2026-12-06T01:00:00.000Z";

describe.each(storeFactories().map((f) => [f.name, f] as const))("%s store", (_name, factory) => {
  it("P27: a night's requests count those it sent: not a row never sent, nor nor discover's", async () => {
    const store = await openStore(await factory.fresh());
    try {
      const row = (source: string | null, outcome: string, failure: string | null) => ({
        started_at: at,
        ended_at: at,
        method: "GET",
        url: "https://test.example/agendas.rss",
        status: outcome === "ok" ? 200 : null,
        outcome,
        failure,
        bytes: 0,
        site: "test.example",
        origin: "https://test.example",
        source,
        purpose: "page",
        attempt: 1,
        night: NIGHT,
      });
      await store.db
        .insertInto("request_log")
        .values([
          row("s1", "ok", null),
          row("s2", "interrupted", `${NOT_SENT} stopped before its planned start`),
          row("s3", "interrupted", "interrupted: the process ended during it"),
          row("discover", "ok", null),
        ] as never)
        .execute();
      expect((await nightTotals(store.db, NIGHT)).requests).toBe(2);
    } finally {
      await store.close();
    }
  });
});
