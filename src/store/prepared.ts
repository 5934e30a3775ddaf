/**
 * Queries built and compiled once, run many times. kysely builds each query as a tree of
 * frozen nodes and compiles it to SQL on every call; for the night's hot statements (the
 * journal's admission and completion, a source's commit, the archive's index), run once or
 * more per request, that building was about a seventh of the engine's CPU (docs/benchmarks.md).
 *
 * `prepared((db, $) => db.selectFrom("t").selectAll().where("url", "=", $("url")))` builds the
 * query once per dialect with a marker in place of each value named by `$`, compiles it, and
 * notes which parameter each marker became. A run hands the same SQL to the driver with the
 * values put in their places: the same statement kysely would have compiled for those values
 * (a value is always a parameter, never part of the SQL text), so the SQL text stays where it
 * was written, in src/store, and the statement cache (statement-cache.ts) prepares it once.
 *
 * Only a value may be named: whatever changes the shape of the query (a column there or not, a
 * list's length) makes a query of its own. On PostgreSQL each such text runs as a named
 * statement, parsed once a connection (pg-named.ts).
 */
import type { Compilable, CompiledQuery, QueryResult } from "kysely";
import type { Db } from "./db.js";
import { dialectOf } from "./dialect-of.js";
import { nameStatement } from "./pg-named.js";
import { directNow, readsNow } from "./sqlite-direct.js";

/** The store or a transaction of it (a Transaction is a Kysely). */
type Tx = Db;

/** The marker standing for a named value while the query is built. */
class Slot {
  constructor(readonly name: string) {}
}

type Plan = {
  compiled: CompiledQuery;
  from: ({ slot: string } | { value: unknown })[];
  /** A select: it may run on the store's read-only connection (sqlite-direct.ts `readsNow`). */
  reads: boolean;
};

export type Placeholder<A> = <K extends keyof A & string>(name: K) => A[K];

export class Prepared<A extends Record<string, unknown>, R> {
  readonly #build: (db: Tx, $: Placeholder<A>) => Compilable<R>;
  readonly #plans = new Map<"sqlite" | "postgres", Plan>();

  constructor(build: (db: Tx, $: Placeholder<A>) => Compilable<R>) {
    this.#build = build;
  }

  #plan(db: Tx): Plan {
    const dialect = dialectOf(db);
    let plan = this.#plans.get(dialect);
    if (plan === undefined) {
      const $ = ((name: string) => new Slot(name)) as Placeholder<A>;
      const compiled = this.#build(db, $).compile() as CompiledQuery;
      const from = compiled.parameters.map((p) =>
        p instanceof Slot ? { slot: p.name } : { value: p },
      );
      plan = { compiled, from, reads: compiled.query.kind === "SelectQueryNode" };
      // PostgreSQL: run as a named statement, parsed once a connection (pg-named.ts).
      if (dialect === "postgres") nameStatement(compiled.sql, compiled.query);
      this.#plans.set(dialect, plan);
    }
    return plan;
  }

  /** The query with these values, as kysely would have compiled it. */
  compile(db: Tx, args: A): CompiledQuery<R> {
    const plan = this.#plan(db);
    return { ...plan.compiled, parameters: parametersOf(plan, args) } as CompiledQuery<R>;
  }

  /**
   * The statement run now, on SQLite, where it may go straight to a connection: where kysely
   * would run it at once, or, a read, on the read-only connection while the store's own is
   * taken (sqlite-direct.ts). Undefined: through kysely, in its turn. May throw.
   */
  #now(db: Tx, args: A): QueryResult<R> | undefined {
    const direct = directNow(db);
    if (direct !== undefined) {
      const plan = this.#plan(db);
      try {
        return direct.execute<R>(plan.compiled.sql, parametersOf(plan, args));
      } catch (err) {
        // The write lock held by another process past one try (db.ts LOCK_TRY_MS): a
        // statement that was a transaction of its own did nothing, and goes through kysely,
        // which waits for the lock between tries without holding the thread (db.ts
        // waitForLock). One inside a transaction fails, as through kysely.
        if (isBusy(err) && direct.free) return undefined;
        throw err;
      }
    }
    const plan = this.#plan(db);
    const reader = plan.reads ? readsNow(db) : undefined;
    if (reader === undefined) return undefined;
    return reader.execute<R>(plan.compiled.sql, parametersOf(plan, args));
  }

  /** Always a promise: an error building or running the statement rejects it. */
  run(db: Tx, args: A): Promise<QueryResult<R>> {
    try {
      const now = this.#now(db, args);
      return now !== undefined ? Promise.resolve(now) : this.#inTurn(db, args);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  rows(db: Tx, args: A): Promise<R[]> {
    try {
      const now = this.#now(db, args);
      if (now !== undefined) return Promise.resolve(now.rows);
      return this.#inTurn(db, args).then((r) => r.rows);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  first(db: Tx, args: A): Promise<R | undefined> {
    try {
      const now = this.#now(db, args);
      if (now !== undefined) return Promise.resolve(now.rows[0]);
      return this.#inTurn(db, args).then((r) => r.rows[0]);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /** Through kysely, in its turn. */
  #inTurn(db: Tx, args: A): Promise<QueryResult<R>> {
    return db.executeQuery(this.compile(db, args));
  }
}

/** SQLITE_BUSY and its extended codes: another connection holds the lock. */
function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_BUSY");
}

function parametersOf(plan: Plan, args: Record<string, unknown>): unknown[] {
  const out = new Array<unknown>(plan.from.length);
  for (let i = 0; i < plan.from.length; i++) {
    const f = plan.from[i] as Plan["from"][number];
    out[i] = "slot" in f ? args[f.slot] : f.value;
  }
  return out;
}

export function prepared<A extends Record<string, unknown>, R>(
  build: (db: Tx, $: Placeholder<A>) => Compilable<R>,
): Prepared<A, R> {
  return new Prepared(build);
}
