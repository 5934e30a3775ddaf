import { describe, expect, it } from "vitest";
import { ManualClock } from "../../src/clock.js";
import { MemoryJournal, MemoryRobotsCache } from "../../src/net/memory-ports.js";
import {
  buildSimulation,
  MemoryNightStore,
  runSimulatedNight,
  type SimSite,
  type Simulation,
} from "../../src/night/simulate.js";
import { addDays } from "../../src/policy/night-date.js";

/**
 * The flag rules (P24), each from the outside of the real scheduler and fetcher in virtual
 * time: what the simulated sites answer night after night decides which flags a person
 * finds, and the site's own log shows the checker never acts on one (the source stays read
 * and is asked again the next night, P23).
 */
const FIRST = "2026-11-05";
const DAY = 24 * 3600_000;

interface Nights {
  sim: Simulation;
  store: MemoryNightStore;
  /** Runs night d (0-based) and returns the requests the sites saw during it. */
  night(d: number): Promise<{ url: string; status: number }[]>;
  flags(source: string): { kind: string; night: string }[];
}

function nights(sites: SimSite[]): Nights {
  const clock = new ManualClock(Date.parse("2026-11-05T23:00:00Z"));
  const sim = buildSimulation(clock, sites);
  const store = new MemoryNightStore();
  const journal = new MemoryJournal();
  const robotsCache = new MemoryRobotsCache();
  let ran = -1;
  return {
    sim,
    store,
    async night(d) {
      if (ran >= 0) await clock.advance((d - ran) * DAY);
      ran = d;
      const from = sim.observed.length;
      await runSimulatedNight(clock, sim, store, {
        night: addDays(FIRST, d),
        deadlineMs: 6 * 3600_000,
        concurrency: 2,
        journal,
        robotsCache,
      });
      return sim.observed.slice(from).map((r) => ({ url: r.url, status: r.status }));
    },
    flags: (source) =>
      store.flags.filter((f) => f.source === source).map((f) => ({ kind: f.kind, night: f.night })),
  };
}

const site = (s: Partial<SimSite> & { site: string }): SimSite => ({
  latencyMs: 100,
  sources: 1,
  ...s,
});
const spec = (n: Nights, name: string) => n.sim.sites.get(name) as SimSite;
const pages = <T extends { url: string }>(seen: T[]): T[] =>
  seen.filter((r) => !r.url.endsWith("/robots.txt"));

describe("the flag rules (P24), in virtual time", () => {
  it("P24, P23: a no on three nights in a row raises one no-three-nights flag, not again while it is open; the source stays read and is asked every night", async () => {
    const n = nights([site({ site: "no.org", saysNo: true })]);
    const id = "no.org/0";
    for (let d = 0; d < 5; d++) {
      const seen = await n.night(d);
      // P23: asked again every night, the same way (the checker never acts on its flag).
      expect(pages(seen).map((r) => r.status)).toEqual([403]);
      expect(n.store.outcomeOf(id, addDays(FIRST, d))?.kind).toBe("refused");
      expect(n.flags(id)).toEqual(
        d < 2 ? [] : [{ kind: "no-three-nights", night: addDays(FIRST, 2) }],
      );
    }
    expect(n.store.marks.get(id)).toBeUndefined(); // P24: only a person marks it
  });

  it("P21, P23, P24: a site's no is the no of every source there that night (SPEC P21: it stops on that site), so a site that keeps saying no flags each of its sources for a person, though only one was asked", async () => {
    const n = nights([site({ site: "no.org", sources: 2, saysNo: true })]);
    for (let d = 0; d < 3; d++) {
      const seen = await n.night(d);
      // One page asked a night: the first no closes the site's lane (P21).
      expect(pages(seen).map((r) => r.status)).toEqual([403]);
      const reasons = ["no.org/0", "no.org/1"].map((id) => {
        const o = n.store.outcomeOf(id, addDays(FIRST, d));
        expect(o?.kind).toBe("refused");
        return o?.reason;
      });
      expect(
        reasons.filter((r) => r === "site said no earlier tonight: http block: status 403"),
      ).toHaveLength(1);
    }
    for (const id of ["no.org/0", "no.org/1"])
      expect(n.flags(id)).toEqual([{ kind: "no-three-nights", night: addDays(FIRST, 2) }]);
  });

  it("P24, P20: robots.txt unavailable counts as a no; an answer in between starts the count again", async () => {
    const n = nights([site({ site: "down.org", robotsStatus: 500 })]);
    const id = "down.org/0";
    await n.night(0);
    await n.night(1);
    expect(n.store.outcomeOf(id, addDays(FIRST, 1))?.kind).toBe("robots-unavailable");
    // Night 2 the site is back: no flag, and the row of nos is broken.
    delete spec(n, "down.org").robotsStatus;
    await n.night(2);
    expect(n.store.outcomeOf(id, addDays(FIRST, 2))?.kind).toBe("ok");
    spec(n, "down.org").robotsStatus = 500;
    await n.night(3);
    await n.night(4);
    expect(n.flags(id)).toEqual([]);
    const seen = await n.night(5);
    // P20: robots.txt asked, nothing else on that origin that night.
    expect(seen.map((r) => new URL(r.url).pathname)).toEqual(["/robots.txt"]);
    expect(n.flags(id)).toEqual([{ kind: "no-three-nights", night: addDays(FIRST, 5) }]);
  });

  it("P24: a page that opens but shows no records where earlier nights had some is flagged no-records; a source empty from its first night is not", async () => {
    const n = nights([site({ site: "was.org" }), site({ site: "empty.org", noRecords: true })]);
    await n.night(0);
    expect(n.store.outcomeOf("was.org/0", FIRST)?.kind).toBe("ok");
    expect(n.store.outcomeOf("empty.org/0", FIRST)?.kind).toBe("no-records");
    spec(n, "was.org").noRecords = true;
    const seen = await n.night(1);
    expect(n.store.outcomeOf("was.org/0", addDays(FIRST, 1))?.kind).toBe("no-records");
    expect(n.flags("was.org/0")).toEqual([{ kind: "no-records", night: addDays(FIRST, 1) }]);
    expect(n.flags("empty.org/0")).toEqual([]);
    // It stays in the next night's check (the checker only flags).
    expect(pages(seen).some((r) => r.url.includes("was.org/list/0"))).toBe(true);
    await n.night(2);
    expect(n.flags("was.org/0")).toHaveLength(1);
  });

  it("P24, P18: robots.txt that now disallows a page read before is flagged robots-disallows once; the page is not requested; a page disallowed from the start is not flagged", async () => {
    const n = nights([
      site({ site: "was.org", robotsTxt: "User-agent: *\nAllow: /\n" }),
      site({ site: "never.org", robotsTxt: "User-agent: *\nDisallow: /list/\n" }),
    ]);
    await n.night(0);
    expect(n.store.outcomeOf("was.org/0", FIRST)?.kind).toBe("ok");
    expect(n.store.outcomeOf("never.org/0", FIRST)?.kind).toBe("disallowed");
    spec(n, "was.org").robotsTxt = "User-agent: *\nDisallow: /list/\n";
    for (const d of [1, 2]) {
      const seen = await n.night(d);
      expect(n.store.outcomeOf("was.org/0", addDays(FIRST, d))?.kind).toBe("disallowed");
      // P18: robots.txt (a new day, so read again, P16) and nothing under /list/.
      expect(
        seen.filter((r) => r.url.includes("was.org")).map((r) => new URL(r.url).pathname),
      ).toEqual(["/robots.txt"]);
    }
    expect(n.flags("was.org/0")).toEqual([{ kind: "robots-disallows", night: addDays(FIRST, 1) }]);
    expect(n.flags("never.org/0")).toEqual([]);
    expect(n.store.outcomeOf("was.org/0", addDays(FIRST, 1))?.url).toContain("/list/0");
  });
});
