import { type Kysely, PostgresAdapter } from "kysely";

/**
 * Which SQL dialect a kysely instance speaks. Migrations are static `up(db)` functions, so the
 * few spots where portable DDL runs out (an autoincrement key) ask the adapter instead.
 */
export function dialectOf(db: Kysely<unknown>): "sqlite" | "postgres" {
  return db.getExecutor().adapter instanceof PostgresAdapter ? "postgres" : "sqlite";
}
