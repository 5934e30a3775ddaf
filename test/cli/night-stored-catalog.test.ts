import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nightArgs } from "../../src/cli/commands/start.js";
import { type Fleet, startFleet } from "../fleet/fleet.js";
import { nightCli, rss } from "../night/cli-night.js";
import { writeVillageCatalog } from "./catalogs.js";
import { runMain } from "./cli-capture.js";

/**
 * tester-ops O5: a catalog file mistyped while `nor start` runs cost that night (its `nor night`
 * stopped at the typo, exit 2), and only `nor start`'s own output said so. With
 * `--or-stored-catalog` (which `nor start` passes) a night whose files cannot be used runs the
 * sources the store last imported instead, says why as it begins, and keeps the reason with
 * the night for `nor status` and the console. Without the option, or with nothing imported
 * before, the files' problem still stops the night (exit 2) with nothing changed.
 */
let fleet: Fleet;
const dir = mkdtempSync(join(tmpdir(), "nor-stored-catalog-"));
beforeAll(async () => {
  fleet = await startFleet();
});
afterAll(async () => {
  await fleet.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A site with two feeds (robots.txt 404: allow all); `n` items each. */
async function twoFeeds(n: () => number) {
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

async function statusNights(data: string) {
  const r = await runMain(["status", "--data", data, "--json", "--with-nights"]);
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { nights: { night: string; catalogNote: string | null }[] })
    .nights;
}

describe("a night whose catalog files cannot be used (--or-stored-catalog)", () => {
  it("P13 (tester-ops O5): a typo in the files runs the sources last imported, said as the night begins and kept with it for nor status; without the option the night stops (exit 2)", async () => {
    let items = 2;
    const s = await twoFeeds(() => items);
    const catalog = catalogOf(join(dir, "typo.yaml"), s.origin);
    const data = join(dir, "typo-data");
    const first = await nightCli(catalog, data, "2026-11-05");
    expect(first.code, first.stderr).toBe(0);

    // Mistyped meanwhile: a flow map left open on line 4 (said at line 5, where it should end).
    writeFileSync(
      catalog,
      [
        "governments:",
        "  - { id: village-of-stored, name: Village of Stored, kind: village, county: Franklin }",
        "sources:",
        `  - { id: stored-a, government: village-of-stored, records: agendas, access: feed, url: "${s.origin}/a.rss"`,
        "",
      ].join("\n"),
    );
    const before = s.requests.length;
    const refused = await nightCli(catalog, data, "2026-11-06");
    expect(refused.code, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`${catalog}:`);
    expect(s.requests.length).toBe(before);

    items = 3;
    const ran = await nightCli(catalog, data, "2026-11-06", ["--or-stored-catalog"]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toContain(
      `the catalog files (${catalog}) could not be used, so this night runs the 2 sources the store last imported instead`,
    );
    expect(ran.stderr).toContain(`${catalog}:`);
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
      /night 2026-11-06: finished [^\n]*; it ran the sources the store last imported, not its catalog files, which could not be used \(catalog has 1 problem: [^\n]*typo\.yaml:5:/,
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

  it("P13 (tester-ops O5): an import refused (it would retire more than a tenth) runs the sources in use as well, none of them retired", async () => {
    const s = await twoFeeds(() => 2);
    const catalog = catalogOf(join(dir, "retire.yaml"), s.origin);
    const data = join(dir, "retire-data");
    expect((await nightCli(catalog, data, "2026-11-05")).code).toBe(0);
    catalogOf(catalog, s.origin, "a");
    const ran = await nightCli(catalog, data, "2026-11-06", ["--or-stored-catalog"]);
    expect(ran.code, ran.stderr).toBe(0);
    expect(ran.stderr).toContain("this import would retire 1 of the 2 sources in use");
    expect(s.hits("/b.rss").length).toBe(2);
    const st = await runMain(["status", "--data", data, "--json"]);
    expect((JSON.parse(st.stdout) as { id: string }[]).map((r) => r.id).sort()).toEqual([
      "stored-a",
      "stored-b",
    ]);
    expect((await statusNights(data))[0]?.catalogNote).toContain("would retire 1 of the 2");
  });

  it("P13 (tester-ops O5): with nothing imported before, the files' problem stops the night (exit 2) and nothing is made", async () => {
    const catalog = join(dir, "never.yaml");
    writeFileSync(catalog, "governments: [\n");
    const data = join(dir, "never-data");
    const r = await nightCli(catalog, data, "2026-11-05", ["--or-stored-catalog"]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`${catalog}:`);
    expect(r.stderr).not.toContain("could not be used");
  });

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
