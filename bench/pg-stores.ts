/**
 * What a new PostgreSQL store costs to make: its migrations run one by one (openStore's
 * `bySnapshot: false`), against the migrations' snapshot (openStore on an empty schema), and
 * the snapshot's script sent alone on one connection (test/store/stores.ts `migrated()`). Each
 * store in a schema of its own, the three ways taking turns, BENCH_PG_STORES rounds (default
 * 20); the schemas are dropped at the end. The client's CPU from process.cpuUsage(), the
 * server's from the store's backends' /proc/PID/stat (utime + stime, read before they end:
 * the server must run on this machine). Needs BENCH_POSTGRES_URL (postgres://…).
 *
 *   BENCH_POSTGRES_URL=postgres://postgres@127.0.0.1:5432/test npm run bench -- pg-stores
 */
import { readFileSync } from "node:fs";
import pg from "pg";
import { openStore, postgresSnapshotScript } from "../src/store/db.js";

const TICK_MS = 10;

/** utime + stime of process `pid`, ms (0 when it is gone or not this machine's). */
function cpuOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

function withOptions(url: string, schema: string, app: string): string {
  const u = new URL(url);
  u.searchParams.set("options", `-c search_path=${schema}`);
  u.searchParams.set("application_name", app);
  return u.toString();
}

interface Sample {
  server: number;
  client: number;
}

function summary(name: string, xs: Sample[]): string {
  const med = (v: number[]) => {
    const s = [...v].sort((a, b) => a - b);
    return s[Math.floor(s.length / 2)] ?? 0;
  };
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / Math.max(1, v.length);
  const server = xs.map((x) => x.server);
  const client = xs.map((x) => x.client);
  return `| ${name} | ${med(server).toFixed(0)} (${mean(server).toFixed(0)}) | ${med(client).toFixed(1)} (${mean(client).toFixed(1)}) |`;
}

export async function run(): Promise<string> {
  const given = process.env["BENCH_POSTGRES_URL"];
  if (!given) return "pg-stores: set BENCH_POSTGRES_URL=postgres://… (a server on this machine)";
  const url: string = given;
  const rounds = Number(process.env["BENCH_PG_STORES"] ?? 20);
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const schemas: string[] = [];
  const app = `bench-pg-stores-${process.pid}`;
  /** The server's CPU so far of the backends named `app`. */
  const serverCpu = async () => {
    const r = await admin.query<{ pid: number }>(
      "select pid from pg_stat_activity where application_name = $1",
      [app],
    );
    return r.rows.reduce((sum, row) => sum + cpuOf(row.pid), 0);
  };
  const samples: Record<string, Sample[]> = {
    migrations: [],
    snapshot: [],
    script: [],
    recorded: [],
  };
  const script = postgresSnapshotScript({ lock: false });
  if (script === undefined) return "pg-stores: the snapshot is not this version's";
  const recorded = await recordMigrations(url, admin, schemas);
  const sendScript = async (schema: string, text: string): Promise<Sample> => {
    const c = new pg.Client({ connectionString: withOptions(url, schema, app) });
    const t0 = process.cpuUsage();
    await c.connect();
    await c.query(text);
    const client = cpuMs(t0);
    const server = await serverCpu();
    await c.end();
    return { server, client };
  };
  const ways: Record<string, (schema: string) => Promise<Sample>> = {
    migrations: (schema) => viaOpenStore(schema, false),
    snapshot: (schema) => viaOpenStore(schema, true),
    script: (schema) => sendScript(schema, `create schema "${schema}";\n${script}`),
    recorded: (schema) =>
      sendScript(
        schema,
        `begin; create schema "${schema}"; set local search_path to "${schema}";\n${recorded.split(MARK).join(schema)};\ncommit`,
      ),
  };
  const cpuMs = (t0: NodeJS.CpuUsage) => {
    const d = process.cpuUsage(t0);
    return (d.user + d.system) / 1000;
  };
  async function viaOpenStore(schema: string, bySnapshot: boolean): Promise<Sample> {
    await admin.query(`create schema "${schema}"`);
    const t0 = process.cpuUsage();
    const store = await openStore(
      { kind: "postgres", url: withOptions(url, schema, app) },
      { bySnapshot },
    );
    const client = cpuMs(t0);
    const server = await serverCpu();
    await store.close();
    return { server, client };
  }
  try {
    // One of each first, not counted: the code's first run in this process.
    for (let round = -1; round < rounds; round++)
      for (const [name, way] of Object.entries(ways)) {
        const schema = `bench_pg_stores_${process.pid}_${schemas.length}`;
        schemas.push(schema);
        const s = await way(schema);
        if (round >= 0) samples[name]?.push(s);
      }
  } finally {
    for (const s of schemas) await admin.query(`drop schema if exists "${s}" cascade`);
    await admin.end();
  }
  return [
    `### New PostgreSQL stores (${rounds} of each, taking turns; ms a store, median (mean))`,
    "",
    "| made by | server CPU | client CPU |",
    "| --- | --- | --- |",
    summary("its migrations (openStore, bySnapshot: false)", samples["migrations"] ?? []),
    summary("the snapshot (openStore)", samples["snapshot"] ?? []),
    summary("the snapshot's script alone (stores.ts migrated())", samples["script"] ?? []),
    summary(
      "a run of the migrations recorded and sent again (migrated() before)",
      samples["recorded"] ?? [],
    ),
  ].join("\n");
}

/** Stands for the schema in the recorded script. */
const MARK = "\u0000schema\u0000";

/**
 * Every statement that changes the schema a run of the migrations sends (openStore with
 * `bySnapshot: false` on a new schema), its parameters written in, the schema's name as MARK:
 * as test/store/stores.ts recorded them for `migrated()` before the snapshot.
 */
async function recordMigrations(url: string, admin: pg.Client, schemas: string[]): Promise<string> {
  const schema = `bench_pg_stores_${process.pid}_recorded`;
  schemas.push(schema);
  await admin.query(`create schema "${schema}"`);
  const sent: string[] = [];
  type Query = (this: pg.Client, ...args: unknown[]) => unknown;
  const proto = pg.Client.prototype as unknown as { query: Query };
  const original = proto.query;
  proto.query = function (this: pg.Client, ...args: unknown[]) {
    const [text, values] = args;
    if (typeof text === "string") {
      const vs = Array.isArray(values) ? values : [];
      sent.push(
        text.replace(/\$(\d+)/g, (_, n: string) => {
          const v = vs[Number(n) - 1];
          if (typeof v === "number") return String(v);
          if (typeof v === "string") return pg.Client.prototype.escapeLiteral(v);
          return "null";
        }),
      );
    }
    return original.apply(this, args);
  };
  try {
    const u = new URL(url);
    u.searchParams.set("options", `-c search_path=${schema}`);
    await (await openStore({ kind: "postgres", url: u.toString() }, { bySnapshot: false })).close();
  } finally {
    proto.query = original;
  }
  const first = sent.findIndex((q) =>
    /^create table if not exists "[^"]+"\."kysely_migration"/.test(q),
  );
  return sent
    .slice(first)
    .filter((q) => !/^\s*(select|with|begin|commit|rollback)\b/i.test(q))
    .map((q) => q.split(`"${schema}"`).join(`"${MARK}"`))
    .join(";\n");
}
