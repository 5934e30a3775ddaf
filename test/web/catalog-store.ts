import { parseCatalog } from "../../src/sources/catalog/load.js";
import type { Catalog } from "../../src/sources/catalog/types.js";
import { importCatalog } from "../../src/sources/catalog-import.js";
import type { Db } from "../../src/store/db.js";
import { SqlNightStore } from "../../src/store/night-store.js";

/** `yaml` (a catalog, as catalog.yaml) imported into `db` at `at`, every entry from that file. */
export async function importYaml(db: Db, yaml: string, at: number): Promise<Catalog> {
  const cat = parseCatalog(yaml, "catalog.yaml");
  await importCatalog(
    db,
    cat,
    {
      governments: new Map(cat.governments.map((g) => [g.id, "catalog.yaml"])),
      sources: new Map(cat.sources.map((s) => [s.id, "catalog.yaml"])),
    },
    at,
  );
  return cat;
}

/** Night `night` opened at `at` (a six-hour deadline) over every source of `cat`, each on its URL's origin. */
export async function nightOver(
  db: Db,
  night: string,
  at: number,
  cat: Catalog,
): Promise<SqlNightStore> {
  const store = new SqlNightStore(db);
  await store.openNight(night, at, at + 6 * 3_600_000);
  await store.syncSources(
    cat.sources.map((s) => ({
      id: s.id,
      government: s.government,
      url: s.url,
      site: new URL(s.url).origin,
    })),
    at,
  );
  return store;
}
