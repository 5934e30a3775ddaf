import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { diffLine } from "../../src/sources/catalog-import.js";
import { postgresFactory } from "../store/stores.js";
import { writeVillageCatalog } from "./catalogs.js";
import { runMain } from "./cli-capture.js";

/**
 * tester-ops O10: an operator who renames a source's id gets a new source whose history starts
 * afresh: its first read lists every record as already there, none as new (P6), so the records
 * that are new that night go unsaid. Until a rename carries the history over, the import says
 * so for every source it adds at the very address of one it retires, naming both.
 */
const dir = mkdtempSync(join(tmpdir(), "nor-same-address-"));
const pgBase = process.env["NOR_TEST_POSTGRES_URL"];
const pg = pgBase ? postgresFactory(pgBase) : undefined;
afterAll(async () => {
  await pg?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const URL_A = "https://www.example.gov/agendas.rss";
const URL_B = "https://www.example.gov/minutes.rss";

describe("a source added at the address of one retired", () => {
  it("P6 (tester-ops O10): nor catalog import and nor night say that the new id starts afresh and which id to keep; an ordinary addition or retirement says nothing of it", async () => {
    const catalog = join(dir, "catalog.yaml");
    const data = join(dir, "data");
    writeVillageCatalog(catalog, "Same", {
      "same-agendas": `records: agendas, access: feed, url: "${URL_A}"`,
      "same-minutes": `records: minutes, access: feed, url: "${URL_B}"`,
    });
    const first = await runMain(["catalog", "import", catalog, "--data", data]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).not.toContain("is new at the address of");

    // The agendas' id renamed; the minutes retired and another list added in their place.
    writeVillageCatalog(catalog, "Same", {
      "same-council-agendas": `records: agendas, access: feed, url: "${URL_A}"`,
      "same-bids": 'records: bids, access: feed, url: "https://www.example.gov/bids.rss"',
    });
    const renamed = await runMain([
      ...["catalog", "import", catalog, "--data", data],
      "--allow-retire",
    ]);
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(renamed.stdout).toContain(
      `! source same-council-agendas is new at the address of same-agendas, retired (${URL_A}): a new id's history starts afresh, its first read listing every record as already there, none as new; keep the id same-agendas to keep its history`,
    );
    expect(renamed.stdout).not.toContain("same-bids is new at the address");
    expect(renamed.stdout.match(/is new at the address of/g)).toHaveLength(1);
  });

  it.each([
    ["SQLite", false],
    ["PostgreSQL", true],
  ] as const)(
    "P24: a source added at the address of one a person marked not read is marked not read with it (its marks come along), and the import says so (%s)",
    async (name, onPg) => {
      if (onPg && !pg) return;
      const fresh = onPg && pg ? ((await pg.fresh()) as { url: string }) : undefined;
      const env: Record<string, string> = fresh ? { NOR_DATABASE_URL: fresh.url } : {};
      const run = (args: string[]) => runMain(args, { env });
      const catalog = join(dir, `marked-${name}.yaml`);
      const data = join(dir, `marked-${name}-data`);
      writeVillageCatalog(catalog, "Marked", {
        "marked-agendas": `records: agendas, access: feed, url: "${URL_A}"`,
        "marked-minutes": `records: minutes, access: feed, url: "${URL_B}"`,
      });
      expect((await run(["catalog", "import", catalog, "--data", data])).code).toBe(0);
      const mark = await run([
        ...["mark", "marked-agendas", "--data", data, "--not-read"],
        ...["--reason", "the site answered 403 three nights running", "--by", "tester"],
      ]);
      expect(mark.code, mark.stderr).toBe(0);
      // Both ids change at once (no rename is certain): each new id at an old one's address.
      writeVillageCatalog(catalog, "Marked", {
        "marked-council-agendas": `records: agendas, access: feed, url: "${URL_A}"`,
        "marked-council-minutes": `records: minutes, access: feed, url: "${URL_B}"`,
      });
      const r = await run(["catalog", "import", catalog, "--data", data, "--allow-retire"]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(
        "marked-agendas was marked not read, and marked-council-agendas is marked so with it (`nor mark marked-council-agendas --read` undoes it)",
      );
      expect(r.stdout.match(/is marked so with it/g)).toHaveLength(1);
      const st = await run(["status", "--data", data, "--json"]);
      const rows = JSON.parse(st.stdout) as {
        id: string;
        reading: boolean;
        notReadReason?: string;
      }[];
      expect(rows.find((x) => x.id === "marked-council-agendas")).toMatchObject({
        reading: false,
        notReadReason: "the site answered 403 three nights running",
      });
      expect(rows.find((x) => x.id === "marked-council-minutes")?.reading).toBe(true);
    },
  );

  it("P6 (tester-ops O10): nor night's line of the import says it too", () => {
    const line = diffLine({
      changes: [
        { entity: "source", id: "a", change: "retired" },
        { entity: "source", id: "b", change: "added" },
      ],
      unchanged: 0,
      leads: { added: 0, removed: 0, listed: 0 },
      sameAddress: [{ retired: "a", added: "b", url: URL_A }],
    });
    expect(line).toBe(
      "sources 1 added, 1 retired (sources retired: a) (new at a retired source's address: a → b; a new id's history starts afresh, its first read listing every record as already there)",
    );
  });
});
