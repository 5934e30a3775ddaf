import type { Kysely } from "kysely";

// The operator console's tables (src/store/schema/console.ts). Portable types only.
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("console_operator")
    .ifNotExists()
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("password_hash", "text", (c) => c.notNull())
    .addColumn("updated_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createTable("console_sessions")
    .ifNotExists()
    .addColumn("id_hash", "text", (c) => c.primaryKey())
    .addColumn("csrf_token", "text", (c) => c.notNull())
    .addColumn("created_at", "text", (c) => c.notNull())
    .addColumn("expires_at", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("console_sessions_by_expiry")
    .ifNotExists()
    .on("console_sessions")
    .column("expires_at")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("console_sessions").ifExists().execute();
  await db.schema.dropTable("console_operator").ifExists().execute();
}
