/**
 * Reads catalog YAML files into the validated Catalog. Every problem in every file — YAML
 * syntax, schema, credentials (P3), duplicate ids, unknown governments — is collected and
 * thrown together as one CatalogError (E_CATALOG) naming file:line:column and field path.
 */
import { readFileSync } from "node:fs";
import { LineCounter, parseDocument } from "yaml";
import type { z } from "zod";
import { getPlatform, platformNames } from "../platforms/index.js";
import { findCredentials } from "./credentials.js";
import { CatalogError, type CatalogProblem, Located, type PathKey } from "./problems.js";
import { catalogFile } from "./schema.js";
import type { Catalog } from "./types.js";

interface ParsedFile {
  loc: Located;
  raw: unknown;
  catalog: Catalog | undefined;
  problems: CatalogProblem[];
}

function parseFile(text: string, file: string): ParsedFile {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const loc = new Located(file, doc, lines);
  const problems: CatalogProblem[] = [];
  for (const e of [...doc.errors, ...doc.warnings]) {
    const { line, col } = lines.linePos(e.pos[0]);
    problems.push({ file, line, col, path: "", message: `YAML: ${e.message.split("\n")[0]}` });
  }
  if (doc.errors.length > 0) return { loc, raw: undefined, catalog: undefined, problems };
  const secrets = findCredentials(loc);
  problems.push(...secrets);
  const raw: unknown = doc.toJS() ?? {};
  const result = catalogFile.safeParse(raw);
  if (!result.success) {
    // A refused credential key is also an unknown key: say it once, the P3 way.
    const said = new Set(secrets.map((p) => p.path));
    const issues = result.error.issues.flatMap((i) => fromIssue(loc, i));
    problems.push(...issues.filter((p) => !said.has(p.path)));
  }
  // Zod leaves absent optional keys absent, so its output already fits Catalog's exact types.
  const catalog = result.success ? (result.data as unknown as Catalog) : undefined;
  return { loc, raw, catalog, problems };
}

function fromIssue(loc: Located, issue: z.core.$ZodIssue): CatalogProblem[] {
  const path = issue.path.filter((k): k is PathKey => typeof k !== "symbol");
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((k) =>
      loc.problem(path, "unknown key (check the spelling; see docs/catalog.md)", k),
    );
  }
  if (issue.code === "invalid_type" && issue.input === undefined) {
    const key = path.at(-1);
    const parent = path.slice(0, -1);
    return [loc.problem(parent, `missing required field \`${String(key)}\``)].map((p) => ({
      ...p,
      path: p.path ? `${p.path}${typeof key === "number" ? `[${key}]` : `.${key}`}` : String(key),
    }));
  }
  return [loc.problem(path, issue.message)];
}

type RawItem = { id?: unknown; government?: unknown; platform?: unknown; alternates?: unknown };

function rawList(raw: unknown, key: "governments" | "sources"): RawItem[] {
  const v = (raw as Record<string, unknown> | null)?.[key];
  return Array.isArray(v) ? (v as RawItem[]) : [];
}

/** Checks across files: ids unique per kind, sources naming known governments. */
function crossCheck(files: ParsedFile[]): CatalogProblem[] {
  const problems: CatalogProblem[] = [];
  const govs = new Map<string, string>();
  const srcs = new Map<string, string>();
  for (const f of files) {
    rawList(f.raw, "governments").forEach((g, i) => {
      if (typeof g?.id !== "string") return;
      const first = govs.get(g.id);
      if (first)
        problems.push(
          f.loc.problem(
            ["governments", i, "id"],
            `duplicate government id "${g.id}" (first at ${first})`,
          ),
        );
      else govs.set(g.id, where(f, ["governments", i, "id"]));
    });
  }
  for (const f of files) {
    rawList(f.raw, "sources").forEach((s, i) => {
      if (typeof s?.id === "string") {
        const first = srcs.get(s.id);
        if (first)
          problems.push(
            f.loc.problem(
              ["sources", i, "id"],
              `duplicate source id "${s.id}" (first at ${first})`,
            ),
          );
        else srcs.set(s.id, where(f, ["sources", i, "id"]));
      }
      if (typeof s?.government === "string" && !govs.has(s.government))
        problems.push(
          f.loc.problem(["sources", i, "government"], `unknown government "${s.government}"`),
        );
    });
  }
  return problems;
}

/** Platform names must name a preset (the night treats an unknown one as broken config). */
function platformProblems(f: ParsedFile): CatalogProblem[] {
  const out: CatalogProblem[] = [];
  rawList(f.raw, "sources").forEach((s, i) => {
    const ways: [RawItem, PathKey[]][] = [[s, ["sources", i]]];
    if (Array.isArray(s?.alternates)) {
      (s.alternates as RawItem[]).forEach((w, j) => {
        ways.push([w, ["sources", i, "alternates", j]]);
      });
    }
    for (const [w, path] of ways) {
      if (typeof w?.platform === "string" && !getPlatform(w.platform)) {
        const known = platformNames.join(", ");
        out.push(
          f.loc.problem(
            [...path, "platform"],
            `unknown platform "${w.platform}" (known: ${known})`,
          ),
        );
      }
    }
  });
  return out;
}

function where(f: ParsedFile, path: PathKey[]): string {
  const { line, col } = f.loc.at(path);
  return `${f.loc.file}:${line}:${col}`;
}

function combine(files: ParsedFile[]): Catalog {
  const problems = [
    ...files.flatMap((f) => [...f.problems, ...platformProblems(f)]),
    ...crossCheck(files),
  ];
  if (problems.length > 0) {
    problems.sort((a, b) => (a.file === b.file ? a.line - b.line || a.col - b.col : 0));
    throw new CatalogError(problems);
  }
  return {
    governments: files.flatMap((f) => f.catalog?.governments ?? []),
    sources: files.flatMap((f) => f.catalog?.sources ?? []),
  };
}

/** Parses one catalog file's text; `file` names it in messages. Throws CatalogError. */
export function parseCatalog(text: string, file: string): Catalog {
  return combine([parseFile(text, file)]);
}

/** Reads and validates catalog files together (ids and references span the files). */
export function loadCatalog(files: string[]): Catalog {
  return loadCatalogWithFiles(files).catalog;
}

/** Which file each government and source came from (kept by `nor catalog import`). */
export interface CatalogOrigins {
  governments: Map<string, string>;
  sources: Map<string, string>;
}

export function loadCatalogWithFiles(files: string[]): {
  catalog: Catalog;
  origins: CatalogOrigins;
} {
  const parsed = files.map((file) => {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (cause) {
      const why = (cause as NodeJS.ErrnoException).code ?? String(cause);
      throw new CatalogError([
        { file, line: 0, col: 0, path: "", message: `cannot read the file (${why})` },
      ]);
    }
    return parseFile(text, file);
  });
  const catalog = combine(parsed);
  const origins: CatalogOrigins = { governments: new Map(), sources: new Map() };
  for (const f of parsed) {
    for (const g of f.catalog?.governments ?? []) origins.governments.set(g.id, f.loc.file);
    for (const s of f.catalog?.sources ?? []) origins.sources.set(s.id, f.loc.file);
  }
  return { catalog, origins };
}
