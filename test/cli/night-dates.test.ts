import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_WORKERS } from "../../src/cli/commands/night.js";
import { type Clock, systemClock } from "../../src/clock.js";
import { addDays, nightOf } from "../../src/policy/night-date.js";
import { writeVillageCatalog } from "./catalogs.js";
import { nor, runMain } from "./cli-capture.js";
import { setNightsBegan } from "./night-began.js";
import { oneFeedSite } from "./one-feed.js";

/**
 * Which night `nor night --night` may run: a mistyped date (one not begun yet, or a past one
 * never run after a later one was) is refused with exit 2 before anything is asked, so no site
 * is asked twice in a day and the store's nights stay in order. Also the bound on --workers.
 */
const dir = mkdtempSync(join(tmpdir(), "nor-night-dates-"));
let site: Awaited<ReturnType<typeof oneFeedSite>>;
let asked: string[] = [];
let catalog = "";

beforeAll(async () => {
  site = await oneFeedSite();
  asked = site.asked;
  catalog = writeVillageCatalog(join(dir, "c.yaml"), "Dates", {
    "dates-feed": `records: agendas, access: feed, url: "${site.feed}"`,
  });
});

afterAll(async () => {
  await site.close();
  rmSync(dir, { recursive: true, force: true });
});

const night = (data: string, ...more: string[]) =>
  nor(
    "night",
    ...["--catalog", catalog, "--data", join(dir, data)],
    ...["--allow-private-addresses", "--gap-ms", "0", ...more],
  );

/** `nor night` into `data` (a path), in-process, on a host clock a day fast: it names tomorrow. */
const nightADayFast = (data: string) =>
  runMain(
    [
      "night",
      ...["--catalog", catalog, "--data", data],
      ...["--allow-private-addresses", "--gap-ms", "0"],
    ],
    { clock: { now: () => Date.now() + 86_400_000, sleep: systemClock.sleep } },
  );

describe("nor night --night: which dates may run", () => {
  it("P11: a night after tonight (a mistyped year) is refused, exit 2, and nothing is asked or stored", async () => {
    const tonight = nightOf(Date.now());
    for (const date of [addDays(tonight, 1), "2062-12-04", "9999-12-31"]) {
      const before = asked.length;
      const r = await night("future", "--night", date);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`--night: ${date} is after tonight`);
      expect(asked.length).toBe(before);
    }
    // Nothing was made: a night asked for on a store that does not exist yet made none.
    const status = await nor("status", "--data", join(dir, "future"));
    expect(status.code).toBe(2);
  });

  it("P11: a past night never run here is refused once a later night has run; the later one and an earlier one already run may be asked again", async () => {
    expect((await night("order", "--night", "2026-11-05")).code).toBe(0);
    expect((await night("order", "--night", "2026-11-07")).code).toBe(0);
    const before = asked.length;
    const late = await night("order", "--night", "2026-11-06");
    expect(late.code, late.stderr).toBe(2);
    expect(late.stderr).toContain(
      "night 2026-11-06 was never run on this store and night 2026-11-07 has been",
    );
    expect(asked.length).toBe(before);
    // Nights this store has opened are still its own to ask for (each says it is over).
    for (const done of ["2026-11-05", "2026-11-07"]) {
      const again = await night("order", "--night", done);
      expect(again.code, again.stderr).toBe(0);
    }
    expect(asked.length).toBe(before);
  });

  it("P11, P21, P25: a past night never run here is begun only 20 hours after the store's last night began; loopback tests (--allow-private-addresses) run nights back to back", async () => {
    const tonight = nightOf(Date.now());
    const [a, b, c] = [addDays(tonight, -4), addDays(tonight, -3), addDays(tonight, -2)];
    expect((await night("rest", "--night", a)).code).toBe(0);
    const before = asked.length;
    // As an operator runs it: no loopback option (the catalog's site is never reached anyway).
    const bare = (date: string) =>
      nor("night", "--catalog", catalog, "--data", join(dir, "rest"), "--night", date);
    const refused = await bare(b);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(
      `night ${b} is past and was never run on this store, and night ${a} began `,
    );
    expect(refused.stderr).toContain("at least 20 hours after the last night began");
    expect(asked.length).toBe(before);
    // Nothing of the refused night was opened: asked again later, it is still a new night.
    const status = await nor("status", "--data", join(dir, "rest"), "--json", "--with-nights");
    expect(status.stdout).not.toContain(b);
    // Loopback tests and the demo run their nights back to back.
    expect((await night("rest", "--night", b)).code).toBe(0);
    // A last night begun 21 hours ago (its start moved back in the store): a past night may begin.
    const db = new Database(join(dir, "rest", "nor.db"));
    try {
      db.prepare("update nights set started_at = ? where night = ?").run(
        new Date(Date.now() - 21 * 3_600_000).toISOString(),
        b,
      );
      db.prepare("update nights set started_at = ? where night = ?").run(
        new Date(Date.now() - 45 * 3_600_000).toISOString(),
        a,
      );
    } finally {
      db.close();
    }
    const sent = asked.length;
    const later = await bare(c);
    expect(later.stderr).not.toContain("is past and was never run");
    expect(later.stderr).not.toContain("a past night is begun");
    // It ran (its source at a loopback address refused by the address guard, nothing sent).
    expect(later.code, later.stderr).toBe(0);
    expect(asked.length).toBe(sent);
  });

  it("P11, P25: tonight's night is begun only 20 hours after a past night caught up began (else every source is asked twice that day); as tests run it on loopback, at once", async () => {
    const tonight = nightOf(Date.now());
    // (Two days back: yesterday's, begun within an hour of midnight, would be a late night.)
    const [old, missed] = [addDays(tonight, -5), addDays(tonight, -2)];
    const data = join(dir, "catchup");
    const bare = (...more: string[]) => nor("night", "--catalog", catalog, "--data", data, ...more);
    expect((await night("catchup", "--night", old)).code).toBe(0);
    // That night began 30 hours ago: the missed night may be caught up now.
    const db = new Database(join(data, "nor.db"));
    try {
      db.prepare("update nights set started_at = ? where night = ?").run(
        new Date(Date.now() - 30 * 3_600_000).toISOString(),
        old,
      );
    } finally {
      db.close();
    }
    const caught = await bare("--night", missed);
    expect(caught.code, caught.stderr).toBe(0);
    const before = asked.length;
    const now = await bare();
    expect(now.code, now.stderr).toBe(2);
    expect(now.stderr).toContain(`night ${missed}, a past night caught up, began `);
    expect(now.stderr).toContain(`tonight's night ${tonight} is begun at least 20 hours after it`);
    expect(asked.length).toBe(before);
    // Nothing of tonight's night was opened.
    const status = await nor("status", "--data", data, "--json", "--with-nights");
    expect(status.stdout).not.toContain(`"${tonight}"`);
    // Loopback tests run it at once.
    expect((await night("catchup")).code).toBe(0);
  });

  it("P11, P25: yesterday's night caught up within the hour after midnight holds tonight's for 20 hours as well (not taken for a late night of its own date)", async () => {
    // Tonight's midnight in New York (when the night's date last changed), found from the
    // machine's clock; bounded: a day of minutes back at most.
    let midnight = Date.now();
    const tonight = nightOf(midnight);
    for (let i = 0; i < 1500 && nightOf(midnight - 60_000) === tonight; i++) midnight -= 60_000;
    // The commands run at 02:00 New York tonight, whatever the machine's hour: from 20:30 on,
    // a night caught up just after midnight began over 20 hours ago and holds nothing more.
    const offset = midnight + 2 * 3_600_000 - Date.now();
    const clock: Clock = { now: () => Date.now() + offset, sleep: systemClock.sleep };
    const yesterday = addDays(tonight, -1);
    const data = join(dir, "catchup-early");
    const bare = (...more: string[]) =>
      runMain(["night", "--catalog", catalog, "--data", data, ...more], { clock });
    const first = await runMain(
      [
        "night",
        ...["--catalog", catalog, "--data", data, "--night", addDays(tonight, -5)],
        ...["--allow-private-addresses", "--gap-ms", "0"],
      ],
      { clock },
    );
    expect(first.code, first.stderr).toBe(0);
    // The first night long ago, so yesterday's may be caught up.
    setNightsBegan(data, clock.now() - 30 * 3_600_000);
    const caught = await bare("--night", yesterday);
    expect(caught.code, caught.stderr).toBe(0);
    // Yesterday's caught up just after tonight's midnight (within the hour a night begun late
    // may take, begunAfterItsDate), 90 minutes before 02:00.
    setNightsBegan(data, midnight + 30 * 60_000, yesterday);
    const before = asked.length;
    // This command reads 02:00 itself, its clock standing still (it is refused before anything
    // waits on it): the time it says is not moved on by how long the nights before it took
    // (30 s more, on a loaded machine, and it said 1h 31m).
    const atTwo: Clock = { now: () => midnight + 2 * 3_600_000, sleep: systemClock.sleep };
    const now = await runMain(["night", "--catalog", catalog, "--data", data], { clock: atTwo });
    expect(now.code, now.stderr).toBe(2);
    expect(now.stderr).toContain(`night ${yesterday}, a past night caught up, began 1h 30m ago`);
    expect(asked.length).toBe(before);
  });

  it("P11: --allow-private-addresses lifts the 20 hours only for a night whose every address is loopback or private (an IP literal, or a name --resolve pins to one), never beside a public site", async () => {
    const tonight = nightOf(Date.now());
    const [a, b] = [addDays(tonight, -4), addDays(tonight, -3)];
    const { port } = site;
    // A public name beside the loopback source: the rule holds, nothing is asked.
    const mixed = writeVillageCatalog(join(dir, "mixed.yaml"), "Dates", {
      "dates-feed": `records: agendas, access: feed, url: "${site.feed}"`,
      "dates-public": 'records: bids, access: feed, url: "https://www.example.gov/bids.rss"',
    });
    const run = (cat: string, data: string, date: string, ...more: string[]) =>
      nor(
        "night",
        ...["--catalog", cat, "--data", join(dir, data), "--night", date],
        ...["--allow-private-addresses", "--gap-ms", "0", ...more],
      );
    // A first night with the loopback source only, then the catalog with the public one.
    expect((await run(catalog, "mixed", a)).code).toBe(0);
    const before = asked.length;
    const refused = await run(mixed, "mixed", b);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`night ${b} is past and was never run on this store`);
    expect(asked.length).toBe(before);
    // Nor beside a public address written in capitals, or a platform's source (its preset may
    // ask another host than the one named: legistar-api asks webapi.legistar.com), pinned or not.
    for (const [id, line, more] of [
      ["upper", 'records: bids, access: feed, url: "HTTPS://www.example.gov/bids.rss"', []],
      [
        "legi",
        'records: meetings, platform: legistar-api, url: "https://springfield.legistar.com/Calendar.aspx"',
        ["--resolve", "springfield.legistar.com:443:127.0.0.1"],
      ],
    ] as const) {
      const data = `mixed-${id}`;
      expect((await run(catalog, data, a, ...more)).code).toBe(0);
      const cat = writeVillageCatalog(join(dir, `${data}.yaml`), "Dates", {
        "dates-feed": `records: agendas, access: feed, url: "http://127.0.0.1:${port}/feed.rss"`,
        [`dates-${id}`]: line,
      });
      const sent = asked.length;
      const r = await run(cat, data, b, ...more);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`night ${b} is past and was never run on this store`);
      expect(asked.length).toBe(sent);
    }
    // A public-looking name pinned by --resolve to the loopback server: a test's, lifted.
    const pinned = writeVillageCatalog(join(dir, "pinned.yaml"), "Pinned", {
      "pinned-feed": `records: agendas, access: feed, url: "http://www.pinned-test.gov:${port}/feed.rss"`,
    });
    const pin = ["--resolve", `www.pinned-test.gov:${port}:127.0.0.1`];
    expect((await run(pinned, "pinned", a, ...pin)).code).toBe(0);
    const next = await run(pinned, "pinned", b, ...pin);
    expect(next.code, next.stderr).toBe(0);
    expect(asked.length).toBeGreaterThan(before);
  });

  it("P11, P13: a later night begun in the future of now (recorded by a clock running ahead, then set right) does not hold tonight's night: it runs, and the night recorded ahead is named with its start", async () => {
    const data = join(dir, "ahead");
    const ahead: Clock = { now: () => Date.now() + 2 * 86_400_000, sleep: systemClock.sleep };
    const run = (clock: Clock) =>
      runMain(
        [
          "night",
          ...["--catalog", catalog, "--data", data],
          ...["--allow-private-addresses", "--gap-ms", "0"],
        ],
        { clock },
      );
    const first = await run(ahead);
    expect(first.code, first.stderr).toBe(0);
    const later = addDays(nightOf(Date.now()), 2);
    expect(first.stderr).toContain(`"night":"${later}"`);
    // The clock set right: tonight's night is the store's own to run, said once.
    const tonight = nightOf(Date.now());
    const second = await run(systemClock);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toContain("a past night is not started after a later one");
    // Its start as that clock stamped it, in UTC: the date may be the day after `later`'s (a
    // New York evening is the next day in UTC).
    const began = new RegExp(
      `night ${later} was recorded by a clock running ahead \\(it began at (${later}|${addDays(later, 1)})T`,
    );
    expect(second.stderr).toMatch(began);
    expect(second.stderr).toContain(`night ${tonight} is run all the same`);
    expect(second.stderr).toContain(`"night":"${tonight}"`);
  });

  it("P11, P13: a later night dated after tonight, its start before now (a host clock ahead naming it, another clock stamping it), was recorded ahead all the same: on loopback (as tests run) set aside at once, tonight's night runs and asks its sources, refused by no order of dates", async () => {
    const data = join(dir, "ahead-begun");
    const tonight = nightOf(Date.now());
    const later = addDays(tonight, 1);
    const first = await nightADayFast(data);
    expect(first.code, first.stderr).toBe(0);
    // That later night's start stands before now: its date is still to come all the same.
    setNightsBegan(data, Date.now() - 3_600_000, later);
    const before = asked.length;
    const r = await night("ahead-begun");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).not.toContain("a past night is not started after a later one");
    expect(r.stderr).toContain(`night ${later} was recorded by a clock running ahead`);
    expect(r.stderr).toContain(`"night":"${tonight}"`);
    expect(asked.length).toBeGreaterThan(before);
  });

  it("P11, P13: a night dated after tonight whose recorded start is before now (a believable start: its sources were asked then) holds tonight's night 20 hours after that start, as a past night caught up does, and is not set aside meanwhile; 20 hours on it is set aside and tonight's runs", async () => {
    const data = join(dir, "ahead-rest");
    const tonight = nightOf(Date.now());
    const later = addDays(tonight, 1);
    const first = await nightADayFast(data);
    expect(first.code, first.stderr).toBe(0);
    // Stamped by another clock (a PostgreSQL server's, right) an hour ago: believable.
    setNightsBegan(data, Date.now() - 3_600_000, later);
    // As an operator runs it: no loopback option.
    const bare = () => nor("night", "--catalog", catalog, "--data", data);
    const nightsHere = () => {
      const db = new Database(join(data, "nor.db"), { readonly: true });
      try {
        return (db.prepare("select night from nights").all() as { night: string }[]).map(
          (r) => r.night,
        );
      } finally {
        db.close();
      }
    };
    for (let i = 0; i < 2; i++) {
      const held = await bare();
      expect(held.code, held.stderr).toBe(2);
      expect(held.stderr).toContain(`night ${later}`);
      expect(held.stderr).toContain("20 hours");
      // Not set aside: the hold stands for the next `nor night` too.
      expect(nightsHere()).toEqual([later]);
    }
    // Its start 21 hours ago: set aside, and tonight's night runs.
    setNightsBegan(data, Date.now() - 21 * 3_600_000, later);
    const r = await bare();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`night ${later} was recorded by a clock running ahead`);
    expect(nightsHere()).toEqual([tonight]);
  });

  it(`--workers above ${MAX_WORKERS} is refused, exit 2, before anything is started or asked`, async () => {
    const before = asked.length;
    const r = await night("workers", "--workers", String(MAX_WORKERS + 1), "--night", "2026-11-05");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--workers: at most ${MAX_WORKERS}`);
    expect(asked.length).toBe(before);
  });
});

describe("nor mark --night", () => {
  it("P25: a marking night after tonight is refused, exit 2, and nothing is marked", async () => {
    expect((await night("mark", "--night", "2026-11-05")).code).toBe(0);
    const date = addDays(nightOf(Date.now()), 2);
    const r = await nor(
      "mark",
      "dates-feed",
      "--data",
      join(dir, "mark"),
      "--night",
      date,
      "--not-read",
      "--reason",
      "typo test",
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`--night: ${date} is after tonight`);
    const flags = await nor("status", "--data", join(dir, "mark"), "--json");
    expect(flags.stdout).not.toContain("typo test");
  });
});
