/**
 * The night's hot statements on PostgreSQL as named server-side prepared statements.
 *
 * kysely's PostgreSQL connection hands node-postgres each query as text and parameters, which
 * node-postgres sends as an unnamed statement: Parse (the SQL text), Bind, Describe, Execute,
 * Sync. The server parses, analyses, rewrites and plans the text anew every time. For the
 * statements prepared.ts builds once (the journal's admission and completion, a source's
 * commit: a dozen or more a request), that was about a third of the server backends' CPU in a
 * night (docs/benchmarks.md, "Named statements"). Each such SQL text gets a name here, once per
 * process; node-postgres then sends Parse only the first time a connection runs it (it keeps
 * the names it has parsed on each connection, `parsedStatements`), and the server keeps the
 * parsed statement and, once it finds a generic plan as cheap as a custom one, the plan.
 *
 * What stays the same: the SQL text, the parameters (U+0000 mapped beneath kysely, no-nul.ts),
 * the rows and counts node-postgres gives, the errors (the same DatabaseError, through kysely's
 * same path), transactions (a named statement runs in whatever transaction its connection is
 * in), advisory locks and the server clock (`now()` is evaluated at each execution, never
 * folded into a cached plan: it is not immutable).
 *
 * Per session: a name is prepared on one connection and the server forgets it when the
 * connection ends; node-postgres keeps its record of parsed names on the connection object,
 * so a connection made anew (a dropped one replaced by the pool) parses again. A schema: each
 * store's pool sets its schema as the connection's search_path when it connects, and nothing
 * sets it again; were it set, PostgreSQL itself analyses a cached statement again when the
 * search_path it was analysed under has changed.
 *
 * A schema changed under a cached statement (another process's migration changing a column's
 * type; a column added cannot, as no `select *` is named: nameStatement) makes PostgreSQL
 * refuse the statement with "cached plan must not change result type" (0A000) rather than run
 * it. The connection
 * then forgets that name and the statement is prepared under a new one, analysed against the
 * schema as it is now. A statement that was a transaction of its own did nothing (the error
 * comes before it runs) and is run again at once, under the new name, as kysely would have run
 * it. One inside a transaction fails, and the transaction with it, once per connection and
 * statement: the caller's transaction fails as it would on any error, and its next run
 * prepares the statement anew.
 */
import type pg from "pg";

/** Each prepared SQL text's name, given once per process: one name, one text. */
const names = new Map<string, string>();

/**
 * The longest SQL text named. A named statement's parsed and analysed trees (and, once chosen,
 * its generic plan) stay in the server's memory for the connection's life, about as large as
 * the text is long: a statement prepared.ts builds once for each count of rows or ids (the
 * records' insert, 1 to 200 rows: night-records.ts insertOf) held some 35 MB on each of a pool's
 * connections once every count had run. Such a statement does its work row by row, so its parse
 * is little of its cost; it runs unnamed, as before. Every single-row hot statement is shorter.
 */
export const NAMED_MAX_CHARS = 2048;

/**
 * The SQL text of a statement prepared.ts built once (`query`, its kysely tree); its runs on
 * PostgreSQL are named. Not one whose result columns are a `*` (`select *`, `t.*`,
 * `returning *`): its result type is the table's columns as the statement was analysed, and a
 * column another process adds (a newer nor's migration, while this one runs) would make the
 * server refuse it ("cached plan must not change result type") inside a transaction. Unnamed,
 * it reads the columns as they are. prepared.ts's hot statements name their columns.
 */
export function nameStatement(sql: string, query?: unknown): void {
  if (sql.length > NAMED_MAX_CHARS || names.has(sql) || selectsAll(query)) return;
  names.set(sql, `nor_${names.size + 1}`);
}

/** Whether a kysely query's result columns include a `*` (select's or returning's). */
function selectsAll(query: unknown): boolean {
  type Selection = { selection?: { kind?: string; column?: { kind?: string } } };
  const q = query as {
    selections?: readonly Selection[];
    returning?: { selections?: readonly Selection[] };
  } | null;
  return [...(q?.selections ?? []), ...(q?.returning?.selections ?? [])].some(
    (s) => s.selection?.kind === "SelectAllNode" || s.selection?.column?.kind === "SelectAllNode",
  );
}

/** The names given so far (for tests). */
export function namedTexts(): ReadonlyMap<string, string> {
  return names;
}

/** PostgreSQL refused a cached statement whose result columns the schema has changed. */
export function isStalePlan(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  return (
    e?.code === "0A000" &&
    typeof e.message === "string" &&
    e.message.includes("cached plan must not change result type")
  );
}

type Query = (config: unknown, values?: unknown, callback?: unknown) => unknown;

/**
 * Every connection of `pool`, as it connects, runs the named texts as named statements: a
 * query given as a named text and a parameter array, with no callback (as kysely's PostgreSQL
 * connection gives it), goes to node-postgres as `{ name, text, values }`; every other query
 * (text alone, a config object, a cursor, a callback) as it was given.
 */
export function namedStatements<P extends pg.Pool>(pool: P): P {
  pool.on("connect", (client) => {
    // pg's own query, looked up at each call: whatever replaces it on the prototype later
    // (a test's recorder) is still called.
    const proto = Object.getPrototypeOf(client) as { query: Query };
    const query: Query = (config, values, callback) =>
      proto.query.call(client, config, values, callback);
    /** Names this connection forgot (a stale plan), and the names it uses instead. */
    let renamed: Map<string, string> | undefined;
    let fresh = 0;
    const named = (text: string, values: unknown[], name: string): Promise<pg.QueryResult> =>
      (query({ name, text, values }) as Promise<pg.QueryResult>).catch((err: unknown) => {
        if (!isStalePlan(err)) throw err;
        renamed ??= new Map();
        const next = `${name}_${++fresh}`;
        renamed.set(text, next);
        // Status as of the last ReadyForQuery before this statement: 'I', it was a transaction
        // of its own and did nothing; run it again under its new name. Otherwise it failed
        // its transaction, as any error there does.
        if (client.getTransactionStatus() !== "I") throw err;
        return query({ name: next, text, values }) as Promise<pg.QueryResult>;
      });
    (client as unknown as { query: Query }).query = (config, values, callback) => {
      if (typeof config === "string" && Array.isArray(values) && callback === undefined) {
        const name = renamed?.get(config) ?? names.get(config);
        if (name !== undefined) return named(config, values, name);
      }
      return query(config, values, callback);
    };
  });
  return pool;
}
