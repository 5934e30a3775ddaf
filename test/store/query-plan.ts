import {
  CompiledQuery,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from "kysely";
import type { Db } from "../../src/store/db.js";

/**
 * The queries code sends through a Db, kept so a test can ask the database how it runs them
 * (EXPLAIN), with the very parameters sent. The proof that a search stays fast whatever the
 * log's size is its plan (an index, no scan of the table), never a timing.
 */
export class QueryRecorder implements KyselyPlugin {
  readonly queries: PluginTransformQueryArgs[] = [];

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.queries.push(args);
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

/** `db` with its queries recorded. */
export function recording(db: Db): { db: Db; recorder: QueryRecorder } {
  const recorder = new QueryRecorder();
  return { db: db.withPlugin(recorder), recorder };
}

/**
 * SQLite's EXPLAIN QUERY PLAN of a recorded query, one detail a line; on PostgreSQL, its
 * EXPLAIN after ANALYZE of the tables (so the planner knows their size).
 */
export async function planOf(
  db: Db,
  dialect: "sqlite" | "postgres",
  query: PluginTransformQueryArgs,
): Promise<string> {
  const c = db.getExecutor().compileQuery(query.node, query.queryId);
  if (dialect === "sqlite") {
    const r = await db.executeQuery<{ detail: string }>(
      CompiledQuery.raw(`EXPLAIN QUERY PLAN ${c.sql}`, [...c.parameters]),
    );
    return r.rows.map((x) => x.detail).join("\n");
  }
  await db.executeQuery(CompiledQuery.raw("ANALYZE"));
  const r = await db.executeQuery<{ "QUERY PLAN": string }>(
    CompiledQuery.raw(`EXPLAIN ${c.sql}`, [...c.parameters]),
  );
  return r.rows.map((x) => x["QUERY PLAN"]).join("\n");
}

/** The plan reads request_log through `index`, never by scanning the whole table. */
export function usesIndex(plan: string, index: string): boolean {
  return plan.includes(index) && !/SCAN request_log(?! USING)|Seq Scan on request_log/.test(plan);
}
