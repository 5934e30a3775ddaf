import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * docs/architecture.md: every piece of SQL lives in src/store, and imports point down. Outside
 * src/store (and test/) no file builds a kysely query or writes raw SQL; src/store takes only
 * types from the layers above it (the ports it implements), never their code.
 */
const ROOT = join(import.meta.dirname, "..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === "node_modules" ? [] : sourceFiles(p);
    return /\.(?:[cm]?[jt]s|tsx)$/.test(name) ? [p] : [];
  });
}

const rel = (p: string) => relative(ROOT, p).split(sep).join("/");

/** Query builders and raw SQL: kysely's statement starters and its `sql` template tag. */
const SQL_MARKERS = [
  /\bselectFrom\s*\(/,
  /\binsertInto\s*\(/,
  /\bupdateTable\s*\(/,
  /\bdeleteFrom\s*\(/,
  /\bsql\s*(?:<[^>`]*>)?\s*`/,
  /\bfrom\s+["']kysely["']/,
];

function sqlLines(text: string): string[] {
  return text
    .split("\n")
    .map((line, i) => ({ line, n: i + 1 }))
    .filter(({ line }) => SQL_MARKERS.some((re) => re.test(line)))
    .map(({ line, n }) => `${n}: ${line.trim()}`);
}

/** Imports (and re-exports) of code, not only of types, from a module under `layers`. */
function valueImportsFrom(text: string, layers: readonly string[]): string[] {
  const out: string[] = [];
  const stmt = /^\s*(import|export)\s+(type\s+)?([^;]*?)\s+from\s+["']([^"']+)["']/gms;
  for (let m = stmt.exec(text); m; m = stmt.exec(text)) {
    const [, , typeOnly, what = "", from = ""] = m;
    if (typeOnly) continue;
    if (!layers.some((l) => new RegExp(`(?:^|/)${l}/`).test(from))) continue;
    // `import { type A, type B }` brings in types only, too.
    const list = /^\{([^}]*)\}$/.exec(what.trim())?.[1];
    const names = (list ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "");
    const allTypes = list !== undefined && names.every((s) => s.startsWith("type "));
    if (!allTypes) out.push(`${what.replace(/\s+/g, " ").trim()} from ${from}`);
  }
  for (const d of text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)) {
    const from = d[1] ?? "";
    if (layers.some((l) => new RegExp(`(?:^|/)${l}/`).test(from))) out.push(`import(${from})`);
  }
  return out;
}

describe("layers (docs/architecture.md)", () => {
  it("the scanners see what they look for", () => {
    expect(sqlLines('await db.selectFrom("nights").selectAll().execute();')).toHaveLength(1);
    expect(sqlLines("tx.insertInto('flags')")).toHaveLength(1);
    expect(sqlLines("db\n  .updateTable(table)")).toEqual(["2: .updateTable(table)"]);
    expect(sqlLines("trx.deleteFrom ('marks')")).toHaveLength(1);
    expect(sqlLines("await sql`select 1`.execute(db);")).toHaveLength(1);
    expect(sqlLines("const n = sql<number>`count(*)`;")).toHaveLength(1);
    expect(sqlLines('import type { Transaction } from "kysely";')).toHaveLength(1);
    expect(sqlLines("const selected = rows.filter(isSql); // no SQL here")).toEqual([]);
    expect(
      valueImportsFrom('import { latestMarks } from "../night/marks.js";', ["night"]),
    ).toHaveLength(1);
    expect(
      valueImportsFrom('import {\n  a,\n  type B,\n} from "../../sources/x.js";', ["sources"]),
    ).toHaveLength(1);
    expect(valueImportsFrom('import type { A } from "../night/types.js";', ["night"])).toEqual([]);
    expect(
      valueImportsFrom('import { type A, type B } from "../night/types.js";', ["night"]),
    ).toEqual([]);
    expect(valueImportsFrom('import { x } from "./db.js";', ["night"])).toEqual([]);
  });

  it("no kysely query builder or raw SQL outside src/store", () => {
    const roots = ["src", "bench", "scripts", "bin"].map((d) => join(ROOT, d));
    const files = roots
      .filter((d) => {
        try {
          return statSync(d).isDirectory();
        } catch {
          return false;
        }
      })
      .flatMap(sourceFiles)
      .filter((p) => !rel(p).startsWith("src/store/"));
    expect(files.length).toBeGreaterThan(50);
    const found = files.flatMap((p) =>
      sqlLines(readFileSync(p, "utf8")).map((l) => `${rel(p)}:${l}`),
    );
    expect(found, "SQL belongs in src/store").toEqual([]);
  });

  it("src/store takes only types from net, night, sources, web and cli (night/types.ts excepted)", () => {
    // night/types.ts holds the outcome kinds and their sets; it may be imported because it
    // imports nothing but types itself.
    const typesFile = readFileSync(join(ROOT, "src", "night", "types.ts"), "utf8");
    expect(valueImportsFrom(typesFile, ["net", "night", "sources", "store", "web", "cli"])).toEqual(
      [],
    );
    expect(typesFile).not.toMatch(/^import\s+(?!type\b)/m);
    const files = sourceFiles(join(ROOT, "src", "store"));
    expect(files.length).toBeGreaterThan(10);
    const found = files.flatMap((p) =>
      valueImportsFrom(readFileSync(p, "utf8"), ["net", "night", "sources", "web", "cli", "demo"])
        .filter((l) => !/ from (?:\.\.\/)+night\/types\.js$/.test(l))
        .map((l) => `${rel(p)}: ${l}`),
    );
    expect(found, "store imports point down (type-only ports excepted)").toEqual([]);
  });
});
