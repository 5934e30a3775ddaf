import { existsSync, mkdtempSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nightArgs } from "../../src/cli/commands/start.js";
import { type Fleet, startFleet } from "../fleet/fleet.js";
import { nightCli, nightProcess, rss } from "../night/cli-night.js";
import { postgresFactory } from "../store/stores.js";
import { writeVillageCatalog } from "./catalogs.js";
import { runMain } from "./cli-capture.js";
import { setNightsBegan } from "./night-began.js";

/**
 * tester-ops O5: a catalog file mistyped while `nor start` runs cost that night (its `nor night`
 * stopped at the typo, exit 2), and only `nor start`'s own output said so. With
 * `--or-stored-catalog` (which `nor start` passes) a night whose files cannot be read or are not
 * a valid catalog runs the sources the store last imported instead, when this build imported
 * them; one whose files' import is refused (it would retire too many) runs only the sources in
 * use the files list unchanged. It says so as it begins and keeps it with the night for `nor
 * status` and the console. Without the option, or with nothing to run instead, the files'
 * problem still stops the night (exit 2) with nothing asked.
 */
let fleet: Fleet;
const dir = mkdtempSync(join(tmpdir(), "nor-stored-catalog-"));
const pgBase = process.env["NOR_TEST_POSTGRES_URL"];
const pg = pgBase ? postgresFactory(pgBase) : undefined;
beforeAll(async () => {
  fleet = await startFleet();
});
afterAll(async () => {
  await fleet.close();
  await pg?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

/** A site with two feeds (robots.txt 404: allow all); `n` items each. */
async function twoFeeds(n: () => number = () => 2) {
  const s = await fleet.server();
  s.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
  for (const f of ["a", "b"])
    s.route(
      `/${f}.rss`,
      (_q, res) =>
        void res
          .writeHead(200, { "content-type": "application/rss+xml" })
          .end(rss(s.origin, n(), f)),
    );
  return s;
}

function catalogOf(file: string, origin: string, only?: "a"): string {
  return writeVillageCatalog(file, "Stored", {
    "stored-a": `records: agendas, access: feed, url: "${origin}/a.rss"`,
    ...(only === "a"
      ? {}
      : { "stored-b": `records: minutes, access: feed, url: "${origin}/b.rss"` }),
  });
}

/** The same catalog with a flow map left open on line 4 (said at line 5, where it should end). */
function mistype(file: string, origin: string): void {
  writeFileSync(
    file,
    [
      "governments:",
      "  - { id: village-of-stored, name: Village of Stored, kind: village, county: Franklin }",
      "sources:",
      `  - { id: stored-a, government: village-of-stored, records: agendas, access: feed, url: "${origin}/a.rss"`,
      "",
    ].join("\n"),
  );
}

async function statusNights(data: string, env: Record<string, string> = {}) {
  const r = await runMain(["status", "--data", data, "--json", "--with-nights"], { env });
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { nights: { night: string; catalogNote: string | null }[] })
    .nights;
}

/** The store's nights begun a day and more ago (past nights may then run without the 20 h wait). */
const longAgo = (data: string) => setNightsBegan(data, Date.now() - 30 * 3_600_000);

describe("a night whose catalog files cannot be used (--or-stored-catalog)", () => {
  it("P13 (tester-ops O5): a typo in the files runs the sources last imported, said as the night begins and kept with it for nor status; without the option the night stops (exit 2)", async () => {
    let items = 2;
    const s = await twoFeeds(() => items);
    const catalog = catalogOf(join(dir, "typo.yaml"), s.origin);
    const data = join(dir, "typo-data");
    const first = await nightCli(catalog, data, "2026-11-05");
    expect(first.code, first.stderr).toBe(0);
    // A day ago: the next night is not held, and reads the files only when it imports them.
    longAgo(data);
    mistype(catalog, s.origin);
    const before = s.requests.length;
    const refused = await nightCli(catalog, data, "2026-11-06");
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`${catalog}:5:`);
    expect(s.requests.length).toBe(before);

    items = 3;
    const ran = await nightCli(catalog, data, "2026-11-06", ["--or-stored-catalog"]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toContain(
      "night 2026-11-06: its catalog files could not be used, so it ran the 2 sources the store last imported: catalog has 1 problem:",
    );
    expect(ran.stderr).toContain(`${catalog}:5:`);
    // Both feeds asked, the new item of each found new.
    expect(s.hits("/a.rss").length).toBe(2);
    expect(s.hits("/b.rss").length).toBe(2);
    const st = await runMain(["status", "--data", data, "--json"]);
    expect(
      (JSON.parse(st.stdout) as { id: string; newLastNight: number }[]).map((r) => [
        r.id,
        r.newLastNight,
      ]),
    ).toEqual([
      ["stored-a", 1],
      ["stored-b", 1],
    ]);
    const nights = await statusNights(data);
    expect(nights.map((n) => n.night)).toEqual(["2026-11-06", "2026-11-05"]);
    expect(nights[0]?.catalogNote).toContain(`${catalog}:5:`);
    expect(nights[1]?.catalogNote).toBeNull();
    const table = await runMain(["status", "--data", data]);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(
      /night 2026-11-06: finished [^\n]*; its catalog files could not be used, so it ran the 2 sources the store last imported: catalog has 1 problem: [^\n]*typo\.yaml:5:/,
    );
    expect(table.stdout).not.toMatch(/night 2026-11-05:[^\n]*could not be used/);

    // Mended: the next night imports the files again and carries no note.
    catalogOf(catalog, s.origin);
    const mended = await nightCli(catalog, data, "2026-11-07", ["--or-stored-catalog"]);
    expect(mended.code, mended.stderr).toBe(0);
    expect(mended.stderr).not.toContain("could not be used");
    expect((await statusNights(data))[0]).toMatchObject({
      night: "2026-11-07",
      catalogNote: null,
    });
  });

  it("P13 (tester-ops O5): a file gone (read before the store is opened) runs the sources last imported too", async () => {
    const s = await twoFeeds();
    const catalog = catalogOf(join(dir, "gone.yaml"), s.origin);
    const data = join(dir, "gone-data");
    expect((await nightCli(catalog, data, "2026-11-05")).code).toBe(0);
    unlinkSync(catalog);
    const r = await nightCli(catalog, data, "2026-11-06", ["--or-stored-catalog"]);
    expect(r.code, r.stderr).toBe(0);
    expect(s.hits("/a.rss").length).toBe(2);
    expect((await statusNights(data))[0]?.catalogNote).toContain(catalog);
  });

  it("P3, P13 (tester-ops O5, review-o5 F1): sources an older build imported are not run in place of files this build refuses", async () => {
    const s = await twoFeeds();
    const catalog = catalogOf(join(dir, "older.yaml"), s.origin);
    const data = join(dir, "older-data");
    expect((await nightCli(catalog, data, "2026-11-05")).code).toBe(0);
    // As an older build would have stored it: a key in a URL, which this build refuses (P3).
    const keyed = `${s.origin}/a.rss?api_key=SECRET`;
    const db = new Database(join(data, "nor.db"));
    try {
      const row = db.prepare("select entry from sources where id = 'stored-a'").get() as {
        entry: string;
      };
      const entry = JSON.parse(row.entry) as { url: string };
      entry.url = keyed;
      db.prepare("update sources set url = ?, entry = ? where id = 'stored-a'").run(
        keyed,
        JSON.stringify(entry),
      );
      db.prepare("update catalog_stamp set digest = 'older', importer = 'an older build'").run();
    } finally {
      db.close();
    }
    writeVillageCatalog(catalog, "Stored", {
      "stored-a": `records: agendas, access: feed, url: "${keyed}"`,
      "stored-b": `records: minutes, access: feed, url: "${s.origin}/b.rss"`,
    });
    const before = s.requests.length;
    const r = await nightCli(catalog, data, "2026-11-06", ["--or-stored-catalog"]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain("api_key");
    expect(r.stderr).not.toContain("could not be used");
    expect(s.requests.length).toBe(before);
  });

  it("P13 (tester-ops O5, review-o5 F2): an import refused (it would retire more than a tenth) runs only the sources in use the files list unchanged, none retired", async () => {
    const s = await twoFeeds();
    const catalog = catalogOf(join(dir, "retire.yaml"), s.origin);
    const data = join(dir, "retire-data");
    expect((await nightCli(catalog, data, "2026-11-05")).code).toBe(0);
    catalogOf(catalog, s.origin, "a");
    for (const night of ["2026-11-06", "2026-11-07"]) {
      const ran = await nightCli(catalog, data, night, ["--or-stored-catalog"]);
      expect(ran.code, ran.stderr).toBe(0);
      expect(ran.stderr).toContain(
        `night ${night}: the import of its catalog files was refused, so it ran only the 1 source in use that they list unchanged: this import would retire 1 of the 2 sources in use`,
      );
    }
    // The source the files no longer list is not asked on the store's word.
    expect(s.hits("/a.rss").length).toBe(3);
    expect(s.hits("/b.rss").length).toBe(1);
    const st = await runMain(["status", "--data", data, "--json"]);
    expect(
      (JSON.parse(st.stdout) as { id: string; retiredAt?: string }[]).map((r) => [
        r.id,
        r.retiredAt,
      ]),
    ).toEqual([
      ["stored-a", undefined],
      ["stored-b", undefined],
    ]);
    expect((await statusNights(data))[0]?.catalogNote).toContain("would retire 1 of the 2");
  });

  it("P13 (review-o5b G1, G2, G3): a night running only the sources its files list unchanged starts no workers and is joined by no other process; with none unchanged it stops (exit 2)", async () => {
    let hold = false;
    const held: ServerResponse[] = [];
    const sites: Awaited<ReturnType<typeof fleet.server>>[] = [];
    for (const f of ["a", "b", "c"]) {
      const s = await fleet.server();
      s.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
      s.route(`/${f}.rss`, (_q, res) => {
        if (f === "a" && hold) held.push(res);
        else res.writeHead(200, { "content-type": "application/rss+xml" }).end(rss(s.origin, 2, f));
      });
      sites.push(s);
    }
    const [sa, sb, sc] = sites as [(typeof sites)[0], (typeof sites)[0], (typeof sites)[0]];
    const three = (file: string, only?: "a") =>
      writeVillageCatalog(file, "Subset", {
        "sub-a": `records: agendas, access: feed, url: "${sa.origin}/a.rss"`,
        ...(only === "a"
          ? {}
          : {
              "sub-b": `records: minutes, access: feed, url: "${sb.origin}/b.rss"`,
              "sub-c": `records: minutes, access: feed, url: "${sc.origin}/c.rss"`,
            }),
      });
    const catalog = three(join(dir, "subset.yaml"));
    const data = join(dir, "subset-data");
    expect((await nightCli(catalog, data, "2026-11-05")).code).toBe(0);
    three(catalog, "a");
    // G1: asked for three processes, it runs in one (its workers would run every source).
    const alone = await nightProcess(catalog, data, "2026-11-06", [
      "--or-stored-catalog",
      "--workers",
      "3",
    ]);
    expect(alone.code, alone.stderr).toBe(0);
    expect(alone.stderr).toContain("ran only the 1 source in use that they list unchanged");
    expect(alone.stderr).toContain("runs in this process alone");
    expect([sb.hits("/b.rss").length, sc.hits("/c.rss").length]).toEqual([1, 1]);
    // G2: while such a night runs (its one request held), another process does not join it,
    // whatever its files: a mistyped copy here.
    hold = true;
    const opener = nightProcess(catalog, data, "2026-11-07", ["--or-stored-catalog"]);
    for (let i = 0; i < 600 && held.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(held.length).toBe(1);
    const typo = join(dir, "subset-typo.yaml");
    writeFileSync(typo, "governments: [\n");
    const joiner = await nightCli(typo, data, "2026-11-07", ["--or-stored-catalog"]);
    hold = false;
    for (const res of held) res.destroy();
    expect((await opener).code).toBe(0);
    expect(joiner.code, joiner.stderr).toBe(2);
    expect(joiner.stderr).toContain(
      "night 2026-11-07 is being run by another process on only the sources in use its catalog files list unchanged",
    );
    expect([sb.hits("/b.rss").length, sc.hits("/c.rss").length]).toEqual([1, 1]);
    // G3: the one source it lists, changed: nothing in use is listed unchanged, nothing runs.
    writeVillageCatalog(catalog, "Subset", {
      "sub-a": `records: agendas, access: feed, url: "${sa.origin}/a.rss?v=2"`,
    });
    const before = fleet.requests.length;
    const none = await nightCli(catalog, data, "2026-11-08", ["--or-stored-catalog"]);
    expect(none.code, none.stderr).toBe(2);
    expect(none.stderr).toContain("this import would retire 2 of the 3 sources in use");
    expect(fleet.requests.length).toBe(before);
  }, 120_000);

  it("P13 (tester-ops O5): with nothing imported before, the files' problem stops the night (exit 2) and nothing is made", async () => {
    const catalog = join(dir, "never.yaml");
    writeFileSync(catalog, "governments: [\n");
    const data = join(dir, "never-data");
    const r = await nightCli(catalog, data, "2026-11-05", ["--or-stored-catalog"]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${catalog}:`);
    expect(r.stderr).not.toContain("could not be used");
    expect(existsSync(join(data, "nor.db"))).toBe(false);
  });

  it.skipIf(!pg)(
    "P13 (tester-ops O5): on PostgreSQL, also from a machine whose data directory is new, a typo runs the sources last imported",
    async () => {
      const loc = (await pg?.fresh()) as { url: string };
      const env = { NOR_DATABASE_URL: loc.url };
      const s = await twoFeeds();
      const catalog = catalogOf(join(dir, "pg.yaml"), s.origin);
      const night = (data: string, date: string, more: string[] = []) =>
        runMain(
          [
            ...["night", "--catalog", catalog, "--data", join(dir, data), "--night", date],
            ...["--allow-private-addresses", "--gap-ms", "50", ...more],
          ],
          { env },
        );
      const first = await night("pg-a", "2026-11-05");
      expect(first.code, first.stderr).toBe(0);
      mistype(catalog, s.origin);
      for (const [data, date] of [
        ["pg-a", "2026-11-06"],
        ["pg-b", "2026-11-07"],
      ] as const) {
        const r = await night(data, date, ["--or-stored-catalog"]);
        expect(r.code, r.stderr).toBe(0);
        expect(r.stderr).toContain("its catalog files could not be used");
      }
      expect(s.hits("/b.rss").length).toBe(3);
      const nights = await statusNights(join(dir, "pg-a"), env);
      expect(nights.map((n) => [n.night, n.catalogNote !== null])).toEqual([
        ["2026-11-07", true],
        ["2026-11-06", true],
        ["2026-11-05", false],
      ]);
    },
  );

  it("P13 (tester-ops O5): nor start's nights are run with --or-stored-catalog, scheduled or resumed", () => {
    const opts = { catalog: ["c.yaml"] } as Parameters<typeof nightArgs>[0];
    expect(nightArgs(opts, ["c.yaml"], "data")).toContain("--or-stored-catalog");
    expect(
      nightArgs(opts, ["c.yaml"], "data", {
        began: Date.UTC(2026, 10, 5, 7),
        nextDue: Date.UTC(2026, 10, 6, 7),
      }),
    ).toContain("--or-stored-catalog");
  });
});

describe("a finished night run again with catalog files that cannot be used (tester-b 1)", () => {
  it("P13: a finished night run again with a typo and --or-stored-catalog asks nothing and keeps its history: no catalog note set", async () => {
    const s = await twoFeeds();
    const catalog = catalogOf(join(dir, "finished.yaml"), s.origin);
    const data = join(dir, "finished-data");
    const first = await nightCli(catalog, data, "2026-11-05");
    expect(first.code, first.stderr).toBe(0);
    mistype(catalog, s.origin);
    const before = s.requests.length;
    const again = await nightCli(catalog, data, "2026-11-05", ["--or-stored-catalog"]);
    expect(again.code, again.stderr).toBe(0);
    expect(s.requests.length).toBe(before);
    const nights = await statusNights(data);
    expect(nights.map((n) => [n.night, n.catalogNote])).toEqual([["2026-11-05", null]]);
    // Said as it is: nothing was run or asked (the night had finished), not "it ran the 2 sources".
    expect(again.stderr).not.toContain("so it ran");
    expect(again.stderr).toMatch(
      /night 2026-11-05 had already finished \(at [^)]* New York\) with nothing left to ask, so nothing was asked in it and its history is kept as it ran; its catalog files could not be used \(--or-stored-catalog\): catalog has 1 problem:/,
    );
    const onTty = await runMain(
      [
        ...["night", "--catalog", catalog, "--data", data, "--night", "2026-11-05"],
        ...["--allow-private-addresses", "--gap-ms", "50", "--or-stored-catalog"],
      ],
      { tty: true },
    );
    expect(onTty.code, onTty.stderr).toBe(0);
    expect(onTty.stderr).not.toContain("so it ran");
    expect(onTty.stderr).toContain("nor night: night 2026-11-05 had already finished (at ");
    expect(s.requests.length).toBe(before);
  });

  it("P13, P1: a night refused before it asks anything (it introduces itself otherwise) with a typo and --or-stored-catalog still names its files' problem, and says nothing was asked, not that it ran the sources", async () => {
    const s = await twoFeeds();
    const catalog = catalogOf(join(dir, "refused.yaml"), s.origin);
    const data = join(dir, "refused-data");
    const first = await nightCli(catalog, data, "2026-11-05");
    expect(first.code, first.stderr).toBe(0);
    mistype(catalog, s.origin);
    const before = s.requests.length;
    const other = "public-records-check/0.1 (+mailto:someone-else@example.org)";
    const refused = await nightCli(catalog, data, "2026-11-05", [
      ...["--or-stored-catalog", "--user-agent", other],
    ]);
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain("night 2026-11-05 already introduces itself as");
    // The operator mending the User-Agent learns of the files' problem in the same run.
    expect(refused.stderr).toContain(
      "night 2026-11-05: nothing was asked in it by this run, which ended before it could ask anything; its catalog files could not be used (--or-stored-catalog): catalog has 1 problem:",
    );
    expect(refused.stderr).toContain(`${catalog}:5:`);
    expect(refused.stderr).not.toContain("so it ran");
    expect(s.requests.length).toBe(before);
    expect((await statusNights(data)).map((n) => [n.night, n.catalogNote])).toEqual([
      ["2026-11-05", null],
    ]);
  });

  it("P13: a finished night run again with a typo and --or-stored-catalog that still has a source to ask (imported since it finished) runs it and says so", async () => {
    const s = await twoFeeds();
    const catalog = catalogOf(join(dir, "finished-more.yaml"), s.origin, "a");
    const data = join(dir, "finished-more-data");
    const first = await nightCli(catalog, data, "2026-11-05");
    expect(first.code, first.stderr).toBe(0);
    expect(s.hits("/b.rss")).toHaveLength(0);
    // A second source imported after the night finished, then the files mistyped.
    catalogOf(catalog, s.origin);
    const imported = await runMain(["catalog", "import", catalog, "--data", data]);
    expect(imported.code, imported.stderr).toBe(0);
    mistype(catalog, s.origin);
    const again = await nightCli(catalog, data, "2026-11-05", ["--or-stored-catalog"]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(
      "night 2026-11-05: its catalog files could not be used, so it ran the 2 sources the store last imported: catalog has 1 problem:",
    );
    expect(again.stderr).not.toContain("had already finished");
    expect(s.hits("/b.rss")).toHaveLength(1);
    expect(s.hits("/a.rss")).toHaveLength(1);
    expect((await statusNights(data))[0]?.catalogNote).toContain("could not be used");
  });
});
