import { expect } from "vitest";
import { NorError } from "../../src/errors.js";
import { parseCatalog } from "../../src/sources/catalog/load.js";
import type { CatalogError } from "../../src/sources/catalog/problems.js";

/** Parses a catalog's text and gives its problems as `file:line:col: path: message` lines (throws if it parsed). */
export function problems(text: string, file = "cat.yaml"): string[] {
  try {
    parseCatalog(text, file);
  } catch (e) {
    expect(e).toBeInstanceOf(NorError);
    expect((e as NorError).code).toBe("E_CATALOG");
    return (e as CatalogError).problems.map(
      (p) => `${p.file}:${p.line}:${p.col}: ${p.path}: ${p.message}`,
    );
  }
  throw new Error("expected the catalog to be refused");
}
