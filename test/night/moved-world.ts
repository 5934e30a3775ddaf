import { mkdirSync } from "node:fs";
import { afterAll } from "vitest";
import type { FleetServer } from "../fleet/fleet.js";
import { migratedSqliteIn, postgresFactory, postgresUrl } from "../store/stores.js";
import { rss } from "./cli-night.js";

/**
 * What the tests of a catalog URL that moved permanently share (moved-permanently.test.ts,
 * moved-recheck.test.ts): the stores a `nor` runs on (SQLite, and PostgreSQL where the run has
 * one, each a schema of its own), a feed with an ETag, a redirect, and the paths a site was asked.
 */
/**
 * The stores for the calling test file, its PostgreSQL schemas removed after it: called at a
 * file's top level (each file its own factory and afterAll: with isolate: false this module is
 * loaded once a worker, so a cleanup registered here would run after the first file only).
 */
export function storesOfFile() {
  const pg = postgresUrl ? postgresFactory(postgresUrl) : undefined;
  afterAll(async () => {
    await pg?.cleanup();
  });
  // Each test's store made before its first `nor`, as that `nor` would make it (migrated by
  // openStore), from the process's one migration (stores.ts `migrated`): some 35 ms of CPU less
  // a test than migrating anew; nothing these tests ask is about making a store.
  return [
    {
      name: "sqlite",
      /** The environment of a `nor` on the data directory `data`, its store made. */
      env: async (data: string): Promise<Record<string, string>> => {
        mkdirSync(data, { recursive: true });
        await migratedSqliteIn(data);
        return {};
      },
    },
    ...(pg
      ? [
          {
            name: "postgres",
            env: async (_data: string): Promise<Record<string, string>> => ({
              NOR_DATABASE_URL: ((await pg.migrated()) as { url: string }).url,
            }),
          },
        ]
      : []),
  ];
}

/** A feed with an ETag (P12): 304 to its own validator, else three items; or 404 when gone. */
export function feed(
  site: FleetServer,
  path: string,
  answer: () => "ok" | "gone" = () => "ok",
): void {
  site.route(path, (req, res) => {
    if (answer() === "gone") return void res.writeHead(404).end();
    if (req.headers["if-none-match"] === '"v1"')
      return void res.writeHead(304, { etag: '"v1"' }).end();
    res
      .writeHead(200, { "content-type": "application/rss+xml", etag: '"v1"' })
      .end(rss(site.origin, 3));
  });
}

/** A path that answers `status` to where `to` says (the tester's /moved?to=…). */
export function mover(site: FleetServer, path: string, status: number, to: () => string): void {
  site.route(path, (_q, res) => void res.writeHead(status, { location: to() }).end());
}

/** The paths `s` was asked from its request `from` on, a conditional one marked `(304?)`. */
export const paths = (s: FleetServer, from: number) =>
  s.requests.slice(from).map((r) => `${r.path}${r.headers["if-none-match"] ? " (304?)" : ""}`);
