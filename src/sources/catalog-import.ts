/**
 * `nor catalog import`: the validated catalog into the store, as a diff. Added rows are
 * inserted; changed rows updated; a source (or government) no longer in the catalog is
 * retired with the time — never deleted, so its nights and records keep their history —
 * and one that comes back is un-retired. A source whose id alone was renamed (the one source an
 * import retires, and the one it adds or un-retires, reading that list the very same way:
 * `renameIn`) has its history moved to its new id (P6). Every change is kept in
 * catalog_changes. The diff is
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
 * its old id retired and its new one added or un-retired).
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
  /**
   * Sources added by this import at the address of one it retired (an id renamed, as often as
   * not): the new id's history starts afresh, its first read listing every record as already
   * there. Said, so the operator may keep the old id instead. Absent when there is none.
   */
  sameAddress?: SameAddress[];
}

/**
 * A source added (or, `unretired`, put back) at the address of one the import retired, and not
 * taken for it renamed (P6: the pairing was not certain, or the one put back has a history of
 * its own): the retired id's history stays under it.
 */
export interface SameAddress {
  retired: string;
  added: string;
  url: string;
  /** The source was un-retired, not added: it goes on with its own history, not the other's. */
  unretired?: true;
  /** P24: the retired source was marked not read, and its marks came with the address. */
  notRead?: true;
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
  /** Asked twice by an import that retires exactly one source: once for a rename, once to write. */
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
 * or mapping, its alternates). Two sources with the same are the same list read the same way.
 */
function listKey(entry: object): string {
  const { id, name, evidence, notes, confirmed, backfill, ...reads } = entry as Record<
    string,
    unknown
  >;
  return canonical(reads);
}

/** The addresses a source's entry reads: its way in's and its alternates'. */
function addressesOf(entry: object): string[] {
  const e = entry as { url?: unknown; alternates?: unknown };
  const ways = [e, ...(Array.isArray(e.alternates) ? (e.alternates as { url?: unknown }[]) : [])];
  return ways.map((w) => w.url).filter((u): u is string => typeof u === "string");
}

/**
 * P6: whether the one source this import retires (`retiredId`) was only renamed, and to what.
 * Only when it cannot be anything else: exactly one source the import adds or un-retires, of
 * the same government and kind of records, reading the list the very same way (`listKey`: only
 * its id, name, notes, evidence, confirmed and backfill may differ); no other source of the
 * catalog reading any of its addresses; and the new id without a history of its own (a row
 * under it in any table the move writes: records, nights, page reads, marks, flags, backfill,
 * the night's copy of its entry; an id that has one keeps it, and nothing is moved). Asked
 * only of an import that retires exactly one source; the catalog's entries are passed over once
 * more, a batch's rows looked up together. Undefined: no rename (the import is as it always was,
 * and an added source at the retired one's address is said, `sameAddress`).
 */
async function renameIn(
  tx: CatalogImportTx,
  input: ImportInput,
  retiredId: string,
): Promise<Rename | undefined> {
  const [retired] = await tx.entries("source", [retiredId]);
  if (retired === undefined) return undefined;
  const old = JSON.parse(retired.entry) as object;
  const key = listKey(old);
  const addresses = new Set(addressesOf(old));
  const takers: Source[] = [];
  const reading = new Set<string>();
  for (const batch of input.sources()) {
    const rows = new Map(
      (
        await tx.entries(
          "source",
          batch.entries.map((s) => s.id),
        )
      ).map((r) => [r.id, r]),
    );
    for (const s of batch.entries) {
      const row = rows.get(s.id);
      if (row === undefined || row.retired_at !== null) takers.push(s);
      if (addressesOf(s).some((u) => addresses.has(u))) reading.add(s.id);
      if (takers.length > 1) return undefined;
    }
  }
  const taker = takers[0];
  if (taker === undefined || listKey(taker) !== key) return undefined;
  // Every source of the catalog reading one of its addresses is the taker itself.
  if (reading.size !== 1 || !reading.has(taker.id)) return undefined;
  if (await tx.hasHistory(taker.id)) return undefined;
  return { from: retiredId, to: taker.id };
}

/** The diff with a rename said once (`renamed`, where the added id was), not as two changes. */
function sayRename(changes: readonly EntityChange[], rename: Rename | undefined): EntityChange[] {
  if (rename === undefined) return [...changes];
  const out: EntityChange[] = [];
  for (const c of changes) {
    if (c.entity !== "source") out.push(c);
    else if (c.change === "retired" && c.id === rename.from) continue;
    else if ((c.change === "added" || c.change === "unretired") && c.id === rename.to)
      out.push({ entity: "source", id: c.id, change: "renamed", from: rename.from });
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
 * first (the rows in use whose ids the catalog lacks), and whether the one retired, if one, was
 * only renamed, so the guard stops an import before it writes anything; then each batch is
 * compared with its rows and written; then the retirements, and a renamed source's history
 * moved to its new id. Memory holds the ids and one batch, never the whole catalog twice over.
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
    // P6: known before the first write too, for the guard: an id renamed retires no list.
    const rename =
      srcRetire.gone.length === 1 ? await renameIn(tx, input, srcRetire.gone[0]!.id) : undefined;
    if (opts.allowRetire !== true) {
      const retire = tooManyRetired(
        srcRetire.active,
        srcRetire.gone.filter((c) => c.id !== rename?.from),
      );
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
    /**
     * The URL of each source this import adds or puts back (to say one at a retired source's
     * address), kept only when it retires one: a first import of 20,000 keeps none.
     */
    const addedAt = new Map<string, { url: string; unretired: boolean }>();
    const retires = srcRetire.gone.length > 0;
    await apply("source", input.sources(), (c, s, file) => {
      if (retires && (c.change === "added" || c.change === "unretired"))
        addedAt.set(c.id, { url: s.url, unretired: c.change === "unretired" });
      return { ...base(c), entity: "source", change: c.change, row: sourceRow(s, file) };
    });
    await tx.write(srcRetire.gone);
    changes.push(...srcRetire.gone);
    // Written as an id retired and one added (catalog_changes keeps when each was listed), the
    // old id's history moved to the new one in the same transaction.
    if (rename !== undefined) await tx.moveHistory(rename);
    // A source put back after it was renamed away takes its id back from the records that carry
    // it as the one they were first listed under (no two records share a feed entry's name).
    await tx.letFirstSourceIdsGo();
    if (rename !== undefined) addedAt.delete(rename.to);
    const sameAddress = await addedWhereRetired(tx, changes, addedAt);
    // P24: a person's "not read" under the retired id holds for whatever reads its address now
    // (the site said no to that page): its marks come with it, the later of both ids' in force.
    for (const p of sameAddress) if (await tx.carryNotRead(p.retired, p.added)) p.notRead = true;
    const leads = await relistLeads(tx, input.leads(), at);
    // Asked last: a file written to at any time while it was read is not vouched for.
    // The importer that validated these rows is recorded whatever the files: a night may run
    // them in place of files it cannot use only when it is the same (`--or-stored-catalog`).
    await tx.stamp(opts.stamp?.unchanged() ? opts.stamp.digest : null, importerVersion());
    const touched = changes.filter((c) => c.change !== "retired").length;
    return {
      kind: "imported",
      diff: {
        changes: sayRename(changes, rename),
        unchanged: total - touched,
        leads,
        ...(sameAddress.length > 0 ? { sameAddress } : {}),
      },
    };
  });
}

/**
 * The sources this import added or un-retired at the very address (URL) of a source it retired
 * (and did not take for it renamed): each pair, by the retired source's stored entry.
 */
async function addedWhereRetired(
  tx: CatalogImportTx,
  changes: readonly EntityChange[],
  addedAt: ReadonlyMap<string, { url: string; unretired: boolean }>,
): Promise<SameAddress[]> {
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
  const out: SameAddress[] = [];
  for (const [added, { url, unretired }] of addedAt)
    for (const r of byUrl.get(url) ?? [])
      out.push({ retired: r, added, url, ...(unretired ? { unretired: true as const } : {}) });
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
 * The diff in one line for a person (`nor night` on a terminal): what changed, by kind, and
 * the sources retired by name (the first ten), so a partial catalog never passes as a number.
 */
export function diffLine(d: ImportDiff): string {
  const counts = diffCounts(d);
  const part = (name: string, n: Record<DiffChangeKind, number>) => {
    const said = (["added", "changed", "retired", "unretired", "renamed"] as const)
      .filter((k) => n[k] > 0)
      .map((k) => `${n[k]} ${k === "unretired" ? "un-retired" : k}`);
    return said.length ? `${name} ${said.join(", ")}` : undefined;
  };
  const retired = d.changes.filter((c) => c.entity === "source" && c.change === "retired");
  const names = retired.slice(0, 10).map((c) => c.id);
  if (retired.length > names.length) names.push(`and ${retired.length - names.length} more`);
  const pair = (p: SameAddress) =>
    `${p.retired} → ${p.added}${p.notRead ? " (marked not read with it)" : ""}`;
  const same = (d.sameAddress ?? []).filter((p) => !p.unretired).map(pair);
  const back = (d.sameAddress ?? []).filter((p) => p.unretired).map(pair);
  const renamed = d.changes
    .filter((c) => c.entity === "source" && c.change === "renamed")
    .map((c) => `${c.from} → ${c.id}`);
  return [
    [part("sources", counts.sources), part("governments", counts.governments)]
      .filter((x) => x !== undefined)
      .join("; ") || "nothing changed",
    names.length ? ` (sources retired: ${names.join(", ")})` : "",
    renamed.length ? ` (sources renamed, history moved: ${renamed.join(", ")})` : "",
    same.length
      ? ` (new at a retired source's address: ${same.join(", ")}; a new id's history starts afresh, its first read listing every record as already there)`
      : "",
    back.length
      ? ` (back at a retired source's address, its own history going on, the retired one's not moved: ${back.join(", ")})`
      : "",
  ].join("");
}

/** What a source added or put back at a retired one's address means (`sameAddress`). */
export function sameAddressText(p: SameAddress): string {
  return (
    sameAddressHistory(p) +
    (p.notRead
      ? `; ${p.retired} was marked not read, and ${p.added} is marked so with it (\`nor mark ${p.added} --read\` undoes it)`
      : "")
  );
}

function sameAddressHistory(p: SameAddress): string {
  return p.unretired
    ? `source ${p.added} is back at the address of ${p.retired}, retired (${p.url}): it goes on with its own history, not ${p.retired}'s (not moved: ${p.added} has a history of its own, or the rename was not certain), so records ${p.retired} listed may be new again under ${p.added}; keep the id ${p.retired} to keep its history`
    : `source ${p.added} is new at the address of ${p.retired}, retired (${p.url}): a new id's history starts afresh, its first read listing every record as already there, none as new; keep the id ${p.retired} to keep its history`;
}

/** The diff as `nor catalog import` prints it. */
export function formatDiff(d: ImportDiff): string {
  const count = (entity: string, change: string) =>
    d.changes.filter((c) => c.entity === entity && c.change === change).length;
  const lines: string[] = [];
  for (const entity of ["government", "source"] as const) {
    // A rename said only when there is one: the line reads as it always has otherwise.
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
    // "> source old-id → new-id renamed (history moved)"
    if (c.change === "renamed")
      lines.push(`> ${c.entity} ${c.from} → ${c.id} renamed (history moved)${fields}`);
    else lines.push(`${mark[c.change]} ${c.entity} ${c.id} ${c.change}${fields}`);
  }
  for (const p of d.sameAddress ?? []) lines.push(`! ${sameAddressText(p)}`);
  lines.push(`${d.unchanged} unchanged`);
  lines.push(
    `leads: ${d.leads.listed} listed (${d.leads.added} added, ${d.leads.removed} no longer listed)`,
  );
  return `${lines.join("\n")}\n`;
}
