import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { RUNNERS_DIR } from "../../src/night/night-runners.js";
import { addDays, nightOf } from "../../src/policy/night-date.js";
import { settleUnfinishedNights } from "../../src/store/admin.js";
import { openStore } from "../../src/store/db.js";
import { newHolderId } from "../../src/store/holder.js";
import { nor, runMain } from "./cli-capture.js";

/**
 * Ordinary mistakes must never leave a trap: a bad option is refused before anything is
 * written, an interrupted night does not come back days later, a mistyped --data or
 * NOR_DATABASE_URL is an error, a partial catalog does not retire the rest, and every
 * command answers with the same exit codes (0 done, 1 failure, 2 usage or configuration).
 */
const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "nor-traps-"));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const GOVS = `governments:
  - { id: village-of-test, name: Village of Test, kind: village, county: Franklin }
`;
/** A source on a loopback address: without --allow-private-addresses no request is sent. */
const source = (id: string) =>
  `  - { id: ${id}, government: village-of-test, records: agendas, access: feed, url: "http://127.0.0.1:9/${id}.rss" }\n`;

function catalogFile(dir: string, name: string, ids: string[], withGovs = true): string {
  const f = join(dir, name);
  const list = ids.length ? `\n${ids.map(source).join("")}` : " []\n";
  writeFileSync(f, `${withGovs ? GOVS : ""}sources:${list}`);
  return f;
}

describe("nor night refuses bad options before writing anything", () => {
  it.each([
    [["--night", "2026-02-30"], /--night: "2026-02-30" is not a calendar date/],
    [["--night", "2026-13-01"], /--night: "2026-13-01" is not a calendar date/],
    [["--deadline", "30h"], /--deadline: "30h" is longer than a night/],
    [["--deadline", "soon"], /--deadline: "soon" is not a duration/],
    // Its examples are deadlines it takes (at least 1m): never 30s, which it refuses.
    [["--deadline", "6 h"], /--deadline: "6 h" is not a duration \(e\.g\. 6h, 90m, 1h30m\)/],
    // A duration, but of no time: said so, not "not a duration".
    [
      ["--deadline", "0s"],
      /^nor: --deadline: "0s" is no time at all: a deadline must be more than 0 /m,
    ],
    [
      ["--deadline", "0h0m"],
      /--deadline: "0h0m" is no time at all: a deadline must be more than 0/,
    ],
    [["--deadline", "0.1ms"], /--deadline: "0.1ms" is no time at all/],
    // tester-b 3: a deadline too short to ask anything would write off the whole day's night.
    [
      ["--deadline", "1ms"],
      /--deadline: "1ms" is shorter than the 1m floor a night's deadline must reach/,
    ],
    [["--deadline", "59s"], /--deadline: "59s" is shorter than the 1m floor/],
    [["--concurrency", "0"], /--concurrency: "0" is not a whole number/],
  ])("P13: %j exits 2 and creates no data directory", async (args, message) => {
    const d = tmp();
    const cat = catalogFile(d, "c.yaml", ["a"]);
    const data = join(d, "data");
    const r = await nor("night", "--catalog", cat, "--data", data, ...args);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(existsSync(data)).toBe(false);
  });

  it("P13 (tester-b 3): nor start refuses a deadline under the floor before writing anything", async () => {
    const d = tmp();
    const cat = catalogFile(d, "c.yaml", ["a"]);
    const data = join(d, "data");
    const r = await nor("start", "--catalog", cat, "--data", data, "--deadline", "1ms");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--deadline: "1ms" is shorter than the 1m floor/);
    expect(existsSync(data)).toBe(false);
  });
});

describe("an unfinished night", () => {
  const HOUR = 3_600_000;

  async function storeWithNights(
    dir: string,
    rows: { night: string; startedAt: number; deadlineAt: number; finishedAt?: number }[],
  ): Promise<void> {
    const store = await openStore({ kind: "sqlite", dir });
    try {
      for (const r of rows) {
        await store.db
          .insertInto("nights")
          .values({
            night: r.night,
            started_at: new Date(r.startedAt).toISOString(),
            deadline_at: new Date(r.deadlineAt).toISOString(),
            finished_at: r.finishedAt === undefined ? null : new Date(r.finishedAt).toISOString(),
            runs: 1,
          })
          .execute();
      }
    } finally {
      await store.close();
    }
  }

  it("P13: is resumed only until its deadline, 24 h after it began or the next night's start, then closed incomplete", async () => {
    // Midnight in New York, Dec 2: the night of Dec 2 starts at 01:00.
    const now = Date.UTC(2026, 11, 2, 5, 0, 0);
    const dir = tmp();
    await storeWithNights(dir, [
      // Killed two days ago with a long deadline: over, because the next night has begun.
      { night: "2026-11-30", startedAt: now - 50 * HOUR, deadlineAt: now + HOUR },
      // Killed an hour ago, deadline still ahead: resumable.
      { night: "2026-12-01", startedAt: now - 2 * HOUR, deadlineAt: now + 4 * HOUR },
    ]);
    const store = await openStore({ kind: "sqlite", dir }, { create: false });
    try {
      const settled = await settleUnfinishedNights(store.db, now);
      expect(settled.resumable?.night).toBe("2026-12-01");
      expect(settled.closed.map((c) => [c.night, c.finishedAt])).toEqual([
        ["2026-11-30", new Date(now - 26 * HOUR).toISOString()],
      ]);
      // A night asked for by a past date, begun an hour ago: over from its start, and closed
      // at it, never before it began.
      await store.db
        .insertInto("nights")
        .values({
          night: "2026-11-20",
          started_at: new Date(now - HOUR).toISOString(),
          deadline_at: new Date(now + 5 * HOUR).toISOString(),
          finished_at: null,
          runs: 1,
        })
        .execute();
      const past = await settleUnfinishedNights(store.db, now);
      expect(past.closed.map((c) => [c.night, c.finishedAt])).toEqual([
        ["2026-11-20", new Date(now - HOUR).toISOString()],
      ]);
      // Its deadline is 04:00: closed then, not at 01:00 New York (a schedule may begin the
      // next night at any hour; docs/operations.md: resumed until its own deadline).
      const later = await settleUnfinishedNights(store.db, now + 4 * HOUR);
      expect(later.resumable).toBeUndefined();
      expect(later.closed.map((c) => [c.night, c.finishedAt])).toEqual([
        ["2026-12-01", new Date(now + 4 * HOUR).toISOString()],
      ]);
    } finally {
      await store.close();
    }
  });

  it("P11, P16: while tonight's night is under way, another night asked for by date is refused (exit 1) and nothing of it starts; the same night, or none named, joins it", async () => {
    const d = tmp();
    const data = join(d, "data");
    mkdirSync(data);
    const now = Date.now();
    const tonight = nightOf(now);
    // An earlier night this store ran (a night never run here, older than tonight's, is
    // refused before anything else: test/cli/night-dates.test.ts).
    const other = addDays(tonight, -30);
    const DAY = 24 * HOUR;
    await storeWithNights(data, [
      {
        night: other,
        startedAt: now - 30 * DAY,
        deadlineAt: now - 30 * DAY + 6 * HOUR,
        finishedAt: now - 30 * DAY + 2 * HOUR,
      },
      { night: tonight, startedAt: now - HOUR, deadlineAt: now + 4 * HOUR },
    ]);
    const cat = catalogFile(d, "c.yaml", []);
    const r = await nor("night", "--catalog", cat, "--data", data, "--night", other);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `night ${tonight} is under way on this store \\(its time runs to [^)]+ New York\\); not starting night ${other} beside it`,
      ),
    );
    const nights = async () => {
      const store = await openStore({ kind: "sqlite", dir: data }, { create: false });
      try {
        return (await store.db.selectFrom("nights").select("night").execute()).map((n) => n.night);
      } finally {
        await store.close();
      }
    };
    expect((await nights()).sort()).toEqual([other, tonight]);
    // Named or not, tonight's own night joins the one under way.
    for (const args of [["--night", tonight], []]) {
      const joined = await nor("night", "--catalog", cat, "--data", data, ...args);
      expect(joined.code, joined.stderr).toBe(0);
    }
    expect((await nights()).sort()).toEqual([other, tonight]);
  });

  it("P11, P13, P16: a live process running another night on the data directory (a past date: never under way by the calendar) keeps any other night from starting beside it; the same night joins it, without closing it first; a dead one's mark is cleared", async () => {
    const d = tmp();
    const data = join(d, "data");
    mkdirSync(data);
    const cat = catalogFile(d, "c.yaml", []);
    const runners = join(data, RUNNERS_DIR);
    mkdirSync(runners);
    const mark = (holder: string) =>
      writeFileSync(
        join(runners, "other.json"),
        JSON.stringify({ night: "2026-11-20", holder, until: Date.now() + HOUR }),
      );
    // A live process of this host (this one, under another holder) runs the night of Nov 20,
    // begun five minutes ago (by the calendar already over: a past date).
    await storeWithNights(data, [
      { night: "2026-11-20", startedAt: Date.now() - 5 * 60_000, deadlineAt: Date.now() + HOUR },
    ]);
    mark(newHolderId(() => "other"));
    // (A past night, or tonight's after one, five minutes after the last began is let start only
    // as loopback tests run nights: --allow-private-addresses; an operator's waits 20 hours.)
    for (const args of [
      ["--night", "2026-11-21", "--allow-private-addresses"],
      ["--allow-private-addresses"],
    ]) {
      const r = await nor("night", "--catalog", cat, "--data", data, ...args);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(`night 2026-11-20 is being run on ${data} by another process`);
    }
    // Refused before anything was written: the running night is not closed under its process.
    const store = await openStore({ kind: "sqlite", dir: data }, { create: false });
    try {
      const rows = await store.db.selectFrom("nights").select(["night", "finished_at"]).execute();
      expect(rows).toEqual([{ night: "2026-11-20", finished_at: null }]);
    } finally {
      await store.close();
    }
    const same = await nor("night", "--catalog", cat, "--data", data, "--night", "2026-11-20");
    expect(same.code, same.stderr).toBe(0);
    // It joined the night under way, never closing it under the other process first (nor
    // saying it was interrupted), though by the calendar a past date is over from its start.
    expect(same.stderr).not.toContain("closed as incomplete");
    const joined = await openStore({ kind: "sqlite", dir: data }, { create: false });
    try {
      const rows = await joined.db.selectFrom("nights").select(["night", "runs"]).execute();
      expect(rows).toEqual([{ night: "2026-11-20", runs: 2 }]);
    } finally {
      await joined.close();
    }
    // Its process gone (kill -9): the mark is stale, cleared, and the night starts.
    mark(`${hostname()}:2147483646:gone`);
    // A past night five minutes after the last one began: as loopback tests run nights (an
    // operator's would wait its 20 hours: night-dates.test.ts).
    const r = await nor(
      "night",
      ...["--catalog", cat, "--data", data, "--night", "2026-11-21"],
      "--allow-private-addresses",
    );
    expect(r.code, r.stderr).toBe(0);
    // Each night took its mark away as it ended; the stale one is gone too.
    expect(readdirSync(runners)).toEqual([]);
  });

  it("P13: an interrupted past night asked for again by name is said as what it does: nothing more asked, its sources left recorded unreached", async () => {
    const d = tmp();
    const data = join(d, "data");
    mkdirSync(data);
    const started = Date.parse("2026-11-05T10:00:00Z");
    await storeWithNights(data, [
      { night: "2026-11-05", startedAt: started, deadlineAt: started + 6 * HOUR },
    ]);
    const cat = catalogFile(d, "c.yaml", []);
    const r = await nor("night", "--catalog", cat, "--data", data, "--night", "2026-11-05");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      "night 2026-11-05 was interrupted and its time has passed: nothing more is asked in it",
    );
    expect(r.stderr).not.toContain("not resumed in time");
  });

  it("P13: a plain `nor night` days later starts tonight's night, and `nor status` says the old one was closed incomplete", async () => {
    const d = tmp();
    const data = join(d, "data");
    mkdirSync(data);
    const now = Date.now();
    await storeWithNights(data, [
      { night: "2026-01-10", startedAt: now - 72 * HOUR, deadlineAt: now + HOUR },
      // Written by a version that accepted impossible dates: closed instead of failing forever.
      { night: "2026-02-30", startedAt: now - 30 * HOUR, deadlineAt: now + HOUR },
    ]);
    const cat = catalogFile(d, "c.yaml", []);
    const r = await nor("night", "--catalog", cat, "--data", data, "--deadline", "1m");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain("night 2026-01-10 was interrupted and not resumed in time");
    const store = await openStore({ kind: "sqlite", dir: data }, { create: false });
    try {
      const nights = await store.db
        .selectFrom("nights")
        .select(["night", "finished_at"])
        .orderBy("night")
        .execute();
      expect(nights.map((n) => n.night)).toEqual(["2026-01-10", "2026-02-30", nightOf(now)].sort());
      for (const n of nights) expect(n.finished_at).not.toBeNull();
    } finally {
      await store.close();
    }
    const status = await nor("status", "--data", data);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/^night 2026-01-10: closed incomplete at /m);
    expect(status.stdout).toMatch(new RegExp(`^night ${nightOf(now)}: finished `, "m"));
  });
});

describe("a night's deadline", () => {
  it("P13: the deadline the start line announces is the one the night keeps (counted from the command's start, before its catalog import)", async () => {
    const d = tmp();
    const data = join(d, "data");
    // Enough sources that importing them takes a while: the two used to differ by that time.
    // Each on a site of its own (refused at once, no private addresses allowed), so that the
    // night ends long before its deadline of 1m, the floor (tester-b 3: a shorter one is refused).
    const cat = join(d, "c.yaml");
    const each = Array.from(
      { length: 300 },
      (_v, i) =>
        `  - { id: s-${i}, government: village-of-test, records: agendas, access: feed, url: "http://127.0.${Math.floor(i / 250)}.${(i % 250) + 1}:9/a.rss" }\n`,
    );
    writeFileSync(cat, `${GOVS}sources:\n${each.join("")}`);
    const r = await nor("night", "--catalog", cat, "--data", data, "--deadline", "1m");
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as { msg?: string; deadlineAt?: string; night?: string });
    const start = lines.find((l) => l.msg === "night start");
    expect(start?.deadlineAt).toBeDefined();
    const store = await openStore({ kind: "sqlite", dir: data }, { create: false });
    try {
      const row = await store.db
        .selectFrom("nights")
        .select(["deadline_at"])
        .where("night", "=", start?.night ?? "")
        .executeTakeFirst();
      expect(row?.deadline_at).toBe(start?.deadlineAt);
    } finally {
      await store.close();
    }
  });
});

describe("a night that is over", () => {
  it("P13: a plain `nor night` after tonight's night finished and its deadline passed asks nothing and rewrites nothing", async () => {
    const d = tmp();
    const data = join(d, "data");
    const cat = catalogFile(d, "c.yaml", ["a"]);
    expect((await nor("night", "--catalog", cat, "--data", data, "--deadline", "1m")).code).toBe(0);
    // As after a night the checker spent offline, whose deadline has since passed.
    const now = Date.now();
    const night = nightOf(now);
    const finishedAt = new Date(now - 2_000).toISOString();
    const store = await openStore({ kind: "sqlite", dir: data }, { create: false });
    try {
      await store.db
        .updateTable("nights")
        .set({ deadline_at: new Date(now - 1_000).toISOString(), finished_at: finishedAt })
        .where("night", "=", night)
        .execute();
      await store.db
        .updateTable("night_sources")
        .set({ outcome: "checker-offline", reason: "the checker could not reach the internet" })
        .where("night", "=", night)
        .execute();
    } finally {
      await store.close();
    }
    const again = await nor("night", "--catalog", cat, "--data", data, "--deadline", "1m");
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(`night ${night} is over: it finished at `);
    expect(again.stderr).not.toContain("night done");
    // Nor is its catalog imported: one that drops the source retires nothing (an outside
    // tester saw an over night's command retire sources with --allow-retire).
    const other = catalogFile(d, "other.yaml", ["b"]);
    const dropped = await nor(
      ...["night", "--catalog", other, "--data", data, "--deadline", "1m", "--allow-retire"],
    );
    expect(dropped.code, dropped.stderr).toBe(0);
    expect(dropped.stderr).toContain(`night ${night} is over: it finished at `);
    expect(dropped.stderr).not.toContain("catalog imported");
    const after = await openStore({ kind: "sqlite", dir: data }, { create: false });
    try {
      const n = await after.db
        .selectFrom("nights")
        .selectAll()
        .where("night", "=", night)
        .executeTakeFirstOrThrow();
      expect(n.finished_at).toBe(finishedAt);
      const o = await after.db
        .selectFrom("night_sources")
        .select(["source_id", "outcome"])
        .execute();
      expect(o).toEqual([{ source_id: "a", outcome: "checker-offline" }]);
      const sources = await after.db.selectFrom("sources").select(["id", "retired_at"]).execute();
      expect(sources).toEqual([{ id: "a", retired_at: null }]);
    } finally {
      await after.close();
    }
  });
});

describe("commands on a store and a missing store", () => {
  it.each([
    [["status"]],
    [["flags"]],
    [["archive", "verify"]],
    [["archive", "cdx"]],
    [["site", "example.gov", "--gap", "5s", "--reason", "r"]],
    [["site", "example.gov", "--not-read", "--reason", "r"]],
    [["site", "example.gov"]],
    [["reparse", "--catalog", "CATALOG"]],
    [["mark", "a", "--read"]],
    [["log"]],
  ])("%j refuses a missing store (exit 2) and creates nothing", async (args) => {
    const d = tmp();
    const cat = catalogFile(d, "c.yaml", ["a"]);
    const missing = join(d, "typo");
    const r = await nor(...args.map((a) => (a === "CATALOG" ? cat : a)), "--data", missing);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`no store at ${join(missing, "nor.db")}`);
    expect(existsSync(missing)).toBe(false);
  });
});

describe("before the first night (what `nor start` leaves until 01:00)", () => {
  it("P24: nor status lists the imported sources and nor mark marks one; a retired one is neither", async () => {
    const d = tmp();
    const data = join(d, "data");
    const all = catalogFile(d, "all.yaml", ["s1", "s2", "s3", "s4"]);
    const three = catalogFile(d, "three.yaml", ["s1", "s2", "s3"]);
    expect((await nor("catalog", "import", all, "--data", data)).code).toBe(0);
    expect((await nor("catalog", "import", three, "--data", data, "--allow-retire")).code).toBe(0);

    const mark = await nor(
      "mark",
      "s2",
      "--not-read",
      "--reason",
      "owner asked by e-mail",
      "--data",
      data,
    );
    expect(mark.code, mark.stderr).toBe(0);
    const retired = await nor("mark", "s4", "--not-read", "--reason", "r", "--data", data);
    expect(retired.code).toBe(2);
    // Said as what it is (retired by the import), as `nor backfill restart` says it.
    expect(retired.stderr).toContain("s4: retired ");
    expect(retired.stderr).toContain("so no night reads it; nothing changed");

    const status = await nor("status", "--data", data, "--json");
    expect(status.code, status.stderr).toBe(0);
    const rows = JSON.parse(status.stdout) as {
      id: string;
      government: string;
      reading: boolean;
      notReadReason?: string;
      lastNight?: string;
    }[];
    expect(rows.map((r) => [r.id, r.government, r.reading, r.notReadReason, r.lastNight])).toEqual([
      ["s1", "village-of-test", true, undefined, undefined],
      ["s2", "village-of-test", false, "owner asked by e-mail", undefined],
      ["s3", "village-of-test", true, undefined, undefined],
    ]);

    // The first night leaves the source marked before it alone.
    const night = await nor("night", "--catalog", three, "--data", data, "--deadline", "1m");
    expect(night.code, night.stderr).toBe(0);
    expect(night.stderr).toContain('"skippedNotRead":1');
  });
});

describe("nor operator set-password and a missing store", () => {
  it("refuses a mistyped --data (exit 2) and creates nothing; sets it in a store that is there", async () => {
    const d = tmp();
    const missing = join(d, "typo");
    const pw = { stdin: "a long pass phrase\n" };
    const r = await runMain(["operator", "set-password", "--data", missing], pw);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`no store at ${join(missing, "nor.db")}`);
    expect(existsSync(missing)).toBe(false);
    const data = join(d, "data");
    expect(
      (await nor("catalog", "import", catalogFile(d, "c.yaml", ["a"]), "--data", data)).code,
    ).toBe(0);
    const set = await runMain(["operator", "set-password", "--data", data], pw);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain("operator password set");
  });
});

describe("NOR_DATABASE_URL", () => {
  it.each(["mysql://nor:secret@db.example/nor", "sqlite:data/nor.db", "data/nor.db"])(
    "%s is refused with a clear error (exit 2), its password never echoed",
    async (url) => {
      const d = tmp();
      const r = await runMain(["status", "--data", d], { env: { NOR_DATABASE_URL: url } });
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/NOR_DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL/);
      expect(r.stderr).not.toContain("secret");
      expect(existsSync(join(d, "nor.db"))).toBe(false);
    },
  );
});

describe("NOR_DATABASE_URL that is postgres:// but wrong", () => {
  it.each(["postgres://[bad", "postgres://u:secret@127.0.0.1:notaport/x"])(
    "%s does not parse: refused as configuration (exit 2), its password never echoed",
    async (url) => {
      const r = await runMain(["status"], { env: { NOR_DATABASE_URL: url } });
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain("NOR_DATABASE_URL does not parse as a URL");
      expect(r.stderr).not.toContain("secret");
    },
  );

  it("the driver's Unix-socket form (no host before the path) is the driver's to read, not refused as unparsable", async () => {
    const r = await runMain(["status"], {
      env: { NOR_DATABASE_URL: "postgres://postgres@/nor_no_such_db?host=/nonexistent-socket-dir" },
    });
    expect(r.stderr).not.toContain("does not parse");
    expect(r.stderr).toContain("cannot reach the store");
  });

  it("a password given in the query string is not echoed when the store cannot be reached", async () => {
    // Port 9 (discard) on loopback: nothing listens, the connection is refused at once.
    const r = await runMain(["status"], {
      env: {
        NOR_DATABASE_URL: "postgres://postgres@127.0.0.1:9/x?password=secret&application_name=a",
      },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      "cannot reach the store at postgres://postgres@127.0.0.1:9/x?password=***",
    );
    expect(r.stderr).not.toContain("secret");
  });
});

describe("--catalog takes several files", () => {
  it.each([
    ["listed", (a: string, b: string) => ["--catalog", a, b]],
    ["repeated", (a: string, b: string) => ["--catalog", a, "--catalog", b]],
  ])("nor night reads every file (%s), references spanning them", async (_how, args) => {
    const d = tmp();
    const a = catalogFile(d, "a.yaml", ["one"]);
    // b.yaml names the government defined in a.yaml.
    const b = catalogFile(d, "b.yaml", ["two"], false);
    const data = join(d, "data");
    const r = await nor("night", ...args(a, b), "--data", data, "--deadline", "1m");
    expect(r.code, r.stderr).toBe(0);
    const store = await openStore({ kind: "sqlite", dir: data }, { create: false });
    try {
      const ids = await store.db.selectFrom("sources").select("id").orderBy("id").execute();
      expect(ids.map((i) => i.id)).toEqual(["one", "two"]);
    } finally {
      await store.close();
    }
  });
});

describe("an import that would retire more than a tenth of the sources", () => {
  async function active(data: string): Promise<string[]> {
    const store = await openStore({ kind: "sqlite", dir: data }, { create: false });
    try {
      const rows = await store.db
        .selectFrom("sources")
        .select("id")
        .where("retired_at", "is", null)
        .orderBy("id")
        .execute();
      return rows.map((r) => r.id);
    } finally {
      await store.close();
    }
  }

  it("stops, names them and changes nothing, unless --allow-retire (catalog import and night)", async () => {
    const d = tmp();
    const data = join(d, "data");
    const all = catalogFile(d, "all.yaml", ["s1", "s2", "s3"]);
    const one = catalogFile(d, "one.yaml", ["s1"]);
    expect((await nor("catalog", "import", all, "--data", data)).code).toBe(0);

    const refused = await nor("catalog", "import", one, "--data", data);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("would retire 2 of the 3 sources in use");
    expect(refused.stderr).toContain("s2, s3");
    expect(refused.stderr).toContain("--allow-retire");
    expect(await active(data)).toEqual(["s1", "s2", "s3"]);

    const night = await nor("night", "--catalog", one, "--data", data, "--deadline", "1m");
    expect(night.code).toBe(2);
    expect(night.stderr).toContain("s2, s3");
    expect(await active(data)).toEqual(["s1", "s2", "s3"]);

    const allowed = await nor("catalog", "import", one, "--data", data, "--allow-retire");
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toContain("2 retired");
    expect(await active(data)).toEqual(["s1"]);
  });
});

describe("what a night's catalog import changed", () => {
  it("is said by kind, with the retired sources named, on a terminal and as a structured line", async () => {
    for (const tty of [true, false]) {
      const d = tmp();
      const data = join(d, "data");
      const all = catalogFile(d, "all.yaml", ["s1", "s2", "s3"]);
      const one = catalogFile(d, "one.yaml", ["s1"]);
      expect((await nor("catalog", "import", all, "--data", data)).code).toBe(0);
      const args = [
        "night",
        "--catalog",
        one,
        "--data",
        data,
        "--deadline",
        "1m",
        "--allow-retire",
      ];
      const r = await runMain(args, { tty });
      expect(r.code, r.stderr).toBe(0);
      if (tty) {
        expect(r.stderr).toContain(
          "nor night: catalog imported: sources 2 retired (sources retired: s2, s3)\n",
        );
      } else {
        const line = r.stderr
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .find((l) => l["msg"] === "catalog imported");
        expect(line).toMatchObject({
          catalogChanges: 2,
          sources: { added: 0, changed: 0, retired: 2, unretired: 0 },
          governments: { added: 0, changed: 0, retired: 0, unretired: 0 },
          retired: ["s2", "s3"],
        });
      }
    }
  });
});

describe("exit codes are the same everywhere", () => {
  it("0 done, 1 a failure while working, 2 usage or configuration", async () => {
    const d = tmp();
    const bad = join(d, "bad.yaml");
    writeFileSync(bad, `${GOVS}sources:\n  - { id: x, government: nowhere, url: "ftp://x/" }\n`);
    const good = catalogFile(d, "good.yaml", ["a"]);
    const data = join(d, "data");
    expect((await nor("catalog", "check", good)).code).toBe(0);
    expect((await nor("catalog", "check", bad)).code).toBe(2);
    expect((await nor("catalog", "import", bad, "--data", data)).code).toBe(2);
    expect((await nor("night", "--catalog", bad, "--data", data)).code).toBe(2);
    expect((await nor("night", "--data", data)).code).toBe(2); // --catalog missing
    expect((await nor("status", "--frobnicate")).code).toBe(2);
    expect((await nor("frobnicate")).code).toBe(2);
    expect((await nor("catalog", "import", good, "--data", data)).code).toBe(0);
    // A failure while working: the store is there, the capture asked for is not.
    const none = await nor("archive", "show", "http://127.0.0.1/none", "--data", data);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain("no capture of http://127.0.0.1/none");
  });
});

describe("a night run again after an import retired its sources (tester-b 2c)", () => {
  it("P13: its start line's sources and its summary agree: what this run did is planned less already done", async () => {
    const d = tmp();
    const data = join(d, "data");
    const cat = catalogFile(d, "c.yaml", ["a", "b"]);
    const none = catalogFile(d, "none.yaml", []);
    expect((await nor("night", "--catalog", cat, "--data", data, "--deadline", "1m")).code).toBe(0);
    const imp = await nor("catalog", "import", none, "--data", data, "--allow-retire");
    expect(imp.code, imp.stderr).toBe(0);
    const again = await nor("night", "--catalog", none, "--data", data, "--deadline", "1m");
    expect(again.code, again.stderr).toBe(0);
    const lines = again.stderr
      .split("\n")
      .filter((l) => l.startsWith("{"))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const start = lines.find((l) => l["msg"] === "night start");
    const done = lines.find((l) => l["msg"] === "night done");
    expect(start?.["sources"]).toBe(0);
    expect(done?.["planned"]).toBe(2);
    expect(Number(done?.["planned"]) - Number(done?.["alreadyDone"])).toBe(start?.["sources"]);
  });
});
