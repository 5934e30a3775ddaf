/**
 * `nor status` and the console's list of sources after a catalog import changed the sources a
 * night read (an outside tester's find): a source the import retired was still said "read", and
 * one moved to another government still named the old one, as the last night's catalog had
 * them. They are said as the store's sources now stand.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { runMain } from "./cli-capture.js";

const dir = mkdtempSync(join(tmpdir(), "nor-status-import-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const catalog = (name: string, sources: string[]) => {
  const file = join(dir, name);
  writeFileSync(
    file,
    [
      "governments:",
      "  - { id: village-of-a, name: Village of A, kind: village, county: Franklin }",
      "  - { id: village-of-b, name: Village of B, kind: village, county: Licking }",
      "sources:",
      ...sources,
      "",
    ].join("\n"),
  );
  return file;
};

describe("nor status after a catalog import", () => {
  it("P24, P26: a source retired since the last night is said retired, not read; one moved to another government names the new one", async () => {
    const data = join(dir, "data");
    const v1 = catalog("v1.yaml", [
      '  - { id: s-keep, government: village-of-a, records: agendas, access: feed, url: "https://a.example.gov/a.rss" }',
      '  - { id: s-gone, government: village-of-a, records: minutes, access: feed, url: "https://a.example.gov/m.rss" }',
    ]);
    expect((await runMain(["catalog", "import", v1, "--data", data])).code).toBe(0);
    // The last night read both (its catalog, as a night records it).
    const store = await openStore({ kind: "sqlite", dir: data });
    try {
      await store.db
        .insertInto("night_catalog")
        .values(
          ["s-keep", "s-gone"].map((id) => ({
            source_id: id,
            government: "village-of-a",
            url: `https://a.example.gov/${id === "s-keep" ? "a" : "m"}.rss`,
            site: "example.gov",
            updated_at: "2026-11-05T06:00:00.000Z",
          })),
        )
        .execute();
    } finally {
      await store.close();
    }
    const v2 = catalog("v2.yaml", [
      '  - { id: s-keep, government: village-of-b, records: agendas, access: feed, url: "https://a.example.gov/a.rss" }',
    ]);
    const imported = await runMain(["catalog", "import", v2, "--data", data, "--allow-retire"]);
    expect(imported.code, imported.stderr).toBe(0);

    const json = await runMain(["status", "--json", "--data", data]);
    expect(json.code, json.stderr).toBe(0);
    const rows = JSON.parse(json.stdout) as {
      id: string;
      government: string;
      retiredAt?: string;
    }[];
    expect(rows.map((r) => [r.id, r.government, r.retiredAt !== undefined])).toEqual([
      ["s-gone", "village-of-a", true],
      ["s-keep", "village-of-b", false],
    ]);
    const text = await runMain(["status", "--data", data]);
    expect(text.code, text.stderr).toBe(0);
    const line = (id: string) => text.stdout.split("\n").find((l) => l.startsWith(`${id}\t`));
    expect(line("s-gone")).toMatch(/\tretired \d{4}-\d\d-\d\dT[^\t]*: no longer in the catalog\t/);
    expect(line("s-keep")).toContain("\tvillage-of-b\t");
    expect(line("s-keep")).toContain("\tread\t");
  });
});
