import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import { NorError } from "../../src/errors.js";
import { CounterIds } from "../../src/ids.js";
import { createFetcher } from "../../src/net/fetcher.js";
import { MemoryJournal, MemoryRobotsCache } from "../../src/net/memory-ports.js";
import type { Transport } from "../../src/net/types.js";
import { runNight } from "../../src/night/run-night.js";
import { buildSimulation, MemoryNightStore, simReader } from "../../src/night/simulate.js";
import { isRecheckNight } from "../../src/policy/recheck.js";
import { siteOf } from "../../src/policy/site.js";

/**
 * Review (revfixb): the offline decision's relabel, written when it is made (run-night.ts
 * `relabel`), may fail because the store's disk is full. The night then stops as configuration
 * (E_CONFIG: exit 2, which the systemd units do not restart on, since a restart would only ask
 * the same sites again for what it cannot record). It must end with that error, not with the
 * driver's raw one from the relabel written once more at the night's end.
 */
const NIGHT = "2026-11-05";

describe("review(revfixb): the offline decision's relabel refused by a full disk", () => {
  it("P20, P23: the night stops with the store-full configuration error (E_CONFIG), not the driver's raw error", async () => {
    const clock = new ManualClock();
    const dead = Array.from({ length: 12 }, (_, i) => ({
      site: `dead-${i}.org`,
      latencyMs: 10,
      sources: 1,
    }));
    const sim = buildSimulation(clock, dead);
    const transport: Transport = async () => ({
      kind: "failure",
      failure: "dns",
      message: "getaddrinfo ENOTFOUND",
    });
    const store = new MemoryNightStore();
    let relabels = 0;
    store.relabelCheckerOffline = async () => {
      relabels++;
      throw Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
    };
    let settled = false;
    const run = runNight(
      sim.catalog,
      {
        store,
        clock,
        reader: simReader,
        validators: store,
        siteOf,
        isRecheckNight,
        makeFetcher: async (state) =>
          createFetcher({
            clock,
            ids: new CounterIds(),
            journal: new MemoryJournal(),
            robotsCache: new MemoryRobotsCache(),
            transport,
            deadline: state.deadlineAt,
            night: NIGHT,
          }),
      },
      { night: NIGHT, deadlineMs: 60 * 60_000, concurrency: 2 },
    ).finally(() => {
      settled = true;
    });
    run.catch(() => {});
    for (let steps = 0; !settled && steps < 1_000_000; steps++) {
      if (!(await clock.step())) await new Promise<void>((r) => setImmediate(r));
    }
    const err = await run.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(relabels).toBeGreaterThan(0);
    expect(err).toBeInstanceOf(NorError);
    expect((err as NorError).code).toBe("E_CONFIG");
    expect((err as Error).message).toContain("could not record that the checker was offline");
  });
});
