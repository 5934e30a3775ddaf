import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { migrations } from "../../src/store/migrations/index.js";
import { leftAt, postgresFactory, postgresUrl, type StoreFactory } from "../store/stores.js";
import { runMain } from "./cli-capture.js";

/**
 * A command that opens a store made by an earlier version says, before it upgrades it, where the
 * store is and which migrations run (one may rewrite a large table: 018 the records table), once;
 * a store being made, or one already upgraded, is said nothing of.
 */
const dirs: string[] = [];
const pg: StoreFactory | undefined = postgresUrl ? postgresFactory(postgresUrl) : undefined;
afterAll(async () => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  await pg?.cleanup();
});
const later = Object.keys(migrations).filter((n) => n > "017-night-user-agent");

/** A catalog of one government and no sources, in `dir`: an import that changes no source. */
function emptyCatalog(dir: string): string {
  const catalog = join(dir, "catalog.yaml");
  writeFileSync(
    catalog,
    "governments:\n  - { id: village-of-up, name: Village of Up, kind: village, county: Franklin }\nsources: []\n",
  );
  return catalog;
}

describe("upgrading a store, said", () => {
  // A command that writes upgrades the store; one that only reads (`nor status`) refuses it
  // instead and changes nothing (test/cli/reading-leaves-schema.test.ts).
  it("SQLite: `nor catalog import` on a store from before 018 says it upgrades it, naming the migrations; again, nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "nor-upgrade-"));
    dirs.push(dir);
    await leftAt({ kind: "sqlite", dir }, "017-night-user-agent", async () => {});
    const catalog = emptyCatalog(dir);
    const first = await runMain(["catalog", "import", catalog, "--data", dir]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(`nor: upgrading the store at ${join(dir, "nor.db")}`);
    for (const name of later) expect(first.stderr).toContain(name);
    expect(first.stderr).not.toContain("001-log");
    const again = await runMain(["catalog", "import", catalog, "--data", dir]);
    expect(again.stderr).not.toContain("upgrading");
    const status = await runMain(["status", "--data", dir]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stderr).toBe("");
  });

  it("SQLite: `nor night` without a terminal says the upgrade as a JSON line of its log, like every other line", async () => {
    const dir = mkdtempSync(join(tmpdir(), "nor-upgrade-"));
    dirs.push(dir);
    await leftAt({ kind: "sqlite", dir }, "017-night-user-agent", async () => {});
    const catalog = join(dir, "catalog.yaml");
    writeFileSync(
      catalog,
      "governments:\n  - { id: village-of-up, name: Village of Up, kind: village, county: Franklin }\nsources: []\n",
    );
    const r = await runMain([
      "night",
      "--catalog",
      catalog,
      "--data",
      dir,
      "--night",
      "2026-11-05",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.split("\n").filter(Boolean);
    const said = lines.map((l) => JSON.parse(l) as { msg?: string });
    const upgrade = said.filter((l) => l.msg?.startsWith("upgrading the store at "));
    expect(upgrade).toHaveLength(1);
    for (const name of later) expect(upgrade[0]?.msg).toContain(name);
  });

  it("SQLite: two commands opening a store from before 018 at once: the one that runs the upgrade says it, the one that waited finds nothing left and says nothing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "nor-upgrade-"));
    dirs.push(dir);
    await leftAt({ kind: "sqlite", dir }, "017-night-user-agent", async () => {});
    const said: string[][] = [];
    const stores = await Promise.all(
      [1, 2].map(() =>
        openStore({ kind: "sqlite", dir }, { onUpgrade: (u) => void said.push([...u.migrations]) }),
      ),
    );
    for (const s of stores) await s.close();
    expect(said).toEqual([later]);
  });

  it("SQLite: a store being made is not said to be upgraded", async () => {
    const dir = mkdtempSync(join(tmpdir(), "nor-upgrade-"));
    dirs.push(dir);
    const catalog = join(dir, "catalog.yaml");
    writeFileSync(
      catalog,
      "governments:\n  - { id: village-of-up, name: Village of Up, kind: village, county: Franklin }\nsources: []\n",
    );
    const made = await runMain(["catalog", "import", catalog, "--data", join(dir, "data")]);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).not.toContain("upgrading");
  });

  it.runIf(pg !== undefined)("PostgreSQL: the same", async () => {
    const loc = await (pg as StoreFactory).fresh();
    if (loc.kind !== "postgres") throw new Error("a PostgreSQL store");
    await leftAt(loc, "017-night-user-agent", async () => {});
    const dir = mkdtempSync(join(tmpdir(), "nor-upgrade-"));
    dirs.push(dir);
    const catalog = emptyCatalog(dir);
    const env = { env: { NOR_DATABASE_URL: loc.url } };
    const first = await runMain(["catalog", "import", catalog, "--data", dir], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain("nor: upgrading the store at postgres://");
    for (const name of later) expect(first.stderr).toContain(name);
    const again = await runMain(["catalog", "import", catalog, "--data", dir], env);
    expect(again.stderr).not.toContain("upgrading");
  });
});
