import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { HOLDER_ALIVE_CLASS, HolderLiveness, holderKey } from "../../src/store/holder-liveness.js";
import { postgresFactory, postgresUrl } from "./stores.js";

/**
 * A server (or role, or database) that ends idle sessions (idle_session_timeout, as some managed
 * PostgreSQL services set) ended the liveness session, which is idle by design: its locks went,
 * and a frozen process's site was taken over as before the liveness lock (P9); a live one's
 * locks were gone until it made the session again.
 */
const factory = postgresUrl ? postgresFactory(postgresUrl) : undefined;
afterAll(async () => {
  await factory?.cleanup();
});

describe.skipIf(!factory)("the liveness session and idle_session_timeout (PostgreSQL)", () => {
  it("P9: a liveness session is not ended by the server's idle_session_timeout: its lock stays held on the same session", async () => {
    const loc = await (factory as NonNullable<typeof factory>).fresh();
    if (loc.kind !== "postgres") throw new Error(loc.kind);
    // The setting as a server's, role's or database's default would give it to every session.
    const u = new URL(loc.url);
    u.searchParams.set("options", "-c idle_session_timeout=200");
    const alive = new HolderLiveness(u.toString());
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    const holder = "machine-d:404:dddd";
    const lockers = async () =>
      (
        await admin.query(
          "select pid from pg_locks where locktype = 'advisory' and granted and classid = $1::int4::oid and objid::int8 = $2::int8 and objsubid = 2",
          [HOLDER_ALIVE_CLASS, holderKey(holder) >>> 0],
        )
      ).rows.map((r: { pid: number }) => r.pid);
    try {
      await alive.hold(holder);
      const first = await lockers();
      expect(first).toHaveLength(1);
      // Well past the timeout (the server ends an idle session at 200 ms): every look finds the
      // first session's lock, never none, never another session's (bounded: 15 looks).
      const seen: number[][] = [];
      for (let i = 0; i < 15; i++) {
        await new Promise((r) => setTimeout(r, 100));
        seen.push(await lockers());
      }
      expect(seen).toEqual(seen.map(() => first));
    } finally {
      await admin.end();
      await alive.close();
    }
  });
});
