import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * src/store/kysely.ts is the one place kysely's values come from (the bundled file once
 * built, docs/benchmarks.md): a value imported from "kysely" anywhere else would load the
 * package's 263 modules beside the bundle, and a second copy of its classes.
 */
const SRC = join(import.meta.dirname, "..", "..", "src");

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return files(p);
    return /\.tsx?$/.test(name) ? [p] : [];
  });
}

/** `import … from "kysely"` (or `export … from`) that brings in anything but types. */
function kyselyValueImports(text: string): string[] {
  const out: string[] = [];
  const stmt = /^\s*(?:import|export)\s+(type\s+)?([^;]*?)\s+from\s+["']kysely["']/gms;
  for (let m = stmt.exec(text); m; m = stmt.exec(text)) {
    if (m[1]) continue;
    const list = /^\{([^}]*)\}$/.exec((m[2] ?? "").trim())?.[1];
    const names = (list ?? "*")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    if (list === undefined || names.some((n) => !n.startsWith("type "))) out.push(m[0].trim());
  }
  for (const d of text.matchAll(/\bimport\(\s*["']kysely["']\s*\)/g)) out.push(d[0]);
  return out;
}

describe("kysely's values come from src/store/kysely.ts only", () => {
  it("the scanner sees value imports and lets type imports pass", () => {
    expect(kyselyValueImports('import { sql } from "kysely";')).toHaveLength(1);
    expect(kyselyValueImports('import {\n  type Kysely,\n  sql,\n} from "kysely";')).toHaveLength(
      1,
    );
    expect(kyselyValueImports('import * as k from "kysely";')).toHaveLength(1);
    expect(kyselyValueImports('const k = await import("kysely");')).toHaveLength(1);
    expect(kyselyValueImports('import type { Kysely } from "kysely";')).toEqual([]);
    expect(kyselyValueImports('import { type Kysely, type Sql } from "kysely";')).toEqual([]);
  });

  it("no other file in src imports a value from kysely", () => {
    const found = files(SRC)
      .filter((p) => relative(SRC, p).split(sep).join("/") !== "store/kysely.ts")
      .flatMap((p) => kyselyValueImports(readFileSync(p, "utf8")).map((l) => `${p}: ${l}`));
    expect(found).toEqual([]);
  });
});
