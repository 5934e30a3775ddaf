/**
 * `nor catalog import`: the validated catalog into the store, as a diff. Added rows are
 * inserted; changed rows updated; a source (or government) no longer in the catalog is
 * retired with the time — never deleted, so its nights and records keep their history —
 * and one that comes back is un-retired. Every change is kept in catalog_changes. The diff is
 * decided here; the SQL is `src/store/catalog-import.ts`.
 */
import {
  type CatalogEntryState,
  type CatalogWrite,
  type GovernmentFields,
  type SourceFields,
  writeCatalogImport,
} from "../store/catalog-import.js";
import type { Db } from "../store/db.js";
import type { CatalogChangeKind } from "../store/schema/sources.js";
import type { CatalogOrigins } from "./catalog/load.js";
import type { Catalog, Government, Source } from "./catalog/types.js";

export interface EntityChange {
  entity: "government" | "source";
  id: string;
  change: CatalogChangeKind;
  /** For "changed" (and an un-retire that also changed): the fields that differ. */
  fields?: string[];
}

export interface ImportDiff {
  changes: EntityChange[];
  unchanged: number;
}

/** Stable JSON: keys sorted, so a reordered YAML mapping is not a change. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x && typeof x === "object" && !Array.isArray(x)
      ? Object.fromEntries(
          Object.entries(x as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)),
        )
      : x,
  );
}

function changedFields(before: string, after: object): string[] {
  const old = JSON.parse(before) as Record<string, unknown>;
  const now = after as Record<string, unknown>;
  const keys = new Set([...Object.keys(old), ...Object.keys(now)]);
  return [...keys].filter((k) => canonical(old[k]) !== canonical(now[k])).sort();
}

/** The diff of one entity kind, before any write. */
function diff<T extends { id: string }>(
  entity: "government" | "source",
  existing: CatalogEntryState[],
  wanted: T[],
): EntityChange[] {
  const byId = new Map(existing.map((r) => [r.id, r]));
  const out: EntityChange[] = [];
  for (const w of wanted) {
    const row = byId.get(w.id);
    if (!row) {
      out.push({ entity, id: w.id, change: "added" });
      continue;
    }
    const fields =
      canonical(JSON.parse(row.entry)) === canonical(w) ? [] : changedFields(row.entry, w);
    if (row.retired_at !== null)
      out.push({ entity, id: w.id, change: "unretired", ...(fields.length ? { fields } : {}) });
    else if (fields.length > 0) out.push({ entity, id: w.id, change: "changed", fields });
  }
  const ids = new Set(wanted.map((w) => w.id));
  for (const r of existing)
    if (r.retired_at === null && !ids.has(r.id)) out.push({ entity, id: r.id, change: "retired" });
  return out;
}

function govRow(g: Government, file: string): GovernmentFields {
  return {
    name: g.name,
    kind: g.kind,
    county: g.county ?? null,
    website: g.website ?? null,
    entry: canonical(g),
    catalog_file: file,
  };
}

function sourceRow(s: Source, file: string): SourceFields {
  return {
    government_id: s.government,
    records: s.records,
    url: s.url,
    access: s.access,
    platform: s.platform ?? null,
    name: s.name ?? null,
    confirmed: s.confirmed ? 1 : 0,
    entry: canonical(s),
    catalog_file: file,
  };
}

export interface ImportOptions {
  /** Retire more than a tenth of the sources in one import (otherwise refused). */
  allowRetire?: boolean;
}

/** What an import did, or why it wrote nothing (a value; each caller words it). */
export type ImportOutcome =
  | { kind: "imported"; diff: ImportDiff }
  /**
   * Retiring is reversible but loud in the directory: an import that would retire more than
   * a tenth of the sources in use is most likely a partial catalog (one file of several), so
   * it writes nothing and names them, unless `allowRetire` says it is meant.
   */
  | { kind: "too-many-retired"; active: number; retire: string[] };

/** The sources an import would retire, when they are more than a tenth of those in use. */
function tooManyRetired(active: number, changes: readonly EntityChange[]): string[] | undefined {
  const retired = changes.filter((c) => c.entity === "source" && c.change === "retired");
  if (retired.length === 0 || retired.length * 10 <= active) return undefined;
  return retired.map((c) => c.id);
}

export async function importCatalog(
  db: Db,
  catalog: Catalog,
  origins: CatalogOrigins,
  now: number,
  opts: ImportOptions = {},
): Promise<ImportOutcome> {
  const at = new Date(now).toISOString();
  return writeCatalogImport<ImportOutcome>(db, at, (existing) => {
    const govs = existing.governments;
    const srcs = existing.sources;
    const changes = [
      ...diff("government", govs, catalog.governments),
      ...diff("source", srcs, catalog.sources),
    ];
    if (opts.allowRetire !== true) {
      const active = srcs.filter((r) => r.retired_at === null).length;
      const retire = tooManyRetired(active, changes);
      if (retire) return { writes: [], result: { kind: "too-many-retired", active, retire } };
    }
    const govById = new Map(catalog.governments.map((g) => [g.id, g]));
    const srcById = new Map(catalog.sources.map((s) => [s.id, s]));
    const writes = changes.map((c): CatalogWrite => {
      const base = { id: c.id, ...(c.fields ? { fields: c.fields } : {}) };
      if (c.change === "retired") return { ...base, entity: c.entity, change: c.change };
      if (c.entity === "government") {
        const g = govById.get(c.id)!;
        const row = govRow(g, origins.governments.get(g.id) ?? "");
        return { ...base, entity: "government", change: c.change, row };
      }
      const s = srcById.get(c.id)!;
      const row = sourceRow(s, origins.sources.get(s.id) ?? "");
      return { ...base, entity: "source", change: c.change, row };
    });
    const total = catalog.governments.length + catalog.sources.length;
    const touched = changes.filter((c) => c.change !== "retired").length;
    return { writes, result: { kind: "imported", diff: { changes, unchanged: total - touched } } };
  });
}

/** The diff as `nor catalog import` prints it. */
export function formatDiff(d: ImportDiff): string {
  const count = (entity: string, change: string) =>
    d.changes.filter((c) => c.entity === entity && c.change === change).length;
  const lines: string[] = [];
  for (const entity of ["government", "source"] as const) {
    lines.push(
      `${entity}s: ${count(entity, "added")} added, ${count(entity, "changed")} changed, ${count(entity, "retired")} retired, ${count(entity, "unretired")} un-retired`,
    );
  }
  const mark: Record<CatalogChangeKind, string> = {
    added: "+",
    changed: "~",
    retired: "-",
    unretired: "^",
  };
  for (const c of d.changes) {
    const fields = c.fields?.length ? ` (${c.fields.join(", ")})` : "";
    lines.push(`${mark[c.change]} ${c.entity} ${c.id} ${c.change}${fields}`);
  }
  lines.push(`${d.unchanged} unchanged`);
  return `${lines.join("\n")}\n`;
}
