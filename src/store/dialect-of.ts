import { PostgresAdapter } from "./kysely.js";

/**
 * Which SQL dialect a kysely instance speaks. Migrations are static `up(db)` functions, so the
 * few spots where portable SQL runs out (an autoincrement key, ILIKE) ask the adapter instead.
 */
export function dialectOf(db: { getExecutor(): { adapter: unknown } }): "sqlite" | "postgres" {
  return db.getExecutor().adapter instanceof PostgresAdapter ? "postgres" : "sqlite";
}
