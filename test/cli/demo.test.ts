import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { nor } from "./cli-capture.js";

/**
 * `nor demo --headless` end to end, in this process: the demo's loopback sites, two nights
 * with the real fetcher at the real 2 s pace, the directory served and checked by the demo
 * itself; then what the nights did is read back from the store, as the operator would.
 */
describe("nor demo", () => {
  const dir = mkdtempSync(join(tmpdir(), "nor-demo-test-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("P10, P12, P18, P21: runs two nights against its loopback sites, serves the directory and checks it", async () => {
    const data = join(dir, "data");
    const r = await nor("demo", "--headless", "--port", "0", "--data", data);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("9 invented government sites are up on loopback");
    expect(r.stdout).toMatch(/Night 1 of 2[\s\S]*2 s apart[\s\S]*Night 2 of 2/);
    expect(r.stdout).toMatch(/The directory is at http:\/\/127\.0\.0\.1:\d+\/ — what to click/);
    expect(r.stdout).toContain('checked /new: 200, shows "Finance Committee minutes"');
    expect(r.stdout).toContain("headless: the directory answered as expected");
    // Its feed links back to the served directory (it said http://localhost before).
    expect(r.stdout).toMatch(
      /checked \/new\.atom: 200, shows "href="http:\/\/127\.0\.0\.1:\d+\/new\.atom""/,
    );

    const store = await openStore({ kind: "sqlite", dir: data }, { create: false });
    try {
      const outcomes = await store.db
        .selectFrom("night_sources")
        .select(["night", "source_id", "outcome", "new_records", "records_found"])
        .orderBy("night")
        .orderBy("source_id")
        .execute();
      const [first, second] = [...new Set(outcomes.map((o) => o.night))];
      const of = (night: string | undefined, id: string) =>
        outcomes.find((o) => o.night === night && o.source_id === id);
      expect(outcomes).toHaveLength(18);
      // The page that changed: its two new records on the second night.
      expect(Number(of(second, "changeville-council-minutes")?.new_records)).toBe(2);
      // The first night read it for the first time: its three records were already listed.
      expect(Number(of(first, "changeville-council-minutes")?.new_records)).toBe(0);
      const listed = await store.db
        .selectFrom("records")
        .select(["first_seen_night", "already_listed"])
        .where("source_id", "=", "changeville-council-minutes")
        .orderBy("first_seen_night")
        .execute();
      expect(listed.map((r) => [r.first_seen_night, r.already_listed])).toEqual([
        [first, 1],
        [first, 1],
        [first, 1],
        [second, 0],
        [second, 0],
      ]);
      // P12: the feed with an ETag answered 304 the second night.
      expect(of(second, "harmon-county-notices")?.outcome).toBe("unchanged");
      // P21: a 403 is a no; P18: robots.txt disallowing is obeyed.
      expect(of(first, "eastfield-township-minutes")?.outcome).toBe("refused");
      expect(of(first, "closedport-city-permits")?.outcome).toBe("disallowed");
      // P5, P6: the platforms and the search form all found records the first night.
      for (const id of [
        "millbrook-council-agendas",
        "riverbend-council-meetings",
        "millbrook-schools-board-meetings",
        "harmon-county-building-permits",
        "slowwater-village-bids",
      ]) {
        expect(of(first, id)?.outcome, id).toBe("ok");
        expect(Number(of(first, id)?.records_found), id).toBeGreaterThan(0);
      }

      const log = await store.db
        .selectFrom("request_log")
        .select(["site", "url", "started_at", "ended_at"])
        .orderBy("id")
        .execute();
      // P18: from the site whose robots.txt says no, only robots.txt was asked.
      const closedSite = await store.db
        .selectFrom("night_catalog")
        .select("site")
        .where("source_id", "=", "closedport-city-permits")
        .executeTakeFirstOrThrow();
      const asked = log
        .filter((l) => l.site === closedSite.site)
        .map((l) => new URL(l.url).pathname);
      expect(asked.length).toBeGreaterThan(0);
      expect(new Set(asked)).toEqual(new Set(["/robots.txt"]));
      // P10: the real pace, at least 2 s from the end of one request to the next on a site.
      const bySite = new Map<string, { start: number; end: number }[]>();
      for (const l of log) {
        const list = bySite.get(l.site) ?? [];
        expect(l.ended_at, l.url).not.toBeNull(); // every attempt finished
        list.push({ start: Date.parse(l.started_at), end: Date.parse(l.ended_at ?? "") });
        bySite.set(l.site, list);
      }
      let pairs = 0;
      for (const [site, list] of bySite) {
        list.sort((a, b) => a.start - b.start);
        for (let i = 1; i < list.length; i++) {
          expect(list[i]!.start - list[i - 1]!.end, site).toBeGreaterThanOrEqual(2000);
          pairs++;
        }
      }
      expect(pairs).toBeGreaterThan(9);
    } finally {
      await store.close();
    }
  }, 180_000);

  it("a busy port is said before any night runs (exit 1: runtime), and a non-empty --data is refused (exit 2)", async () => {
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, "127.0.0.1", () => r()));
    try {
      const port = String((busy.address() as { port: number }).port);
      const r = await nor("demo", "--headless", "--port", port, "--data", join(dir, "busy"));
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        /cannot serve on 127\.0\.0\.1:\d+: the port is in use .*\(0 picks a free one\)/,
      );
      expect(r.stdout).not.toContain("Night 1 of 2");
      // Said before anything was made there: the same --data can be given again.
      expect(existsSync(join(dir, "busy")) ? readdirSync(join(dir, "busy")) : []).toEqual([]);
    } finally {
      await new Promise((r) => busy.close(r));
    }
    mkdirSync(join(dir, "busy"), { recursive: true });
    writeFileSync(join(dir, "busy", "notes.txt"), "mine\n");
    const again = await nor("demo", "--headless", "--port", "0", "--data", join(dir, "busy"));
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("is not empty: the demo needs a new or empty directory");
    const gap = await nor("demo", "--headless", "--port", "0", "--gap-ms", "-1");
    expect(gap.code).toBe(2);
    expect(gap.stderr).toContain('--gap-ms: "-1" is not a whole number of at least 0');
  }, 60_000);
});
