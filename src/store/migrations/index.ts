import type { Migration, MigrationProvider } from "kysely";
import * as m001 from "./001-log.js";
import * as m002 from "./002-night.js";
import * as m003 from "./003-archive.js";
import * as m004 from "./004-sources.js";
import * as m005 from "./005-console.js";
import * as m006 from "./006-journal.js";
import * as m010 from "./010-search-and-read-indexes.js";
import * as m011 from "./011-console-read-indexes.js";
import * as m012 from "./012-leads.js";
import * as m013 from "./013-page-reads.js";
import * as m014 from "./014-page-read-ids.js";
import * as m015 from "./015-catalog-stamp.js";
import * as m016 from "./016-lighter-night-writes.js";
import * as m017 from "./017-night-user-agent.js";
import * as m018 from "./018-record-instant.js";
import * as m019 from "./019-owners-requests-left-alone.js";
import * as m020 from "./020-store-identity.js";
import * as m021 from "./021-already-listed.js";
import * as m022 from "./022-record-first-id.js";
import * as m023 from "./023-new-by-night-index.js";
import * as m024 from "./024-mapped-ipv4-sites.js";
import * as m025 from "./025-night-catalog-note.js";
import * as m026 from "./026-record-first-source.js";
import * as m027 from "./027-source-renamed-to.js";
import * as m028 from "./028-record-changed-at.js";
import * as m029 from "./029-backfill-end.js";
import * as m030 from "./030-backfill-restart.js";
import * as m031 from "./031-site-down.js";
import * as m032 from "./032-source-moves.js";
import * as m033 from "./033-record-changed-index.js";
import * as m034 from "./034-overflow-pending.js";
import * as m035 from "./035-forgotten-copies.js";
import * as m036 from "./036-night-runs.js";
import * as m037 from "./037-marks-made-at.js";
import * as m038 from "./038-capture-night.js";

/** Static list: the compiled CLI carries its migrations with it (no directory scanning). */
export const migrations: Record<string, Migration> = {
  "001-log": m001,
  "002-night": m002,
  "003-archive": m003,
  "004-sources": m004,
  "005-console": m005,
  "006-journal": m006,
  "010-search-and-read-indexes": m010,
  "011-console-read-indexes": m011,
  "012-leads": m012,
  "013-page-reads": m013,
  "014-page-read-ids": m014,
  "015-catalog-stamp": m015,
  "016-lighter-night-writes": m016,
  "017-night-user-agent": m017,
  "018-record-instant": m018,
  "019-owners-requests-left-alone": m019,
  "020-store-identity": m020,
  "021-already-listed": m021,
  "022-record-first-id": m022,
  "023-new-by-night-index": m023,
  "024-mapped-ipv4-sites": m024,
  "025-night-catalog-note": m025,
  "026-record-first-source": m026,
  "027-source-renamed-to": m027,
  "028-record-changed-at": m028,
  "029-backfill-end": m029,
  "030-backfill-restart": m030,
  "031-site-down": m031,
  "032-source-moves": m032,
  "033-record-changed-index": m033,
  "034-overflow-pending": m034,
  "035-forgotten-copies": m035,
  "036-night-runs": m036,
  "037-marks-made-at": m037,
  "038-capture-night": m038,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => migrations,
};
