/**
 * `nor catalog import`: the validated catalog into the store, as a diff. Added rows are
 * inserted; changed rows updated; a source (or government) no longer in the catalog is
 * retired with the time — never deleted, so its nights and records keep their history —
 * and one that comes back is un-retired. Every change is kept in catalog_changes. The diff is
 * decided here; the SQL is `src/store/catalog-import.ts`. Leads (record pages not read yet)
 * have no id and no history: they are listed anew, and the diff counts those added and gone.
 */
import {
  type CatalogEntryState,
  type CatalogImportTx,
  type CatalogWrite,
  type GovernmentFields,
  type LeadFields,
  type LeadState,
  type SourceFields,
  withCatalogImport,
} from "../store/catalog-import.js";
import type { Db } from "../store/db.js";
import type { CatalogChangeKind } from "../store/schema/sources.js";
import { type CatalogOrigins, loadCatalogWithFiles } from "./catalog/load.js";
import { type CatalogStamp, importerVersion, stampCatalogFiles } from "./catalog/stamp.js";
import type { Catalog, Government, Lead, Source } from "./catalog/types.js";

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
  /** Leads listed now that were not before, and listed before but no longer. */
  leads: { added: number; removed: number; listed: number };
  /**
   * Sources added by this import at the address of one it retired (an id renamed, as often as
   * not): the new id's history starts afresh, its first read listing every record as already
   * there. Said, so the operator may keep the old id instead. Absent when there is none.
   */
  sameAddress?: { retired: string; added: string; url: string }[];
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

/**
 * How the sources `given` differ from those in use (each with its entry as imported): a source
 * in use the files no longer list, one they list that is not in use, or one whose entry changed
 * (which of its fields), at most `max` of them said, then how many more. Empty when the files
 * list exactly the sources in use, each as it was imported (in any order).
 */
export function sourcesDiffer(
  inUse: readonly { id: string; entry: string }[],
  /** An array, or the files' sources read piece by piece (`ImportOfFiles.sources`). */
  given: Iterable<Source>,
  max = 3,
): string[] {
  const held = new Map(inUse.map((r) => [r.id, r.entry]));
  const listed = new Set<string>();
  const out: string[] = [];
  for (const s of given) {
    listed.add(s.id);
    const entry = held.get(s.id);
    if (entry === undefined) out.push(`${s.id} is not among the sources in use`);
    else if (entry !== canonical(s))
      out.push(`${s.id} has another ${changedFields(entry, s).join(", ") || "entry"}`);
  }
  for (const r of inUse) if (!listed.has(r.id)) out.push(`${r.id} is in use but not listed`);
  if (out.length <= max) return out;
  return [...out.slice(0, max), `${out.length - max} more`];
}

/**
 * The ids of the sources in use that `given` lists with the very entry the store holds (its
 * canonical JSON): what a night may still run of them when the import of `given` was refused
 * (`nor night --or-stored-catalog`).
 */
export function unchangedSources(
  inUse: readonly { id: string; entry: string }[],
  given: Iterable<Source>,
): Set<string> {
  const held = new Map(inUse.map((r) => [r.id, r.entry]));
  const out = new Set<string>();
  for (const s of given) if (held.get(s.id) === canonical(s)) out.add(s.id);
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
  /**
   * The stamp of the files the catalog was read from, taken before they were read
   * (catalog/stamp.ts): recorded with the rows when the files were not written to since, so
   * a night of the same files can skip them. Without it (a catalog that is not files as they
   * are) the store's stamp is cleared, and the next night reads its files.
   */
  stamp?: CatalogStamp | undefined;
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
function tooManyRetired(active: number, retired: readonly EntityChange[]): string[] | undefined {
  if (retired.length === 0 || retired.length * 10 <= active) return undefined;
  return retired.map((c) => c.id);
}

/** A batch of catalog entries of one kind, and the file each came from. */
interface Batch<T> {
  entries: readonly T[];
  fileOf(id: string): string;
}

/** The catalog as the import reads it: every id up front, the entries a batch at a time. */
export interface ImportInput {
  governmentIds: ReadonlySet<string>;
  sourceIds: ReadonlySet<string>;
  governments(): Iterable<Batch<Government>>;
  sources(): Iterable<Batch<Source>>;
  /** The leads, in catalog order, a batch at a time. */
  leads(): Iterable<readonly Lead[]>;
}

/** What makes two leads the same one: its government, its kind of records, its address. */
const leadKey = (l: { government_id: string; records: string; url: string }) =>
  JSON.stringify([l.government_id, l.records, l.url]);

function leadRow(l: Lead, position: number, firstSeenAt: string): LeadFields {
  return {
    government_id: l.government,
    records: l.records,
    url: l.url,
    platform: l.platform ?? null,
    why: l.why,
    evidence: l.evidence ?? null,
    notes: l.notes ?? null,
    position,
    first_seen_at: firstSeenAt,
  };
}

/** Lists the catalog's leads anew, each keeping the time it was first listed. */
async function relistLeads(
  tx: { takeLeads(): Promise<LeadState[]>; addLeads(rows: readonly LeadFields[]): Promise<void> },
  batches: Iterable<readonly Lead[]>,
  at: string,
): Promise<ImportDiff["leads"]> {
  const before = new Map((await tx.takeLeads()).map((l) => [leadKey(l), l.first_seen_at]));
  const seen = new Set<string>();
  let position = 0;
  let added = 0;
  for (const batch of batches) {
    const rows = batch.map((l) => {
      const key = leadKey({ government_id: l.government, records: l.records, url: l.url });
      const since = before.get(key);
      if (since === undefined && !seen.has(key)) added++;
      seen.add(key);
      return leadRow(l, position++, since ?? at);
    });
    await tx.addLeads(rows);
  }
  const removed = [...before.keys()].filter((k) => !seen.has(k)).length;
  return { added, removed, listed: position };
}

/** Entries per batch: each batch costs one lookup and a few multi-row statements. */
const BATCH = 500;

/** A change that keeps the row in use: added, changed, un-retired. */
type Kept = EntityChange & { change: Exclude<CatalogChangeKind, "retired"> };

/** The changes of one batch against the rows of its ids as they stand. */
function batchChanges<T extends { id: string }>(
  entity: "government" | "source",
  existing: readonly CatalogEntryState[],
  wanted: readonly T[],
): Kept[] {
  const byId = new Map(existing.map((r) => [r.id, r]));
  const out: Kept[] = [];
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
  return out;
}

/**
 * Imports the catalog a batch at a time, in one transaction: the retirements are known
 * first (the rows in use whose ids the catalog lacks), so the guard stops an import before
 * it writes anything; then each batch is compared with its rows and written; then the
 * retirements. Memory holds the ids and one batch, never the whole catalog twice over.
 */
export async function importCatalogInput(
  db: Db,
  input: ImportInput,
  now: number,
  opts: ImportOptions = {},
): Promise<ImportOutcome> {
  const at = new Date(now).toISOString();
  return withCatalogImport(db, at, async (tx) => {
    const retiring = async (entity: "government" | "source", ids: ReadonlySet<string>) => {
      const active = await tx.activeIds(entity);
      const gone = active.filter((id) => !ids.has(id));
      return {
        active: active.length,
        gone: gone.map((id) => ({ entity, id, change: "retired" as const })),
      };
    };
    const govRetire = await retiring("government", input.governmentIds);
    const srcRetire = await retiring("source", input.sourceIds);
    if (opts.allowRetire !== true) {
      const retire = tooManyRetired(srcRetire.active, srcRetire.gone);
      // Known before the first write: nothing is written.
      if (retire) return { kind: "too-many-retired", active: srcRetire.active, retire };
    }

    const changes: EntityChange[] = [];
    let total = 0;
    const apply = async <T extends Government | Source>(
      entity: "government" | "source",
      batches: Iterable<Batch<T>>,
      toWrite: (c: Kept & { fields?: string[] }, entry: T, file: string) => CatalogWrite,
    ) => {
      for (const batch of batches) {
        total += batch.entries.length;
        const ids = batch.entries.map((e) => e.id);
        const found = batchChanges(entity, await tx.entries(entity, ids), batch.entries);
        const byId = new Map(batch.entries.map((e) => [e.id, e]));
        await tx.write(found.map((c) => toWrite(c, byId.get(c.id)!, batch.fileOf(c.id))));
        changes.push(...found);
      }
    };
    const base = (c: EntityChange) => ({ id: c.id, ...(c.fields ? { fields: c.fields } : {}) });
    await apply("government", input.governments(), (c, g, file) => ({
      ...base(c),
      entity: "government",
      change: c.change,
      row: govRow(g, file),
    }));
    await tx.write(govRetire.gone);
    changes.push(...govRetire.gone);
    /** The URL of each source this import adds (to say one at a retired source's address). */
    const addedAt = new Map<string, string>();
    await apply("source", input.sources(), (c, s, file) => {
      if (c.change === "added") addedAt.set(c.id, s.url);
      return { ...base(c), entity: "source", change: c.change, row: sourceRow(s, file) };
    });
    await tx.write(srcRetire.gone);
    changes.push(...srcRetire.gone);
    const sameAddress = await addedWhereRetired(tx, changes, addedAt);
    const leads = await relistLeads(tx, input.leads(), at);
    // Asked last: a file written to at any time while it was read is not vouched for.
    // The importer that validated these rows is recorded whatever the files: a night may run
    // them in place of files it cannot use only when it is the same (`--or-stored-catalog`).
    await tx.stamp(opts.stamp?.unchanged() ? opts.stamp.digest : null, importerVersion());
    const touched = changes.filter((c) => c.change !== "retired").length;
    return {
      kind: "imported",
      diff: {
        changes,
        unchanged: total - touched,
        leads,
        ...(sameAddress.length > 0 ? { sameAddress } : {}),
      },
    };
  });
}

/**
 * The sources this import added at the very address (URL) of a source it retired: each pair,
 * by the retired source's stored entry.
 */
async function addedWhereRetired(
  tx: CatalogImportTx,
  changes: readonly EntityChange[],
  addedAt: ReadonlyMap<string, string>,
): Promise<{ retired: string; added: string; url: string }[]> {
  if (addedAt.size === 0) return [];
  const retired = changes
    .filter((c) => c.entity === "source" && c.change === "retired")
    .map((c) => c.id);
  if (retired.length === 0) return [];
  const byUrl = new Map<string, string[]>();
  for (const r of await tx.entries("source", retired)) {
    const url = (JSON.parse(r.entry) as { url?: unknown }).url;
    if (typeof url === "string") byUrl.set(url, [...(byUrl.get(url) ?? []), r.id]);
  }
  const out: { retired: string; added: string; url: string }[] = [];
  for (const [added, url] of addedAt)
    for (const r of byUrl.get(url) ?? []) out.push({ retired: r, added, url });
  return out.sort((x, y) => (x.added < y.added ? -1 : x.added > y.added ? 1 : 0));
}

function* inBatches<T extends { id: string }>(
  list: readonly T[],
  origins: ReadonlyMap<string, string>,
): Generator<Batch<T>> {
  const fileOf = (id: string) => origins.get(id) ?? "";
  for (let i = 0; i < list.length; i += BATCH) yield { entries: list.slice(i, i + BATCH), fileOf };
}

/** Imports a catalog already in memory (the night and `nor start` hold it to run it). */
export async function importCatalog(
  db: Db,
  catalog: Catalog,
  origins: CatalogOrigins,
  now: number,
  opts: ImportOptions = {},
): Promise<ImportOutcome> {
  const input: ImportInput = {
    governmentIds: new Set(catalog.governments.map((g) => g.id)),
    sourceIds: new Set(catalog.sources.map((s) => s.id)),
    governments: () => inBatches(catalog.governments, origins.governments),
    sources: () => inBatches(catalog.sources, origins.sources),
    *leads() {
      for (let i = 0; i < catalog.leads.length; i += BATCH) yield catalog.leads.slice(i, i + BATCH);
    },
  };
  return importCatalogInput(db, input, now, opts);
}

/**
 * Catalog files validated and about to be imported, as `open` is told of them: it may refuse
 * them (throw) before anything is written (`nor catalog import` beside a running night).
 */
export interface ImportOfFiles {
  files: readonly string[];
  /** Their stamp, taken before they were read. */
  stamp: CatalogStamp | undefined;
  /** Their sources, as validated. */
  sources(): Iterable<Source>;
}

/**
 * `nor catalog import FILE…`: reads and validates the files once, piece by piece (a broken
 * catalog never half-imports, and the store is not opened before it is known good: `open` is
 * called after), holding the validated entries, not the YAML, as a night does; then imports
 * exactly those. A file written to after it was read changes nothing of what is imported: the
 * files are never read a second time (the stamp, which vouches for the bytes read, is then not
 * recorded, so the next night reads them again). docs/benchmarks.md "The catalog import's
 * memory".
 */
export async function importCatalogFiles(
  files: readonly string[],
  open: (importing: ImportOfFiles) => Promise<{ db: Db; close(): Promise<void> }>,
  now: () => number,
  opts: ImportOptions = {},
): Promise<ImportOutcome> {
  // Taken before the files are read: what was read afterwards is what it vouches for.
  const stamp = stampCatalogFiles(files);
  const { catalog, origins } = loadCatalogWithFiles([...files]);
  const store = await open({ files, stamp, sources: () => catalog.sources });
  try {
    return await importCatalog(store.db, catalog, origins, now(), { ...opts, stamp });
  } finally {
    await store.close();
  }
}

/** How many governments and sources an import added, changed, retired and un-retired. */
export function diffCounts(
  d: ImportDiff,
): Record<"governments" | "sources", Record<CatalogChangeKind, number>> {
  const of = (entity: EntityChange["entity"]) => {
    const n: Record<CatalogChangeKind, number> = { added: 0, changed: 0, retired: 0, unretired: 0 };
    for (const c of d.changes) if (c.entity === entity) n[c.change]++;
    return n;
  };
  return { governments: of("government"), sources: of("source") };
}

/**
 * The diff in one line for a person (`nor night` on a terminal): what changed, by kind, and
 * the sources retired by name (the first ten), so a partial catalog never passes as a number.
 */
export function diffLine(d: ImportDiff): string {
  const counts = diffCounts(d);
  const part = (name: string, n: Record<CatalogChangeKind, number>) => {
    const said = (["added", "changed", "retired", "unretired"] as const)
      .filter((k) => n[k] > 0)
      .map((k) => `${n[k]} ${k === "unretired" ? "un-retired" : k}`);
    return said.length ? `${name} ${said.join(", ")}` : undefined;
  };
  const retired = d.changes.filter((c) => c.entity === "source" && c.change === "retired");
  const names = retired.slice(0, 10).map((c) => c.id);
  if (retired.length > names.length) names.push(`and ${retired.length - names.length} more`);
  const same = (d.sameAddress ?? []).map((p) => `${p.retired} → ${p.added}`);
  return [
    [part("sources", counts.sources), part("governments", counts.governments)]
      .filter((x) => x !== undefined)
      .join("; ") || "nothing changed",
    names.length ? ` (sources retired: ${names.join(", ")})` : "",
    same.length
      ? ` (new at a retired source's address: ${same.join(", ")}; a new id's history starts afresh, its first read listing every record as already there)`
      : "",
  ].join("");
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
  for (const p of d.sameAddress ?? [])
    lines.push(
      `! source ${p.added} is new at the address of ${p.retired}, retired (${p.url}): a new id's history starts afresh, its first read listing every record as already there, none as new; keep the id ${p.retired} to keep its history`,
    );
  lines.push(`${d.unchanged} unchanged`);
  lines.push(
    `leads: ${d.leads.listed} listed (${d.leads.added} added, ${d.leads.removed} no longer listed)`,
  );
  return `${lines.join("\n")}\n`;
}
