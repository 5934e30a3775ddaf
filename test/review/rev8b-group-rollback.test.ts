/**
 * Review 8 (second pass), a guard (passes on main 7aef13b): group commit without savepoints. A
 * write that throws after a batch-mate's admission was decided rolls the whole batch back,
 * and the writes run again one by one. Nothing is given back before its own transaction
 * committed, so the admission the caller hears is the one the store holds: one row, the same
 * id and start, decided again at the time of the re-run (a different decision is possible and
 * harmless, since nothing was sent on the first one).
 */
import { describe, expect, it } from "vitest";
import type { Admitted, SendIntent } from "../../src/net/journal.js";
import { openStore } from "../../src/store/db.js";
import { SqlJournal } from "../../src/store/journal.js";
import { storeFactories } from "../store/stores.js";

const factories = storeFactories();

const T0 = Date.parse("2026-11-05T06:00:00Z");
const intent: SendIntent = {
  night: "2026-11-05",
  key: "agendas",
  method: "GET",
  url: "https://www.village.example.gov/agendas",
  site: "example.gov",
  origin: "https://www.village.example.gov",
  purpose: "page",
  gapMs: 2_000,
  replayAllowed: true,
};

describe.each(factories)("group commit rollback on $name", (factory) => {
  it("P27, P9: an admission whose batch-mate throws is given back only once committed, as the store holds it", async () => {
    const store = await openStore(await factory.migrated());
    try {
      const journal = new SqlJournal(store.db);
      let t = T0;
      const decisions: number[] = [];
      let settledBeforeRollback = false;
      let rolledBack = false;
      const admitted = journal
        .admit(intent, "host-a:1:aaaa", () => {
          decisions.push(t);
          return t;
        })
        .then((a: Admitted) => {
          if (!rolledBack) settledBeforeRollback = true;
          return a;
        });
      const bad = journal.group.run(async (tx) => {
        await tx
          .insertInto("site_state")
          .values({ site: "other.gov", last_end_at: null, updated_at: "x" })
          .execute();
        rolledBack = true;
        t += 5_000; // the re-run decides later
        throw new Error("a write after the admission fails");
      });
      await expect(bad).rejects.toThrow("a write after the admission fails");
      const a = await admitted;
      const rows = await store.db
        .selectFrom("request_log")
        .select(["id", "started_at", "outcome"])
        .execute();
      const sites = await store.db
        .selectFrom("site_state")
        .select(["site", "lease_holder"])
        .execute();
      expect({
        settledBeforeRollback,
        decisions: decisions.map((d) => d - T0),
        kind: a.kind,
        rows: rows.map((r) => ({ id: String(r.id), started: Date.parse(r.started_at) - T0 })),
        sites,
      }).toEqual({
        settledBeforeRollback: false,
        decisions: [0, 5_000],
        kind: "go",
        rows: [{ id: a.kind === "go" ? a.id : "-", started: 5_000 }],
        sites: [{ site: "example.gov", lease_holder: "host-a:1:aaaa" }],
      });
      expect(journal.group.stats.alone).toBe(1);
    } finally {
      await store.close();
    }
  });
});
