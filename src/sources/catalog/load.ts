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
import { catalogFile, inferAccess } from "./schema.js";
import type { Catalog } from "./types.js";

interface ParsedFile {
  loc: Located;
  raw: unknown;
  /** The validated file, before its ways get their access and zone (`withAccess`). */
  data: z.output<typeof catalogFile> | undefined;
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
  if (doc.errors.length > 0) return { loc, raw: undefined, data: undefined, problems };
  const secrets = findCredentials(loc);
  problems.push(...secrets);
  const raw: unknown = doc.toJS() ?? {};
  const result = catalogFile.safeParse(raw);
  if (!result.success) {
    // A refused credential key is also an unknown key: say it once, the P3 way.
    const said = new Set(secrets.map((p) => p.path));
    const issues = result.error.issues.flatMap((i) => fromIssue(loc, raw, i));
    problems.push(...issues.filter((p) => !said.has(p.path)));
  }
  return { loc, raw, data: result.success ? result.data : undefined, problems };
}

/**
 * Fills in each way's access where the catalog left it out (inferAccess, P4), and gives every
 * way its government's `timezone` (when the government names one) so its readers read the
 * page's zone-less times there. `zones` spans every file: a source may name a government
 * from another file.
 */
function withAccess(
  data: z.output<typeof catalogFile>,
  zones: ReadonlyMap<string, string>,
): Catalog {
  const platformAccess = (name: string) => getPlatform(name)?.access;
  return {
    governments: data.governments,
    sources: data.sources.map((s) => {
      const zone = zones.get(s.government);
      const fill = <T extends Parameters<typeof inferAccess>[0]>(w: T) => ({
        ...w,
        access: w.access ?? inferAccess(w, platformAccess),
        ...(zone !== undefined ? { timezone: zone } : {}),
      });
      return { ...fill(s), alternates: s.alternates.map(fill) };
    }),
  } as unknown as Catalog;
}

/** Whether the key at `path` is absent from the parsed YAML (its parent has no such key). */
function isAbsent(raw: unknown, path: readonly PathKey[]): boolean {
  let node: unknown = raw;
  for (const k of path.slice(0, -1)) {
    if (node === null || typeof node !== "object") return false;
    node = (node as Record<PathKey, unknown>)[k];
  }
  const key = path.at(-1);
  return (
    key !== undefined &&
    node !== null &&
    typeof node === "object" &&
    !Array.isArray(node) &&
    !Object.hasOwn(node, key)
  );
}

function fromIssue(loc: Located, raw: unknown, issue: z.core.$ZodIssue): CatalogProblem[] {
  const path = issue.path.filter((k): k is PathKey => typeof k !== "symbol");
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((k) =>
      loc.problem(path, "unknown key (check the spelling; see docs/catalog.md)", k),
    );
  }
  // A required key left out is "missing", whatever the field's type (zod words an absent
  // enum as "Invalid option", an absent union as "Invalid input").
  if (isAbsent(raw, path)) {
    const key = path.at(-1);
    const parent = path.slice(0, -1);
    return [loc.problem(parent, `missing required field \`${String(key)}\``)].map((p) => ({
      ...p,
      path: p.path ? `${p.path}${typeof key === "number" ? `[${key}]` : `.${key}`}` : String(key),
    }));
  }
  if (issue.code === "invalid_value" && issue.values.length > 1) {
    return [loc.problem(path, `must be one of ${issue.values.map((v) => String(v)).join(", ")}`)];
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
  const zones = new Map<string, string>();
  for (const f of files)
    for (const g of f.data?.governments ?? []) if (g.timezone) zones.set(g.id, g.timezone);
  // Zod leaves absent optional keys absent, so its output fits Catalog's exact types once
  // every way in has its access (written, or inferred as docs/catalog.md says).
  const catalogs = files.map((f) => (f.data ? withAccess(f.data, zones) : undefined));
  return {
    governments: catalogs.flatMap((c) => c?.governments ?? []),
    sources: catalogs.flatMap((c) => c?.sources ?? []),
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
    for (const g of f.data?.governments ?? []) origins.governments.set(g.id, f.loc.file);
    for (const s of f.data?.sources ?? []) origins.sources.set(s.id, f.loc.file);
  }
  return { catalog, origins };
}
