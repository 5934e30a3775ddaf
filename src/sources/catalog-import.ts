/**
 * `nor catalog import`: the validated catalog into the store, as a diff. Added rows are
 * inserted; changed rows updated; a source (or government) no longer in the catalog is
 * retired with the time — never deleted, so its nights and records keep their history —
 * and one that comes back is un-retired. A source whose id alone was renamed (the one retired
 * and the one added of a government that read the same list the same way: `renamesOf`) is
 * both, and continues the old id's history (P6). Every change is kept in catalog_changes. The
 * diff is decided here; the SQL is `src/store/catalog-import.ts`. Leads (record pages not read
 * yet) have no id and no history: they are listed anew, and the diff counts those added and
 * gone.
 */
import {
  type CatalogEntryState,
  type CatalogImportTx,
  type CatalogWrite,
  type GovernmentFields,
  type LeadFields,
  type LeadState,
  type Rename,
  type SourceFields,
  withCatalogImport,
} from "../store/catalog-import.js";
import type { Db } from "../store/db.js";
import type { CatalogChangeKind } from "../store/schema/sources.js";
import { type CatalogOrigins, loadCatalogWithFiles } from "./catalog/load.js";
import { type CatalogStamp, importerVersion, stampCatalogFiles } from "./catalog/stamp.js";
import type { Catalog, Government, Lead, Source } from "./catalog/types.js";

/**
 * A change as the diff says it: as catalog_changes keeps it, or a source renamed (kept there as
 * its old id retired and its new one added, and in renamed_sources).
 */
export type DiffChangeKind = CatalogChangeKind | "renamed";

export interface EntityChange {
  entity: "government" | "source";
  /** For "renamed": the new id. */
  id: string;
  change: DiffChangeKind;
  /** For "changed" (and an un-retire that also changed): the fields that differ. */
  fields?: string[];
  /** For "renamed": the id it had. */
  from?: string;
}

export interface ImportDiff {
  changes: EntityChange[];
  unchanged: number;
  /** Leads listed now that were not before, and listed before but no longer. */
  leads: { added: number; removed: number; listed: number };
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
  /** Asked twice by an import that retires a source: once for its renames, once to write. */
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

/**
 * What a source reads: its entry without what only names or describes it (its id, name,
 * evidence, notes, whether a person confirmed it) or how far back it reads (backfill): its
 * government, its kind of records and its ways in (each's access, address, platform, recipe
 * or mapping), in that order. Two sources with the same are the same list read the same way.
 */
function listKey(entry: object): string {
  const { id, name, evidence, notes, confirmed, backfill, ...reads } = entry as Record<
    string,
    unknown
  >;
  return canonical(reads);
}

/**
 * A source of the catalog that might take a retired source's list: one the import adds (in the
 * store under no id), one it un-retires, or one in use whose entry now reads another list.
 */
export interface Taker {
  id: string;
  key: string;
  as: "added" | "unretired" | "changed";
}

/**
 * P6: the sources an import renamed: a source retired and one added or un-retired whose entries
 * read the same list the same way (`listKey`), each the only one of its import to do so. Two
 * retired, or two taking the list (added, un-retired, or changed to read it), are no rename
 * (which would be which is not known): they stay retired, added and un-retired, the added one's
 * first read a first read (P7). An un-retired source paired so is an id renamed back (A → B → A):
 * it takes up what the retired one saw since (`back`), so nothing is new twice and a person's
 * mark holds.
 */
export function renamesOf(
  retired: readonly { id: string; entry: string }[],
  takers: readonly Taker[],
): Rename[] {
  const gone = new Map<string, string[]>();
  for (const r of retired) {
    const key = listKey(JSON.parse(r.entry));
    gone.set(key, [...(gone.get(key) ?? []), r.id]);
  }
  const by = new Map<string, Taker[]>();
  for (const t of takers) by.set(t.key, [...(by.get(t.key) ?? []), t]);
  const out: Rename[] = [];
  for (const [key, ts] of by) {
    const from = gone.get(key);
    const t = ts[0]!;
    if (ts.length !== 1 || from?.length !== 1 || t.as === "changed") continue;
    out.push({ from: from[0]!, to: t.id, ...(t.as === "unretired" ? { back: true } : {}) });
  }
  return out;
}

/**
 * The renames of an import (`renamesOf`), before it writes: the entries of the sources it
 * retires, and those of the sources that might take their lists (`Taker`). Asked only of an
 * import that retires a source; the catalog's entries are passed over once more, in memory, a
 * batch's rows looked up together.
 */
async function renamesIn(
  tx: CatalogImportTx,
  input: ImportInput,
  gone: readonly EntityChange[],
): Promise<Rename[]> {
  const retired = await tx.entries(
    "source",
    gone.map((c) => c.id),
  );
  const wanted = new Set(retired.map((r) => listKey(JSON.parse(r.entry))));
  const takers: Taker[] = [];
  for (const batch of input.sources()) {
    const reading = batch.entries.filter((s) => wanted.has(listKey(s)));
    if (reading.length === 0) continue;
    const rows = new Map(
      (
        await tx.entries(
          "source",
          reading.map((s) => s.id),
        )
      ).map((r) => [r.id, r]),
    );
    for (const s of reading) {
      const key = listKey(s);
      const row = rows.get(s.id);
      if (row === undefined) takers.push({ id: s.id, key, as: "added" });
      else if (row.retired_at !== null) takers.push({ id: s.id, key, as: "unretired" });
      else if (listKey(JSON.parse(row.entry)) !== key)
        takers.push({ id: s.id, key, as: "changed" });
    }
  }
  return renamesOf(retired, takers);
}

/** The diff with each rename said once (`renamed`, where the added id was), not as two changes. */
function sayRenames(changes: readonly EntityChange[], renames: readonly Rename[]): EntityChange[] {
  if (renames.length === 0) return [...changes];
  const to = new Map(renames.map((r) => [r.to, r.from]));
  const from = new Set(renames.map((r) => r.from));
  const out: EntityChange[] = [];
  for (const c of changes) {
    if (c.entity !== "source") out.push(c);
    else if (c.change === "retired" && from.has(c.id)) continue;
    else if ((c.change === "added" || c.change === "unretired") && to.has(c.id))
      out.push({ entity: "source", id: c.id, change: "renamed", from: to.get(c.id)! });
    else out.push(c);
  }
  return out;
}

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
 * first (the rows in use whose ids the catalog lacks), and which of them are renames, so the
 * guard stops an import before it writes anything; then each batch is compared with its rows
 * and written; then the retirements, and each renamed source's history carried over to its new
 * id. Memory holds the ids and one batch, never the whole catalog twice over.
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
        active,
        gone: gone.map((id) => ({ entity, id, change: "retired" as const })),
      };
    };
    const govRetire = await retiring("government", input.governmentIds);
    const srcRetire = await retiring("source", input.sourceIds);
    // P6: known before the first write too, for the guard: an id renamed retires no list.
    const renames = srcRetire.gone.length > 0 ? await renamesIn(tx, input, srcRetire.gone) : [];
    if (opts.allowRetire !== true) {
      const renamed = new Set(renames.map((r) => r.from));
      const active = srcRetire.active.length;
      const retire = tooManyRetired(
        active,
        srcRetire.gone.filter((c) => !renamed.has(c.id)),
      );
      // Known before the first write: nothing is written.
      if (retire) return { kind: "too-many-retired", active, retire };
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
    await apply("source", input.sources(), (c, s, file) => ({
      ...base(c),
      entity: "source",
      change: c.change,
      row: sourceRow(s, file),
    }));
    await tx.write(srcRetire.gone);
    changes.push(...srcRetire.gone);
    // Written as an id retired and one added (catalog_changes keeps when each was listed), the
    // new one continuing the old one's history in the same transaction.
    if (renames.length > 0) await tx.carryOver(renames);
    const leads = await relistLeads(tx, input.leads(), at);
    // Asked last: a file written to at any time while it was read is not vouched for.
    // The importer that validated these rows is recorded whatever the files: a night may run
    // them in place of files it cannot use only when it is the same (`--or-stored-catalog`).
    await tx.stamp(opts.stamp?.unchanged() ? opts.stamp.digest : null, importerVersion());
    const touched = changes.filter((c) => c.change !== "retired").length;
    return {
      kind: "imported",
      diff: { changes: sayRenames(changes, renames), unchanged: total - touched, leads },
    };
  });
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

/** How many governments and sources an import added, changed, retired, un-retired and renamed. */
export function diffCounts(
  d: ImportDiff,
): Record<"governments" | "sources", Record<DiffChangeKind, number>> {
  const of = (entity: EntityChange["entity"]) => {
    const n: Record<DiffChangeKind, number> = {
      added: 0,
      changed: 0,
      retired: 0,
      unretired: 0,
      renamed: 0,
    };
    for (const c of d.changes) if (c.entity === entity) n[c.change]++;
    return n;
  };
  return { governments: of("government"), sources: of("source") };
}

/**
 * The diff in one line for a person (`nor night` on a terminal): what changed, by kind, the
 * sources retired by name (the first ten), so a partial catalog never passes as a number, and
 * the sources renamed (the first ten), so a rename is not taken for a source retired and another
 * added.
 */
export function diffLine(d: ImportDiff): string {
  const counts = diffCounts(d);
  const part = (name: string, n: Record<DiffChangeKind, number>) => {
    const said = (["added", "changed", "retired", "unretired", "renamed"] as const)
      .filter((k) => n[k] > 0)
      .map((k) => `${n[k]} ${k === "unretired" ? "un-retired" : k}`);
    return said.length ? `${name} ${said.join(", ")}` : undefined;
  };
  const named = (change: DiffChangeKind, name: (c: EntityChange) => string) => {
    const all = d.changes.filter((c) => c.entity === "source" && c.change === change);
    const names = all.slice(0, 10).map(name);
    if (all.length > names.length) names.push(`and ${all.length - names.length} more`);
    return names;
  };
  const retired = named("retired", (c) => c.id);
  const renamed = named("renamed", (c) => `${c.from} → ${c.id}`);
  return [
    [part("sources", counts.sources), part("governments", counts.governments)]
      .filter((x) => x !== undefined)
      .join("; ") || "nothing changed",
    retired.length ? ` (sources retired: ${retired.join(", ")})` : "",
    renamed.length ? ` (sources renamed: ${renamed.join(", ")})` : "",
  ].join("");
}

/** The diff as `nor catalog import` prints it. */
export function formatDiff(d: ImportDiff): string {
  const count = (entity: string, change: string) =>
    d.changes.filter((c) => c.entity === entity && c.change === change).length;
  const lines: string[] = [];
  for (const entity of ["government", "source"] as const) {
    // Renames said only when there are some: the line reads as it always has otherwise.
    const renamed = count(entity, "renamed");
    lines.push(
      `${entity}s: ${count(entity, "added")} added, ${count(entity, "changed")} changed, ${count(entity, "retired")} retired, ${count(entity, "unretired")} un-retired${renamed > 0 ? `, ${renamed} renamed` : ""}`,
    );
  }
  const mark: Record<DiffChangeKind, string> = {
    added: "+",
    changed: "~",
    retired: "-",
    unretired: "^",
    renamed: ">",
  };
  for (const c of d.changes) {
    const fields = c.fields?.length ? ` (${c.fields.join(", ")})` : "";
    // "> source old-id → new-id renamed (history carried over)"
    const id = c.change === "renamed" ? `${c.from} → ${c.id}` : c.id;
    const carried = c.change === "renamed" ? " (history carried over)" : "";
    lines.push(`${mark[c.change]} ${c.entity} ${id} ${c.change}${fields}${carried}`);
  }
  lines.push(`${d.unchanged} unchanged`);
  lines.push(
    `leads: ${d.leads.listed} listed (${d.leads.added} added, ${d.leads.removed} no longer listed)`,
  );
  return `${lines.join("\n")}\n`;
}
