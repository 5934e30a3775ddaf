/**
 * The sources a night runs, read from the store instead of the catalog files (docs/benchmarks.md "A night's memory": a
 * night of 20,000 sources need not parse, validate and hold them all). After an import the
 * sources in use (not retired) are exactly the catalog's, each with its whole entry as
 * validated (`sources.entry`, the canonical JSON the import compares); the catalog stamp
 * (src/sources/catalog/stamp.ts) says whether files named on a command line are the ones last
 * imported, so a night can skip reading them.
 */
import type { Db } from "./db.js";
import { dialectOf } from "./dialect-of.js";
import { type Placeholder, type Prepared, prepared } from "./prepared.js";

/** What the plan needs of a source in use: its id, government and URL (its site). */
export interface SourceRef {
  id: string;
  government: string;
  url: string;
}

/** The stamp of the catalog files last imported, when that import recorded one. */
export async function catalogStampOf(db: Pick<Db, "selectFrom">): Promise<string | undefined> {
  const row = await db
    .selectFrom("catalog_stamp")
    .select("digest")
    .where("id", "=", 1)
    .executeTakeFirst();
  return row?.digest ?? undefined;
}

/**
 * The sources in use, in id order. With `stamp`: only when the store's catalog stamp is that
 * one, read in the same snapshot (an import committed in between cannot mix two catalogs);
 * undefined otherwise.
 */
export async function sourcesInUse(
  db: Db,
  opts: { stamp?: string } = {},
): Promise<SourceRef[] | undefined> {
  const read = async (tx: Pick<Db, "selectFrom">) => {
    if (opts.stamp !== undefined && (await catalogStampOf(tx)) !== opts.stamp) return undefined;
    const rows = await tx
      .selectFrom("sources")
      .select(["id", "government_id as government", "url"])
      .where("retired_at", "is", null)
      .orderBy("id")
      .execute();
    // One string per government, not one per row: the night holds these all night.
    const governments = new Map<string, string>();
    for (const r of rows) {
      const g = governments.get(r.government);
      if (g === undefined) governments.set(r.government, r.government);
      else r.government = g;
    }
    return rows;
  };
  // One snapshot: SQLite's read transaction holds one from its first read; PostgreSQL's
  // REPEATABLE READ holds one for the transaction.
  const txn = db.transaction();
  return dialectOf(db) === "postgres"
    ? txn.setIsolationLevel("repeatable read").execute(read)
    : txn.execute(read);
}

/**
 * Whether the store's sources in use may be run in place of catalog files a night cannot use
 * (`nor night --or-stored-catalog`): there are some, and the importer that validated them is
 * `importer`, this build's (an older build's import may hold what this one refuses: a key in a
 * URL, a rule added since).
 */
export async function storedSourcesRunnable(
  db: Pick<Db, "selectFrom">,
  importer: string,
): Promise<boolean> {
  const stamp = await db
    .selectFrom("catalog_stamp")
    .select("importer")
    .where("id", "=", 1)
    .executeTakeFirst();
  if (stamp?.importer !== importer) return false;
  const row = await db
    .selectFrom("sources")
    .select("id")
    .where("retired_at", "is", null)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Ids per statement: well under SQLite's and PostgreSQL's parameter limits. */
const IDS_PER_STATEMENT = 500;

/**
 * The whole catalog entries (JSON text, as the import stored them) of these sources, retired
 * or not (a row is never deleted), in no particular order.
 */
export async function sourceEntries(
  db: Db,
  ids: readonly string[],
): Promise<{ id: string; entry: string }[]> {
  // A lane's few sources (most sites have one to a few): a statement built once per count.
  if (ids.length > 0 && ids.length <= FEW) return entriesOf(ids.length).rows(db, idArgs(ids));
  const out: { id: string; entry: string }[] = [];
  for (let i = 0; i < ids.length; i += IDS_PER_STATEMENT) {
    const part = ids.slice(i, i + IDS_PER_STATEMENT);
    out.push(
      ...(await db.selectFrom("sources").select(["id", "entry"]).where("id", "in", part).execute()),
    );
  }
  return out;
}

/** Up to this many ids are looked up by a statement built once for their count. */
const FEW = 16;
type IdArgs = Record<string, string>;
const fewEntries = new Map<number, Prepared<IdArgs, { id: string; entry: string }>>();

function entriesOf(n: number): Prepared<IdArgs, { id: string; entry: string }> {
  let p = fewEntries.get(n);
  if (p === undefined) {
    p = prepared((db, $: Placeholder<IdArgs>) =>
      db
        .selectFrom("sources")
        .select(["id", "entry"])
        .where(
          "id",
          "in",
          Array.from({ length: n }, (_, i) => $(`id${i}`)),
        ),
    );
    fewEntries.set(n, p);
  }
  return p;
}

function idArgs(ids: readonly string[]): IdArgs {
  const out: IdArgs = {};
  ids.forEach((id, i) => {
    out[`id${i}`] = id;
  });
  return out;
}

/**
 * Each source in use (not retired) with its whole entry as last imported (`sources.entry`, the
 * canonical JSON the import compares), in id order: what a second `nor night` joining a running
 * night compares its catalog with (night.ts).
 */
export async function sourceEntriesInUse(
  db: Pick<Db, "selectFrom">,
): Promise<{ id: string; entry: string }[]> {
  return db
    .selectFrom("sources")
    .select(["id", "entry"])
    .where("retired_at", "is", null)
    .orderBy("id")
    .execute();
}
