import pg from "pg";

/**
 * PostgreSQL for this run: a database of its own on NOR_TEST_POSTGRES_URL's server, made
 * before any test file runs and dropped after the last, with NOR_TEST_POSTGRES_URL pointing
 * at it meanwhile (the workers start after this and take the environment as it is then).
 *
 * Each PostgreSQL store a test makes is a schema of its own, created, migrated and dropped
 * (test/store/stores.ts): a run leaves some hundred thousand dead rows in the database's
 * system catalogs. A server with autovacuum off (as the test machine's is) keeps them, so in one
 * long-lived database every run's migrations got slower than the last (after some ten runs a
 * store cost the server twice the CPU it does on clean catalogs). A fresh database starts every
 * run with clean catalogs; schemas a killed run left go with its database.
 *
 * Without the right to create a database the tests use NOR_TEST_POSTGRES_URL as given, saying so.
 */
const PREFIX = "nor_test_run_";

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** Whether process `pid` (this machine's) still runs. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  const given = process.env["NOR_TEST_POSTGRES_URL"];
  if (!given) return undefined;
  const name = `${PREFIX}${process.pid}_${Date.now().toString(36)}`;
  try {
    await withClient(given, async (c) => {
      // Databases of earlier runs whose vitest is gone (killed before its teardown).
      const { rows } = await c.query<{ datname: string }>(
        "select datname from pg_database where datname like $1",
        [`${PREFIX}%`],
      );
      for (const { datname } of rows) {
        const pid = Number(/^nor_test_run_(\d+)_/.exec(datname)?.[1]);
        if (Number.isInteger(pid) && !alive(pid))
          await c.query(`drop database if exists "${datname}" with (force)`);
      }
      await c.query(`create database "${name}"`);
    });
  } catch (e) {
    process.stderr.write(
      `test/global-postgres.ts: no database of this run's own (${(e as Error).message}): the tests use NOR_TEST_POSTGRES_URL as given\n`,
    );
    return undefined;
  }
  const url = new URL(given);
  url.pathname = `/${name}`;
  process.env["NOR_TEST_POSTGRES_URL"] = url.href;
  return async () => {
    process.env["NOR_TEST_POSTGRES_URL"] = given;
    await withClient(given, (c) => c.query(`drop database if exists "${name}" with (force)`));
  };
}
