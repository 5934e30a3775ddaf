import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { SqlRequestLog } from "../../src/store/request-log.js";
import { entry } from "../store/entries.js";
import { planOf, recording, usesIndex } from "../store/query-plan.js";
import { migratedSqliteIn } from "../store/stores.js";
import { nor } from "./cli-capture.js";
import { background, nearMisses, ny, wanted } from "./log-fixture.js";

const runNor = (args: string[]) => nor(...args);

describe("nor log (P27)", () => {
  let dir: string;
  const dirs: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "nor-log-cli-"));
    dirs.push(dir);
    // Each store made from the process's one migration (test/store/stores.ts), as openStore
    // would make it here: nothing asked here is about making a store.
    await migratedSqliteIn(dir);
    const store = await openStore({ kind: "sqlite", dir });
    const log = new SqlRequestLog(store.db);
    await log.appendMany(background());
    for (const e of [...nearMisses, ...wanted]) await log.append(e);
    await store.close();
  });
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("P27: exactly one page of attempts (5,000) is laid out as any one page: no EVIDENCE column for rows without one", async () => {
    const d = mkdtempSync(join(tmpdir(), "nor-log-page-"));
    dirs.push(d);
    await migratedSqliteIn(d);
    const store = await openStore({ kind: "sqlite", dir: d });
    const from = Date.UTC(2026, 10, 5, 8);
    await new SqlRequestLog(store.db).appendMany(
      Array.from({ length: 5000 }, (_, i) =>
        entry({ startedAt: from + i * 1000, url: `https://example.gov/p/${i}` }),
      ),
    );
    await store.close();
    const r = await runNor(["log", "--data", d]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(5001);
    expect(lines[0]).not.toContain("EVIDENCE");
  });

  it("P27: tens of thousands of attempts are printed a page at a time, in order, each once, the table's header once; --limit across pages", async () => {
    const store = await openStore({ kind: "sqlite", dir }, { create: false });
    const all = await new SqlRequestLog(store.db).query({ site: "example.gov" });
    await store.close();
    expect(all.length).toBeGreaterThan(12_000);
    const jsonl = await runNor(["log", "--data", dir, "--site", "example.gov", "--jsonl"]);
    expect(jsonl.code, jsonl.stderr).toBe(0);
    const lines = jsonl.stdout.trim().split("\n");
    expect(lines).toHaveLength(all.length);
    expect(lines.map((l) => (JSON.parse(l) as { url: string }).url)).toEqual(all.map((e) => e.url));
    const table = await runNor(["log", "--data", dir, "--site", "example.gov"]);
    const rows = table.stdout.trim().split("\n");
    expect(rows.filter((r) => r.startsWith("TIME ("))).toHaveLength(1);
    expect(rows).toHaveLength(all.length + 1);
    // A --limit within one page is laid out as ever: no EVIDENCE column for rows without one.
    const three = await runNor(["log", "--data", dir, "--site", "example.gov", "--limit", "3"]);
    expect(three.stdout.split("\n")[0]).not.toContain("EVIDENCE");
    expect(three.stdout.trim().split("\n")).toHaveLength(4);
    const limited = await runNor([
      "log",
      "--data",
      dir,
      "--site",
      "example.gov",
      "--limit",
      "7001",
      "--jsonl",
    ]);
    const some = limited.stdout.trim().split("\n");
    expect(some).toHaveLength(7001);
    expect((JSON.parse(some[7000] as string) as { url: string }).url).toBe(all[7000]?.url);
  });

  it("P27: 'what did you request from us at 03:12 on Nov 5?' finds exactly those rows among 100,000, through the site-and-time index", async () => {
    const args = [
      "log",
      "--data",
      dir,
      "--since",
      "2026-11-05 03:11",
      "--until",
      "2026-11-05 03:13",
    ];
    const r = await runNor([...args, "--site", "example.gov", "--jsonl"]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const got = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(got.map((g) => g["startedAt"])).toEqual(
      wanted.map((w) => new Date(w.startedAt).toISOString()),
    );
    expect(got[0]).toMatchObject({
      startedAt: "2026-11-05T08:11:00.000Z",
      endedAt: "2026-11-05T08:11:00.150Z",
      method: "GET",
      url: "https://example.gov/robots.txt",
      status: 200,
      outcome: "ok",
      site: "example.gov",
      source: "oh-example-agendas",
      purpose: "robots",
      attempt: 1,
      bytes: 1234,
    });

    // Why it stays fast whatever the log's size (no timing: the machine is shared): the very
    // query the log sends for this question reads the site-and-time index, never the table.
    // Timings of the same lookup are in bench/ (npm run bench -- bounds).
    const store = await openStore({ kind: "sqlite", dir }, { create: false });
    try {
      const { db, recorder } = recording(store.db);
      const rows = await new SqlRequestLog(db).query({
        since: ny(3, 11),
        // --until 03:13 is the whole minute.
        until: ny(3, 14),
        site: "example.gov",
      });
      expect(rows).toHaveLength(wanted.length);
      expect(recorder.queries).toHaveLength(1);
      const plan = await planOf(store.db, "sqlite", recorder.queries[0]!);
      expect(plan).toContain("request_log_site_started_at");
      expect(usesIndex(plan, "request_log_site_started_at"), plan).toBe(true);
    } finally {
      await store.close();
    }
  });

  it("P27: --site takes the host or a URL the site owner sees and finds its site's rows", async () => {
    const args = [
      "log",
      "--data",
      dir,
      "--since",
      "2026-11-05 03:11",
      "--until",
      "2026-11-05 03:13",
    ];
    for (const site of ["WWW.Example.gov", "https://www.example.gov/bids?x=1"]) {
      const r = await runNor([...args, "--site", site, "--jsonl"]);
      expect(r.code).toBe(0);
      expect(r.stdout.trim().split("\n")).toHaveLength(wanted.length);
    }
    expect((await runNor([...args, "--site", "http://"])).code).toBe(2);
  });

  it("P27: the human table is aligned and shows New York time, status and outcome, bytes, purpose, site, URL", async () => {
    const r = await runNor([
      "log",
      "--data",
      dir,
      "--since",
      "2026-11-05T08:11Z",
      "--until",
      "2026-11-05T08:13:10Z",
      "--site",
      "example.gov",
    ]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(
      /^TIME \(America\/New_York\)\s+MS\s+METHOD\s+STATUS\s+BYTES\s+PURPOSE\s+SITE\s+SOURCE\s+URL$/,
    );
    expect(lines[1]).toContain("2026-11-05 03:11:00.000 -05:00");
    expect(lines[2]).toMatch(
      /503 retry\s+1234\s+page\s+example\.gov\s+oh-example-agendas\s+https:\/\/example\.gov\/bids$/,
    );
    expect(lines[3]).toContain("200 ok #2");
    const urlColumn = lines.map((l) => l.indexOf("https://"));
    expect(new Set(urlColumn.slice(1)).size).toBe(1);
    expect(lines[0]?.indexOf("URL")).toBe(urlColumn[1]);
  });

  it("P27: a bare date is the whole New York day; --url-contains and --source narrow it", async () => {
    const day = ["log", "--data", dir, "--since", "2026-11-05", "--until", "2026-11-05"];
    const r = await runNor([
      ...day,
      "--url-contains",
      "BIDS",
      "--source",
      "oh-example-agendas",
      "--jsonl",
    ]);
    expect(r.code).toBe(0);
    const urls = r.stdout
      .trim()
      .split("\n")
      .map((l) => (JSON.parse(l) as { url: string }).url);
    // Ties in start time come back in the order they were logged.
    expect(urls).toEqual([
      "https://other.gov/bids",
      "https://example.gov/bids",
      "https://example.gov/bids",
    ]);
    // A source id this store has never heard of is said so (exit 2), not "no attempts match".
    const typo = await runNor([...day, "--source", "oh-exmaple-agendas"]);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('--source: this store has no source "oh-exmaple-agendas"');
    const whole = await runNor([...day, "--site", "example.gov", "--jsonl"]);
    const starts = whole.stdout
      .trim()
      .split("\n")
      .map((l) => Date.parse((JSON.parse(l) as { startedAt: string }).startedAt));
    const dayStart = Date.UTC(2026, 10, 5, 5);
    const dayEnd = Date.UTC(2026, 10, 6, 5);
    expect(starts.every((t) => t >= dayStart && t < dayEnd)).toBe(true);
    // example.gov was asked every 10.4 s: the first and last of the day sit at its edges.
    expect((starts[0] ?? 0) - dayStart).toBeLessThan(10_400);
    expect(dayEnd - (starts.at(-1) ?? 0)).toBeLessThanOrEqual(10_400);
  });

  it("P27: --jsonl carries failure, validators and evidence when the attempt has them", async () => {
    const d = mkdtempSync(join(tmpdir(), "nor-log-cli-"));
    dirs.push(d);
    await migratedSqliteIn(d);
    const store = await openStore({ kind: "sqlite", dir: d });
    await new SqlRequestLog(store.db).append(
      entry({
        status: 403,
        outcome: "refused",
        failure: "challenge",
        night: "2026-11-05",
        validatorsSent: { etag: '"v1"' },
        validatorsReceived: { lastModified: "Wed, 04 Nov 2026 10:00:00 GMT" },
        evidence: { provider: "akamai", verdict: "block", reference: "18.abc" },
      }),
    );
    await new SqlRequestLog(store.db).append(entry({ status: null, outcome: "unreachable" }));
    await store.close();
    const r = await runNor(["log", "--data", d, "--jsonl"]);
    const [first, second] = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(first).toMatchObject({
      status: 403,
      failure: "challenge",
      night: "2026-11-05",
      validatorsSent: { etag: '"v1"' },
      validatorsReceived: { lastModified: "Wed, 04 Nov 2026 10:00:00 GMT" },
      evidence: { provider: "akamai", verdict: "block", reference: "18.abc" },
    });
    expect(second.status).toBeNull();
    for (const k of ["failure", "validatorsSent", "validatorsReceived", "evidence", "night"]) {
      expect(second).not.toHaveProperty(k);
    }
  });

  it("a bad time is a usage error (exit 2) naming the bad value", async () => {
    const r = await runNor(["log", "--data", dir, "--since", "Nov 5 3am"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--since: cannot read "Nov 5 3am" as a time');
    const backwards = await runNor([
      "log",
      "--data",
      dir,
      "--since",
      "2026-11-06",
      "--until",
      "2026-11-05",
    ]);
    expect(backwards.code).toBe(2);
  });

  it("a missing store is a clear error (exit 2), and reading never creates one", async () => {
    const parent = mkdtempSync(join(tmpdir(), "nor-log-cli-"));
    dirs.push(parent);
    const missing = join(parent, "nowhere");
    const r = await runNor(["log", "--data", missing]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`no store at ${join(missing, "nor.db")}`);
    expect(existsSync(missing)).toBe(false);
    const empty = await runNor(["log", "--data", parent]);
    expect(empty.code).toBe(2);
    expect(existsSync(join(parent, "nor.db"))).toBe(false);
  });
});
