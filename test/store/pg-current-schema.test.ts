import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { postgresFactory, postgresUrl } from "./stores.js";

describe.skipIf(!postgresUrl)("a PostgreSQL store's table listing", () => {
  const f = postgresFactory(postgresUrl ?? "");
  afterAll(() => f.cleanup());

  it("lists only the tables of its own schema, so another schema dropped meanwhile cannot fail its opening", async () => {
    const mine = await f.fresh();
    const other = await f.fresh();
    const s = await openStore(mine);
    try {
      // A table in another schema, as another store's would be.
      const otherSchema = new URL(other.kind === "postgres" ? other.url : "").searchParams
        .get("options")
        ?.match(/search_path=(\S+)/)?.[1];
      expect(otherSchema).toBeDefined();
      const c = new pg.Client({ connectionString: postgresUrl });
      await c.connect();
      try {
        await c.query(`create table "${otherSchema}".elsewhere (x int)`);
      } finally {
        await c.end();
      }
      const tables = await s.db.introspection.getTables({ withInternalKyselyTables: true });
      const names = tables.map((t) => t.name);
      expect(names).toContain("request_log");
      expect(names).toContain("kysely_migration");
      expect(names).not.toContain("elsewhere");
      expect(new Set(tables.map((t) => t.schema)).size).toBe(1);
      const log = tables.find((t) => t.name === "request_log");
      expect(log?.columns.map((c) => c.name)).toContain("started_at");
      // Without kysely's own tables when not asked for them.
      const user = await s.db.introspection.getTables();
      expect(user.map((t) => t.name)).not.toContain("kysely_migration");
      // Opened again: the migrator finds its tables in this schema and has nothing to do.
    } finally {
      await s.close();
    }
    const again = await openStore(mine);
    await again.close();
  });
});
