/**
 * A catalog is never imported beside a running night when it would change the sources that
 * night runs. A night reads its sources from the store as it reaches them (compose.ts): a
 * source retired under it would still be asked (its lane planned), one added would not be, and
 * a changed way in would reach it midway. So every command that imports catalog files into a
 * data directory looks first whether a live `nor night` runs there (its mark, night-runners.ts)
 * and, when one does, compares the files' sources with those in use: `nor night` joining a
 * running night (night.ts), `nor catalog import` and `nor start` (lockForCatalogImport). The
 * same sources, each with the same entry, may be imported (a government's name, a lead: the
 * night reads neither); anything else is refused (exit 2), naming the night, the data
 * directory and what differs, and nothing is written.
 */
import { NorError } from "../errors.js";
import type { CatalogStamp } from "../sources/catalog/stamp.js";
import type { Source } from "../sources/catalog/types.js";
import { nightsLiveInStore } from "../store/admin.js";
import { catalogStampOf, sourceEntriesInUse } from "../store/catalog-sources.js";
import type { Db, Store } from "../store/db.js";
import { markedElsewhere, nightsRunning } from "./night-runners.js";
import { acquireOpeningLock } from "./opening-lock.js";

/** Catalog files about to be imported into a data directory. */
export interface CatalogBesideNight {
  /** The data directory (where the nights' marks and the opening lock are). */
  dataDir: string;
  /** The files as the command named them. */
  files: readonly string[];
  /** Their stamp, taken before they were read (catalog/stamp.ts); undefined when unreadable. */
  stamp: CatalogStamp | undefined;
  /** The sources the files list: read only when they must be compared. */
  sources(): Iterable<Source> | Promise<Iterable<Source>>;
  /** What the person can do instead, said after the refusal (the command's own words). */
  instead: string;
  /** Now, to say which live marks were made under another path of the directory (a copy's). */
  now?: number;
}

/**
 * Throws a NorError (exit 2) when the files list other sources than those in use, or the same
 * with another entry, since live processes run `night` on the data directory. Files that are,
 * byte for byte, the ones last imported (their stamp is the store's) are not read again.
 */
export async function refuseCatalogBesideNight(
  db: Db,
  night: string,
  o: CatalogBesideNight,
): Promise<void> {
  if (o.stamp !== undefined && (await catalogStampOf(db)) === o.stamp.digest && o.stamp.unchanged())
    return;
  // Loaded only here: a night of the files last imported loads no catalog code.
  const { sourcesDiffer } = await import("../sources/catalog-import.js");
  const differ = sourcesDiffer(await sourceEntriesInUse(db), await o.sources());
  if (differ.length === 0) return;
  throw new NorError(
    "E_CONFIG",
    `night ${night} is being run on ${o.dataDir} by another process${o.now !== undefined ? markedElsewhere(o.dataDir, o.now) : ""}, with other sources than ${o.files.join(", ")} lists (${differ.join("; ")}): not importing a different catalog beside a running night (its sources would change under it); ${o.instead}`,
  );
}

/**
 * Takes the opening lock (opening-lock.ts) for an import of catalog files by a command that runs
 * no night itself (`nor catalog import`, `nor start`), and refuses the import, the lock given
 * back, when a live night runs on the data directory and the files would change its sources.
 * Held until the import is written, so no night opens between the look and the import. Returns
 * the release.
 */
export async function lockForCatalogImport(
  store: Pick<Store, "db" | "dialect">,
  /** Now on the system's clock: the marks' processes are judged by it. */
  now: number,
  o: CatalogBesideNight,
): Promise<() => Promise<void>> {
  const release = await acquireOpeningLock(store, o.dataDir);
  try {
    // Marks here; with PostgreSQL, the store's leases too (a night run from another data
    // directory or machine on the same store).
    const running =
      nightsRunning(o.dataDir, now)[0]?.night ??
      (store.dialect === "postgres" ? (await nightsLiveInStore(store.db, now))[0] : undefined);
    if (running !== undefined) await refuseCatalogBesideNight(store.db, running, { ...o, now });
    return release;
  } catch (err) {
    await release();
    throw err;
  }
}
