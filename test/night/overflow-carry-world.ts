import { mkdirSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { join } from "node:path";
import Database from "better-sqlite3";
import { runMain } from "../cli/cli-capture.js";
import type { FleetServer, Handler } from "../fleet/fleet.js";
import { ask, type NewAnswer } from "../review/tester-new-world.js";
import { migratedSqliteIn } from "../store/stores.js";
import { nightOn, noRobots, type TesterWorld, testerCatalog } from "./tester-nights.js";

/**
 * What the tests of an overflow carried over (overflow-carry*.test.ts) share: a list of records
 * PER_PAGE a page read by RECIPE, what a night asked of it, and what came new on record.
 */
export const RECIPE = "extract: { items: li, title: a, link: a, date: span, next: a.next }";
export const PER_PAGE = 3;

/** Each request for the list's pages on `night`: its path (robots.txt aside). */
export function asked(data: string, night: string): string[] {
  const db = new Database(join(data, "nor.db"), { readonly: true });
  try {
    const rows = db
      .prepare(
        "select url from request_log where night = ? and purpose != 'robots' order by started_at, id",
      )
      .all(night) as { url: string }[];
    return rows.map((r) => {
      const u = new URL(r.url);
      return u.pathname + u.search;
    });
  } finally {
    db.close();
  }
}

/** The status the site answered for `path` on `night` (its first request for it). */
export function statusOf(data: string, night: string, path: string): number | undefined {
  const db = new Database(join(data, "nor.db"), { readonly: true });
  try {
    const rows = db
      .prepare("select url, status from request_log where night = ? order by started_at, id")
      .all(night) as { url: string; status: number | null }[];
    const row = rows.find((r) => {
      const u = new URL(r.url);
      return u.pathname + u.search === path;
    });
    return row?.status ?? undefined;
  } finally {
    db.close();
  }
}

/** The titles new on record on `night`, sorted. */
export async function newTitles(data: string, night: string): Promise<string[]> {
  const [fresh] = await ask<NewAnswer>(data, `${night}T15:00:00Z`, [`/api/new?night=${night}`]);
  return (fresh?.json?.items ?? []).map((i) => i.title).sort();
}

/** How many records came new on record on `night`. */
export async function newCount(data: string, night: string): Promise<number> {
  const [answer] = await ask<NewAnswer>(data, `${night}T15:00:00Z`, [`/api/new?night=${night}`]);
  return answer?.json?.items?.length ?? 0;
}

/** "R from" to "R to", sorted as titles are. */
export const titles = (from: number, to: number): string[] =>
  Array.from({ length: to - from + 1 }, (_, i) => `R ${from + i}`).sort();

/** Record numbers `count` down to 1, newest first. */
export const desc = (count: number): number[] => Array.from({ length: count }, (_, i) => count - i);

/** A record of the list as the site shows it: "R n", its file under /d, posted 11/01/2026. */
const record = (n: number): string =>
  `<li><a href="/d/r-${n}.pdf">R ${n}</a> <span>11/01/2026</span></li>`;

export interface ListOptions {
  /** Answers instead of the list's page when it says so. */
  fail?: (page: number, res: ServerResponse) => boolean;
  /** One record's item. */
  item?: (n: number) => string;
  /** Called once the page's answer is sent. */
  sent?: (page: number) => void;
}

/** The list of `order()` record numbers, PER_PAGE a page, each page linking the next. */
export function list(order: () => number[], opts: ListOptions = {}) {
  const { fail, item = record, sent } = opts;
  return (req: IncomingMessage, res: ServerResponse): void => {
    const page = Number(new URL(req.url ?? "/", "http://x").searchParams.get("page") ?? "1");
    if (fail?.(page, res)) return;
    const all = order();
    const rows = all.slice((page - 1) * PER_PAGE, page * PER_PAGE);
    const more = page * PER_PAGE < all.length;
    const body = `<ul>${rows.map(item).join("")}</ul>${more ? `<a class="next" href="/list?page=${page + 1}">Next</a>` : ""}`;
    const head = res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    if (sent) head.end(body, () => sent(page));
    else head.end(body);
  };
}

/** A `fail` for `list`: page `page` answered by `answer` while `when()` holds. */
export const pageFails =
  (page: number, when: () => boolean, answer: (res: ServerResponse) => void) =>
  (asked: number, res: ServerResponse): boolean => {
    if (!when() || asked !== page) return false;
    answer(res);
    return true;
  };

/** A 400 answer, as a site's broken pager gives. */
export const badRequest = (res: ServerResponse): void =>
  void res.writeHead(400, { "content-type": "text/plain" }).end("Bad Request");

/**
 * `page` behind an etag of the list's `count()` and the page asked: a request naming it (a
 * conditional one) answered 304.
 */
export function etagged(
  count: () => number,
  page: (req: IncomingMessage, res: ServerResponse) => void,
) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const n = new URL(req.url ?? "/", "http://x").searchParams.get("page") ?? "1";
    const etag = `"c${count()}-p${n}"`;
    if (req.headers["if-none-match"] === etag) return void res.writeHead(304, { etag }).end();
    res.setHeader("etag", etag);
    page(req, res);
  };
}

export interface FlagRow {
  kind: string;
  source: string;
  detail: string;
}

/** Every flag `nor flags --json` lists for `data`. */
export async function flagsOf(data: string): Promise<FlagRow[]> {
  return JSON.parse((await runMain(["flags", "--data", data, "--json"])).stdout) as FlagRow[];
}

/** The catalog line of the one source, `list`, read from `url` by `recipe`. */
export const listSource = (url: string, recipe = RECIPE): string =>
  `  - { id: list, government: city-of-test, records: bids, url: "${url}", ${recipe} }`;

export interface ListSite {
  site: FleetServer;
  catalog: string;
  data: string;
}

/**
 * The data directory `name` in the world's, its store made as the first `nor night` there would
 * make it (migrated by openStore), from the process's one migration (test/store/stores.ts): some
 * 35 ms of CPU less a test than migrating anew. Nothing these tests ask is about making a store.
 */
export async function dataDir(world: TesterWorld, name: string): Promise<string> {
  const data = join(world.dir, name);
  mkdirSync(data);
  await migratedSqliteIn(data);
  return data;
}

/**
 * A site whose /list answers `list` (robots.txt 404 unless `robots` is given), a catalog of it
 * alone named `name`, its data directory, and its first night (2026-11-20) run.
 */
export async function listSite(
  world: TesterWorld,
  name: string,
  list: Handler,
  robots: Handler = noRobots,
): Promise<ListSite> {
  const site = await world.fleet.server();
  site.route("/robots.txt", robots);
  site.route("/list", list);
  const catalog = testerCatalog(world.dir, name, [listSource(site.url("/list"))]);
  const data = await dataDir(world, name);
  await nightOn(catalog, data, "2026-11-20");
  return { site, catalog, data };
}
