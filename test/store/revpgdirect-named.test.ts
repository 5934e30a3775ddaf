import { afterAll, describe, expect, it } from "vitest";
import { openPostgresPool, openStore } from "../../src/store/db.js";
import { sql } from "../../src/store/kysely.js";
import { namedTexts } from "../../src/store/pg-named.js";
import { type Placeholder, prepared } from "../../src/store/prepared.js";
import { postgresFactory, postgresUrl } from "./stores.js";

/**
 * Review of issue 13 (pg-named.ts): the hot statements as named server-side statements keep
 * the semantics the unnamed ones had — errors, aborted transactions, new connections, a
 * search_path, the server clock.
 */
describe.skipIf(!postgresUrl)("named statements on PostgreSQL: same semantics (review)", () => {
  const f = postgresFactory(postgresUrl ?? "");
  afterAll(() => f.cleanup());

  const byUrl = prepared((db, $: Placeholder<{ url: string }>) =>
    db.selectFrom("validators").select(["url", "etag"]).where("url", "=", $("url")),
  );
  const byUrlToo = prepared((db, $: Placeholder<{ url: string }>) =>
    db.selectFrom("validators").select(["etag", "url"]).where("url", "=", $("url")),
  );
  const put = prepared((db, $: Placeholder<{ url: string; etag: string }>) =>
    db
      .insertInto("validators")
      .values({ url: $("url"), etag: $("etag"), last_modified: null, updated_at: "t" }),
  );
  const serverNow = prepared((db, $: Placeholder<{ x: number }>) =>
    db.selectNoFrom(sql<string>`now()::text || ${$("x")}::text`.as("t")),
  );

  /** A many-row insert built once for each row count, as night-records.ts insertOf builds. */
  const inserts = new Map<number, ReturnType<typeof rowsOf>>();
  function rowsOf(n: number) {
    return prepared((db, $: Placeholder<Record<string, unknown>>) =>
      db
        .insertInto("records")
        .values(
          Array.from({ length: n }, (_, i) => ({
            source_id: $("sourceId") as string,
            record_id: $(`id${i}`) as string,
            title: $(`title${i}`) as string,
            date: $(`date${i}`) as string | null,
            url: $(`url${i}`) as string | null,
            kind: $(`kind${i}`) as string | null,
            first_seen_night: $("night") as string,
            first_seen_at: $("at") as string,
            already_listed: $(`listed${i}`) as number,
          })),
        )
        .returning(["record_id", "first_seen_at", "already_listed"]),
    );
  }

  async function pool(max = 1) {
    const loc = await f.migrated();
    if (loc.kind !== "postgres") throw new Error("a PostgreSQL store was expected");
    const store = await openStore(loc);
    await store.close();
    return { db: await openPostgresPool(loc.url, max, "revpgdirect"), url: loc.url };
  }

  const prepareTime = async (db: Awaited<ReturnType<typeof pool>>["db"], name: string) =>
    (
      await sql<{
        t: string;
      }>`select prepare_time::text as t from pg_prepared_statements where name = ${name}`.execute(
        db,
      )
    ).rows.map((r) => r.t);

  it("issue 13: a unique violation inside a transaction: the same error as unnamed, the transaction aborted (25P02 after it) and rolled back, and the named statement stays parsed and valid", async () => {
    const { db } = await pool();
    try {
      await put.run(db, { url: "http://a.example/", etag: "a" });
      const name = namedTexts().get(put.compile(db, { url: "", etag: "" }).sql) as string;
      const before = await prepareTime(db, name);
      expect(before).toHaveLength(1);
      // The same insert, unnamed (kysely's own path): the error to compare with.
      const unnamed = await db
        .insertInto("validators")
        .values({ url: "http://a.example/", etag: "z", last_modified: null, updated_at: "t" })
        .execute()
        .then(() => ({}) as Record<string, unknown>)
        .catch((e: unknown) => e as Record<string, unknown>);
      let afterErr: unknown;
      const named = await db
        .transaction()
        .execute(async (tx) => {
          await put.run(tx, { url: "http://b.example/", etag: "b" });
          const e = await put
            .run(tx, { url: "http://a.example/", etag: "x" })
            .catch((err: unknown) => err as Record<string, unknown>);
          // Going on in the transaction after the error: aborted, as before.
          afterErr = await byUrl.first(tx, { url: "http://a.example/" }).catch((err) => err);
          throw e;
        })
        .catch((e: unknown) => e as Record<string, unknown>);
      for (const k of ["code", "constraint", "table", "detail", "severity", "message"])
        expect(named[k]).toEqual(unnamed[k]);
      expect(named.constructor).toBe(unnamed.constructor);
      expect((afterErr as { code?: string }).code).toBe("25P02");
      // Rolled back: b is not there; the statement is still the one parsed before.
      expect(await byUrl.first(db, { url: "http://b.example/" })).toBeUndefined();
      await put.run(db, { url: "http://c.example/", etag: "c" });
      expect(await prepareTime(db, name)).toEqual(before);
    } finally {
      await db.destroy();
    }
  });

  it("issue 13: a named statement used first inside an aborted transaction (its Parse refused) is parsed again on its next use", async () => {
    const { db } = await pool();
    try {
      const failed = await db
        .transaction()
        .execute(async (tx) => {
          await sql`select 1/0`.execute(tx).catch(() => {});
          return byUrlToo.first(tx, { url: "http://a.example/" });
        })
        .catch((e: unknown) => e as { code?: string });
      expect((failed as { code?: string }).code).toBe("25P02");
      await put.run(db, { url: "http://a.example/", etag: "a" });
      expect((await byUrlToo.first(db, { url: "http://a.example/" }))?.etag).toBe("a");
      // One parsed first inside a transaction rolled back: the server keeps it (a protocol
      // prepared statement is no part of a transaction), so its next run needs no Parse.
      const third = prepared((d, $: Placeholder<{ url: string }>) =>
        d.selectFrom("validators").select(["updated_at", "url"]).where("url", "=", $("url")),
      );
      await expect(
        db.transaction().execute(async (tx) => {
          expect((await third.first(tx, { url: "http://a.example/" }))?.url).toBe(
            "http://a.example/",
          );
          throw new Error("rolled back");
        }),
      ).rejects.toThrow("rolled back");
      expect((await third.first(db, { url: "http://a.example/" }))?.url).toBe("http://a.example/");
    } finally {
      await db.destroy();
    }
  });

  it("issue 13: a pool connection ended by the server: the next connection prepares its names anew", async () => {
    const { db } = await pool();
    try {
      await put.run(db, { url: "http://a.example/", etag: "a" });
      expect((await byUrl.first(db, { url: "http://a.example/" }))?.etag).toBe("a");
      const pid = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0]
        ?.pid;
      const other = await openPostgresPool(postgresUrl ?? "", 1, "revpgdirect-admin");
      try {
        await sql`select pg_terminate_backend(${pid}::int)`.execute(other);
      } finally {
        await other.destroy();
      }
      // The first statement after may fail (the connection is gone, as before); bounded.
      let row: { etag: string | null } | undefined;
      for (let i = 0; i < 5 && row === undefined; i++)
        row = await byUrl.first(db, { url: "http://a.example/" }).catch(() => undefined);
      expect(row?.etag).toBe("a");
      const pid2 = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(db)).rows[0]
        ?.pid;
      expect(pid2).not.toBe(pid);
    } finally {
      await db.destroy();
    }
  });

  it("issue 13: two schemas on one server read each its own rows through the same name; a search_path changed on a live connection reads the new schema's", async () => {
    const a = await pool();
    const b = await pool();
    try {
      await put.run(a.db, { url: "http://same.example/", etag: "from-a" });
      await put.run(b.db, { url: "http://same.example/", etag: "from-b" });
      expect((await byUrl.first(a.db, { url: "http://same.example/" }))?.etag).toBe("from-a");
      expect((await byUrl.first(b.db, { url: "http://same.example/" }))?.etag).toBe("from-b");
      // Past the generic plan's threshold, then the search_path moved under it.
      for (let i = 0; i < 6; i++) await byUrl.first(a.db, { url: "http://same.example/" });
      const schemaB = (await sql<{ s: string }>`select current_schema() as s`.execute(b.db)).rows[0]
        ?.s as string;
      await a.db.transaction().execute(async (tx) => {
        await sql`select set_config('search_path', ${schemaB}, true)`.execute(tx);
        expect((await byUrl.first(tx, { url: "http://same.example/" }))?.etag).toBe("from-b");
      });
      expect((await byUrl.first(a.db, { url: "http://same.example/" }))?.etag).toBe("from-a");
    } finally {
      await a.db.destroy();
      await b.db.destroy();
    }
  });

  it("issue 13: a statement built once per row count (records' insert, 1 to 200 rows) holds little server memory on a connection that has run every count", async () => {
    const { db } = await pool();
    try {
      const held = async () =>
        Number(
          (
            await sql<{
              b: string;
            }>`select coalesce(sum(total_bytes), 0)::text as b from pg_backend_memory_contexts where name like 'CachedPlan%'`.execute(
              db,
            )
          ).rows[0]?.b,
        );
      const before = await held();
      for (let n = 1; n <= 200; n++) {
        const p = inserts.get(n) ?? rowsOf(n);
        inserts.set(n, p);
        const values: Record<string, unknown> = { sourceId: `s${n}`, night: "2026-11-05", at: "t" };
        for (let i = 0; i < n; i++)
          Object.assign(values, {
            [`id${i}`]: `r${i}`,
            [`title${i}`]: "t",
            [`date${i}`]: null,
            [`url${i}`]: null,
            [`kind${i}`]: null,
            [`listed${i}`]: 0,
          });
        expect(await p.rows(db, values)).toHaveLength(n);
      }
      // Unnamed, as before issue 13, a connection keeps none of them; named, every count's
      // parsed statement stays for the connection's life (about 40 MB here, each of a pool's
      // connections). A few MB at most.
      expect(await held()).toBeLessThan(before + 8 * 1024 * 1024);
    } finally {
      await db.destroy();
    }
  });

  it("issue 13: a `select *` prepared statement, a column added by another process (a newer nor's migration) under it: a transaction reading it does not fail, and reads the new column", async () => {
    const { db, url } = await pool();
    const all = prepared((d, $: Placeholder<{ url: string }>) =>
      d.selectFrom("validators").selectAll().where("url", "=", $("url")),
    );
    try {
      await put.run(db, { url: "http://a.example/", etag: "a" });
      expect((await all.first(db, { url: "http://a.example/" }))?.etag).toBe("a");
      const other = await openPostgresPool(url, 1, "revpgdirect-migrator");
      try {
        await sql`alter table validators add column newer text not null default 'n'`.execute(other);
      } finally {
        await other.destroy();
      }
      const row = (await db
        .transaction()
        .execute((tx) => all.first(tx, { url: "http://a.example/" }))) as Record<string, unknown>;
      expect(row["newer"]).toBe("n");
      // Nor `t.*`, nor `returning *`; a statement naming its columns is named.
      const allOf = prepared((d, $: Placeholder<{ url: string }>) =>
        d.selectFrom("validators").selectAll("validators").where("url", "=", $("url")),
      );
      const putAll = prepared((d, $: Placeholder<{ url: string }>) =>
        d
          .insertInto("validators")
          .values({ url: $("url"), etag: null, last_modified: null, updated_at: "t" })
          .returningAll(),
      );
      expect(
        ((await allOf.first(db, { url: "http://a.example/" })) as Record<string, unknown>)["newer"],
      ).toBe("n");
      expect(
        ((await putAll.first(db, { url: "http://b.example/" })) as Record<string, unknown>)[
          "newer"
        ],
      ).toBe("n");
      for (const p of [all, allOf, putAll])
        expect(namedTexts().has(p.compile(db, { url: "" }).sql)).toBe(false);
      expect(namedTexts().has(byUrl.compile(db, { url: "" }).sql)).toBe(true);
    } finally {
      await db.destroy();
    }
  });

  it("issue 13: every name is unique and within NAMEDATALEN (63 bytes), so no two texts share one", () => {
    const names = [...namedTexts().values()];
    expect(names.length).toBeGreaterThan(0);
    expect(new Set(names).size).toBe(names.length);
    for (const n of names) expect(Buffer.byteLength(n)).toBeLessThanOrEqual(63);
  });

  it("issue 13: now() in a named statement is read at each run, past the generic plan's threshold", async () => {
    const { db } = await pool();
    try {
      const seen = new Set<string>();
      for (let i = 0; i < 10; i++) {
        const r = await serverNow.first(db, { x: 0 });
        seen.add(r?.t as string);
      }
      expect(seen.size).toBe(10);
    } finally {
      await db.destroy();
    }
  });
});
