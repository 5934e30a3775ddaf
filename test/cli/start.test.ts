import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bundledCatalog, runStart, scheduleNights } from "../../src/cli/commands/start.js";
import { ManualClock } from "../../src/clock.js";
import { parseDailyAt } from "../../src/policy/schedule.js";
import { openStore } from "../../src/store/db.js";
import { storePasswordHash } from "../../src/store/read/console.js";
import { hashOf } from "../web/console-support.js";
import { sayings } from "./sayings.js";

const NY = "America/New_York";

describe("nor start", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it("imports the catalog, serves the directory, and runs the night at its time (shortened, injected clock)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "nor-start-"));
    dirs.push(dir);
    const catalog = join(dir, "catalog.yaml");
    writeFileSync(
      catalog,
      `governments:
  - { id: village-of-start, name: Village of Start, kind: village, county: Franklin }
sources:
  - { id: start-agendas, government: village-of-start, records: agendas, url: "http://127.0.0.1:9/agendas.rss" }
`,
    );
    const data = join(dir, "data");
    // Two seconds before 01:00 in New York.
    const clock = new ManualClock(Date.UTC(2026, 10, 5, 5, 59, 58));
    const { lines, say, said } = sayings();
    const stop = new AbortController();
    let url = "";
    const running = runStart(
      {
        catalog: [catalog],
        data,
        host: "127.0.0.1",
        port: "0",
        at: "01:00",
        zone: NY,
        deadline: "1m",
      },
      { clock, say, signal: stop.signal, onListening: (u) => (url = u) },
    );
    await said(/the next night runs at 2026-11-05 01:00 America\/New_York \(in 2s/);
    expect(lines[0]).toMatch(
      /catalog .*catalog\.yaml: 1 government, 1 source \(1 new, 0 changed, 0 retired\)/,
    );
    expect(lines[1]).toBe(`the directory is at ${url} (the site-owner page: ${url}site-owners)`);
    // No operator password in a new store: the console is off, and it says how to turn it on.
    expect(lines[2]).toBe(
      `the console is off: no operator password is set (run \`npx nor operator set-password --data ${data}\` in the project's folder, then restart)`,
    );
    expect((await fetch(`${url}console`, { redirect: "manual" })).status).toBe(503);
    // Feeds, robots.txt and the sitemap link to where the directory is served (no --origin),
    // not to http://localhost, whatever Host the request names.
    const atom = await (
      await fetch(`${url}new.atom`, { headers: { host: "evil.example" } })
    ).text();
    expect(atom).toContain(`href="${url}new.atom"`);
    expect(atom).not.toContain("localhost");
    expect(atom).not.toContain("evil.example");
    expect(await (await fetch(`${url}robots.txt`)).text()).toContain(`Sitemap: ${url}sitemap.xml`);

    // Served from the data directory the catalog went into.
    const home = await fetch(url);
    expect(home.status).toBe(200);
    const governments = await (await fetch(`${url}governments`)).text();
    expect(governments).toContain("Village of Start");

    // No night before its time; at 01:00 one runs, as its own `nor night` process.
    await clock.advance(1_000);
    expect(lines.some((l) => l === "the night starts now")).toBe(false);
    await clock.advance(1_000);
    await said(/the night is done/);
    await said(/the next night runs at 2026-11-06 01:00 America\/New_York/);
    const store = await openStore({ kind: "sqlite", dir: data }, { create: false });
    try {
      const nights = await store.db.selectFrom("night_sources").select(["source_id"]).execute();
      expect(nights.map((n) => n.source_id)).toEqual(["start-agendas"]);
    } finally {
      await store.close();
    }
    stop.abort();
    await running;
    expect(lines.at(-1)).toBe("stopped");
  }, 120_000);

  it("with no options: imports the bundled Ohio catalog into the data directory, serves it, and says when the night runs", async () => {
    expect(bundledCatalog().map((f) => f.replace(/^.*\/catalog\//, "catalog/"))).toContain(
      "catalog/ohio.yaml",
    );
    const dir = mkdtempSync(join(tmpdir(), "nor-start-default-"));
    dirs.push(dir);
    const lines: string[] = [];
    const stop = new AbortController();
    let listening: (url: string) => void = () => {};
    const served = new Promise<string>((r) => (listening = r));
    const clock = new ManualClock(Date.UTC(2026, 10, 5, 12, 0, 0));
    const running = runStart(
      { data: join(dir, "data"), host: "127.0.0.1", port: "0", at: "01:00", zone: NY },
      { clock, say: (l) => lines.push(l), signal: stop.signal, onListening: listening },
    );
    const url = await served;
    expect(lines[0]).toMatch(
      /catalog .*catalog\/ohio\.yaml: \d{3} governments, \d{3} sources \(\d{3} new/,
    );
    const page = await fetch(`${url}governments`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("County");
    await new Promise((r) => setImmediate(r));
    expect(lines.at(-1)).toMatch(
      /^the next night runs at 2026-11-06 01:00 America\/New_York \(in 18h 00m; every day at 01:00 America\/New_York\); Ctrl-C stops$/,
    );
    stop.abort();
    await running;
  }, 120_000);

  it("P13: a night that was interrupted (a stop, a crash, a reboot) is resumed at once, then the schedule goes on; one whose time is over is not", async () => {
    const HOUR = 3_600_000;
    // 03:00 in New York on Nov 5; the night of Nov 5 began at 01:00 with a 6 h deadline.
    const now = Date.UTC(2026, 10, 5, 8, 0, 0);
    for (const [night, startedAt, resumed] of [
      ["2026-11-05", now - 2 * HOUR, true],
      // Begun 30 h ago: its time is over (the next night has started), so it is not resumed;
      // tonight's, which this store owes (no night of Nov 5, one run before), starts now, late
      // (P13: none skipped), and its `nor night` closes Nov 4's as incomplete.
      ["2026-11-04", now - 30 * HOUR, false],
    ] as const) {
      const dir = mkdtempSync(join(tmpdir(), "nor-start-resume-"));
      dirs.push(dir);
      const catalog = join(dir, "catalog.yaml");
      writeFileSync(
        catalog,
        `governments:
  - { id: village-of-start, name: Village of Start, kind: village, county: Franklin }
sources:
  - { id: start-agendas, government: village-of-start, records: agendas, url: "http://127.0.0.1:9/agendas.rss" }
`,
      );
      const data = join(dir, "data");
      const store = await openStore({ kind: "sqlite", dir: data });
      try {
        await store.db
          .insertInto("nights")
          .values({
            night,
            started_at: new Date(startedAt).toISOString(),
            deadline_at: new Date(startedAt + 6 * HOUR).toISOString(),
            finished_at: null,
            runs: 1,
          })
          .execute();
      } finally {
        await store.close();
      }
      const lines: string[] = [];
      const stop = new AbortController();
      let nights = 0;
      let scheduled: () => void = () => {};
      const next = new Promise<void>((r) => (scheduled = r));
      const running = runStart(
        { catalog: [catalog], data, host: "127.0.0.1", port: "0", at: "01:00", zone: NY },
        {
          clock: new ManualClock(now),
          say: (l) => {
            lines.push(l);
            if (l.startsWith("the next night runs at")) scheduled();
          },
          signal: stop.signal,
          runNight: async () => {
            nights++;
            return 0;
          },
        },
      );
      await next;
      stop.abort();
      await running;
      const resumedLine = `night 2026-11-05 is not finished (interrupted, or run by another command now); it resumes now and may run until 2026-11-05 07:00 ${NY} (its deadline or the next night's start)`;
      if (resumed) {
        expect(nights).toBe(1);
        // Lines 0-2: the catalog, where the directory is, the console (off: no password).
        expect(lines.slice(3, 6)).toEqual([
          resumedLine,
          "the night is done; `nor status` and the directory show what it found",
          expect.stringMatching(/^the next night runs at 2026-11-06 01:00 America\/New_York/),
        ]);
      } else {
        expect(nights).toBe(1);
        expect(lines.some((l) => l.includes("interrupted"))).toBe(false);
        expect(lines.slice(3, 6)).toEqual([
          `the night due at 2026-11-05 01:00 ${NY} starts now, late (\`nor start\` began at 2026-11-05 03:00 ${NY}, after its time, and this store has no night of 2026-11-05)`,
          "the night is done; `nor status` and the directory show what it found",
          expect.stringMatching(/^the next night runs at 2026-11-06 01:00 America\/New_York/),
        ]);
      }
    }
  }, 120_000);

  it("--origin: feeds link to the public origin; with an operator password the console is on; a bad --origin is refused before anything is written", async () => {
    const dir = mkdtempSync(join(tmpdir(), "nor-start-origin-"));
    dirs.push(dir);
    const catalog = join(dir, "catalog.yaml");
    writeFileSync(
      catalog,
      `governments:
  - { id: village-of-start, name: Village of Start, kind: village, county: Franklin }
sources:
  - { id: start-agendas, government: village-of-start, records: agendas, url: "http://127.0.0.1:9/agendas.rss" }
`,
    );
    const data = join(dir, "data");
    const base = { catalog: [catalog], data, host: "127.0.0.1", port: "0", at: "01:00", zone: NY };
    await expect(
      runStart(
        { ...base, origin: "ftp://nor.example.org" },
        { clock: new ManualClock(), say: () => {}, signal: new AbortController().signal },
      ),
    ).rejects.toThrow(/--origin must be an http\(s\) origin/);
    // A name for the site-owner page only beside the operator's own contact, never the built-in.
    await expect(
      runStart(
        { ...base, operatorName: "Pat Doe" },
        { clock: new ManualClock(), say: () => {}, signal: new AbortController().signal },
      ),
    ).rejects.toThrow(/--operator-name needs a User-Agent with your own contact/);
    const store = await openStore({ kind: "sqlite", dir: data });
    try {
      expect(await store.db.selectFrom("governments").select("id").execute()).toEqual([]);
      // A password set, so the console is on (at the console fixtures' lower scrypt cost: no
      // sign-in here; the full-cost hash is console-cli.test.ts's).
      await storePasswordHash(store.db, hashOf("start origin test password"), 0);
    } finally {
      await store.close();
    }
    const lines: string[] = [];
    const stop = new AbortController();
    let listening: (url: string) => void = () => {};
    const served = new Promise<string>((r) => (listening = r));
    const running = runStart(
      {
        ...base,
        origin: "https://nor.example.org",
        clientAddressHeader: "X-Real-IP",
        userAgent: "public-records-check/0.1 (+mailto:desk@start.example.org)",
        operatorName: "Pat Doe",
      },
      {
        clock: new ManualClock(Date.UTC(2026, 10, 5, 12)),
        say: (l) => lines.push(l),
        signal: stop.signal,
        onListening: listening,
      },
    );
    try {
      const url = await served;
      expect(lines[2]).toBe(`the operator console is at ${url}console`);
      const atom = await (await fetch(`${url}new.atom`)).text();
      expect(atom).toContain('href="https://nor.example.org/new.atom"');
      const signIn = await fetch(`${url}console`, { redirect: "manual" });
      expect(signIn.status).toBe(303);
      expect(signIn.headers.get("location")).toBe("/console/sign-in");
      // P1, P2: the site-owner page names the operator and the contact the checker sends.
      const owners = await (await fetch(`${url}site-owners`)).text();
      expect(owners).toContain(
        'Pat Doe runs it: <a href="mailto:desk@start.example.org">desk@start.example.org</a>.',
      );
      expect(owners).not.toContain("newonrecord.com");
    } finally {
      stop.abort();
      await running;
    }
  }, 120_000);

  it("a port in use is refused before anything is made (no data directory, no store)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "nor-start-busy-"));
    dirs.push(dir);
    const busy = createServer();
    await new Promise<void>((r) => busy.listen(0, "127.0.0.1", () => r()));
    try {
      const port = String((busy.address() as AddressInfo).port);
      const data = join(dir, "data");
      // A catalog of one source: the bundled one (the test above) read first would only cost
      // this test its parse (about half a second of CPU), the refusal the same.
      const catalog = join(dir, "catalog.yaml");
      writeFileSync(
        catalog,
        `governments:
  - { id: village-of-start, name: Village of Start, kind: village, county: Franklin }
sources:
  - { id: start-agendas, government: village-of-start, records: agendas, url: "http://127.0.0.1:9/agendas.rss" }
`,
      );
      await expect(
        runStart(
          { catalog: [catalog], data, host: "127.0.0.1", port, at: "01:00", zone: NY },
          { clock: new ManualClock(), say: () => {}, signal: new AbortController().signal },
        ),
      ).rejects.toThrow(/cannot serve on 127\.0\.0\.1:\d+: the port is in use/);
      // Nothing made: the port is held before the data directory and its store are made.
      expect(existsSync(data)).toBe(false);
    } finally {
      await new Promise<void>((r) => busy.close(() => r()));
    }
  });
});

describe("a night whose process a signal ended (P13)", () => {
  const at = parseDailyAt("01:00", NY);
  /** Runs scheduleNights over these exits, the clock moved on whenever it sleeps, until it
   * says when the next night runs; the lines it said, and how many nights it started. */
  async function schedule(
    exits: Parameters<typeof scheduleNights>[0] extends infer O
      ? O extends { runNight: (s: AbortSignal) => Promise<infer E> }
        ? E[]
        : never
      : never,
    open: string | undefined | (() => Promise<string | undefined>),
  ) {
    const clock = new ManualClock(Date.UTC(2026, 10, 5, 6, 30));
    const lines: string[] = [];
    const stop = new AbortController();
    let runs = 0;
    const done = scheduleNights({
      clock,
      at,
      say: (l) => {
        lines.push(l);
        if (l.startsWith("the next night runs at")) stop.abort();
      },
      signal: stop.signal,
      runNight: async () => exits[runs++] ?? 0,
      stillOpen: typeof open === "function" ? open : async () => open,
      resume: { night: "2026-11-05", until: Date.UTC(2026, 10, 5, 12) },
    });
    for (let i = 0; i < 50 && !stop.signal.aborted; i++) {
      await new Promise((r) => setTimeout(r, 0));
      if (clock.pending > 0 && !stop.signal.aborted) await clock.advance(10_000);
    }
    await done;
    return { lines, runs };
  }

  it("P13: killed (SIGKILL, out of memory), it is started again while the night is open, a few times at most", async () => {
    const { lines, runs } = await schedule(
      [{ code: null, signal: "SIGKILL" }, { code: null, signal: "SIGKILL" }, 0],
      "2026-11-05",
    );
    expect(runs).toBe(3);
    expect(lines).toContain(
      "the night's process was ended by SIGKILL; night 2026-11-05 resumes in 10s (restart 1 of 3)",
    );
    expect(lines).toContain("the night is done; `nor status` and the directory show what it found");
    const always = await schedule(Array(10).fill({ code: null, signal: "SIGKILL" }), "2026-11-05");
    expect(always.runs).toBe(4);
    expect(always.lines).toContain(
      "the night's process was ended by SIGKILL (after 3 restarts); the directory stays up",
    );
  });

  it("P13: killed once the night is closed (its deadline passed), or stopped with an exit code, it is not started again", async () => {
    const closed = await schedule([{ code: null, signal: "SIGKILL" }], undefined);
    expect(closed.runs).toBe(1);
    expect(closed.lines).toContain(
      "the night's process was ended by SIGKILL; the directory stays up",
    );
    // Stopped by a person (nor night ends itself by the SIGTERM it was sent): stays stopped.
    const stopped = await schedule([{ code: null, signal: "SIGTERM" }], "2026-11-05");
    expect(stopped.runs).toBe(1);
    expect(stopped.lines).toContain(
      "the night's process was ended by SIGTERM; the directory stays up",
    );
    // Its time ended during the pause: the next night is not begun in its place.
    let asked = 0;
    const closing = await schedule([{ code: null, signal: "SIGKILL" }], async () =>
      asked++ === 0 ? "2026-11-05" : undefined,
    );
    expect(closing.runs).toBe(1);
    expect(closing.lines).toContain("night 2026-11-05 closed meanwhile; it is not started again");
    // Whether it is open cannot be read (the store restarting): said, and the directory stays.
    const unreadable = await schedule([{ code: null, signal: "SIGKILL" }], async () => {
      throw new Error("connection refused");
    });
    expect(unreadable.runs).toBe(1);
    expect(unreadable.lines).toContain(
      "whether the night is still open could not be read (connection refused); it is not started again",
    );
    const failed = await schedule([1], "2026-11-05");
    expect(failed.runs).toBe(1);
    expect(failed.lines).toContain(
      "the night stopped with exit code 1 (see its lines above); the directory stays up",
    );
  });
});
