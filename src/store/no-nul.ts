/**
 * No U+0000 reaches the store. A JavaScript string may hold NUL, and a site's text often does
 * (a title from a feed or a JSON API, a UTF-16 robots.txt read as UTF-8, a server's error
 * message); SQLite keeps it, but PostgreSQL's text refuses it ("invalid byte sequence for
 * encoding UTF8: 0x00", 22021). One such value would fail the night's commit, stop `nor night`,
 * and stop it again at every restart (the answer is final in the journal and replayed).
 *
 * So every statement's string parameters have U+0000 replaced by U+FFFD (REPLACEMENT
 * CHARACTER, as an HTML parser does), on both dialects, so the two stores hold the same text
 * and a read with a NUL in its parameters (a search) finds what the write kept. It runs at the
 * driver, under every kysely instance the store makes (openStore, the read pools, the read
 * workers' job Db): each statement's parameters are scanned once, strings only, and the array
 * is copied only when one holds a NUL. Kept as is: the SQL text (it never holds a site's text:
 * values are always parameters), Buffers, numbers, and JSON text the store wrote with
 * JSON.stringify (a NUL there is the six characters `\u0000`; every column is text, none is
 * jsonb, so that escape is stored as written and comes back as NUL from JSON.parse).
 *
 * A robots.txt body is mapped before it gets here (robots-cache.ts: NUL becomes `%00`, which
 * parses to the same rules), so its cached copy gives the same verdict as the fetched one.
 */
import type { CompiledQuery, DatabaseConnection, Dialect, Driver } from "kysely";

const NUL = "\u0000";
const NULS = /\u0000/g;
const REPLACEMENT = "\uFFFD";

/** `s` with every U+0000 replaced by U+FFFD (the same string when it holds none). */
export function withoutNul(s: string): string {
  return s.includes(NUL) ? s.replace(NULS, REPLACEMENT) : s;
}

/**
 * `s` as the store keeps it: NUL as U+FFFD on both stores, and on PostgreSQL a lone surrogate
 * too (the `pg` driver sends it so). Two strings that differ only there are one in the store.
 */
export function asStored(s: string, postgres: boolean): string {
  return withoutNul(postgres ? s.replace(/\p{Cs}/gu, REPLACEMENT) : s);
}

/** The parameters with NUL mapped in their strings; the same array when none holds one. */
export function parametersWithoutNul(parameters: readonly unknown[]): readonly unknown[] {
  for (let i = 0; i < parameters.length; i++) {
    const p = parameters[i];
    if (typeof p === "string" && p.includes(NUL)) {
      const out = parameters.slice();
      for (let j = i; j < out.length; j++) {
        const q = out[j];
        if (typeof q === "string") out[j] = withoutNul(q);
      }
      return out;
    }
  }
  return parameters;
}

function queryWithoutNul(q: CompiledQuery): CompiledQuery {
  const parameters = parametersWithoutNul(q.parameters);
  return parameters === q.parameters ? q : { ...q, parameters };
}

const guarded = new WeakSet<DatabaseConnection>();

/**
 * The connection, its executeQuery and streamQuery now mapping NUL. Patched on the instance
 * (once: drivers hand the same connection out again), so the driver's own methods that take
 * the connection back (begin, commit, release) see the object they made.
 */
function guard(conn: DatabaseConnection): DatabaseConnection {
  if (guarded.has(conn)) return conn;
  const execute = conn.executeQuery.bind(conn);
  const stream = conn.streamQuery.bind(conn);
  conn.executeQuery = (q) => execute(queryWithoutNul(q));
  conn.streamQuery = (q, chunkSize) => stream(queryWithoutNul(q), chunkSize);
  guarded.add(conn);
  return conn;
}

/** The dialect, its driver's connections mapping NUL in every statement (see above). */
export function noNul(dialect: Dialect): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createDriver: (): Driver => {
      const driver = dialect.createDriver();
      const acquire = driver.acquireConnection.bind(driver);
      driver.acquireConnection = async () => guard(await acquire());
      return driver;
    },
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
  };
}
