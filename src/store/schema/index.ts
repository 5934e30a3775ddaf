import type { ArchiveTables } from "./archive.js";
import type { ConsoleTables } from "./console.js";
import type { LogTables } from "./log.js";
import type { NightTables } from "./night.js";
import type { SourcesTables } from "./sources.js";

/**
 * The whole store, as kysely sees it. Times are ISO 8601 UTC text with milliseconds
 * (`Date.prototype.toISOString()`): they sort as text and read the same on SQLite and PostgreSQL.
 */
export type Database = LogTables & NightTables & ArchiveTables & SourcesTables & ConsoleTables;
