/**
 * The web server under load, on a store of 1,000,000 request-log rows and 100,000 records
 * (1,000 governments, 4,000 sources, 31 nights). The real `nor serve` runs
 * as a child process; autocannon (in this process) measures p50/p99 and requests/s of home, a
 * source page, /new, a feed and the API against a static file served by the same server in the
 * same run (the baseline). Then /site-owners' p99 alone and while the console's heaviest page
 * is asked in a loop, and the same for the app reading on its event loop (no read pools: how
 * `nor serve` read before), for comparison.
 *
 * The store is written through the store's own writers (catalog import, the night store's
 * commits, the request log's batch append), many rows per transaction and with a large page
 * cache, in about 70 s of CPU.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon, { type Result } from "autocannon";
import type { Purpose, RequestLogEntry } from "../src/net/types.js";
import type { SourceResult } from "../src/night/types.js";
import { addDays, nightOf } from "../src/policy/night-date.js";
import { siteOf } from "../src/policy/site.js";
import { OHIO_COUNTIES } from "../src/sources/catalog/counties.js";
import type { Catalog, Government, GovernmentKind, Source } from "../src/sources/catalog/types.js";
import { importCatalog } from "../src/sources/catalog-import.js";
import type { RecordKind } from "../src/sources/record.js";
import { openStore } from "../src/store/db.js";
import { SqlNightStore } from "../src/store/night-store.js";
import { storePasswordHash } from "../src/store/read/console.js";
import { SqlRequestLog } from "../src/store/request-log.js";
import { hashPassword } from "../src/web/console/password.js";

const GOVERNMENTS = 1_000;
const KINDS: RecordKind[] = ["bids", "agendas", "minutes", "notices"];
const NIGHTS = 31;
const LOG_ROWS = 1_000_000;
const LOG_BATCH = 50_000;
const PASSWORD = "benchmark operator password";
/** Seconds of load per route; connections kept open by autocannon. */
const SECONDS = 8;
const CONNECTIONS = 8;
const HOUR = 3_600_000;

const GOV_KINDS: GovernmentKind[] = ["city", "village", "township", "school-district", "county"];

function catalog(): Catalog {
  const governments: Government[] = [];
  const sources: Source[] = [];
  for (let g = 0; g < GOVERNMENTS; g++) {
    const kind = GOV_KINDS[g % GOV_KINDS.length] ?? "city";
    governments.push({
      id: `gov-${g}`,
      name: `${kind === "school-district" ? "School District" : kind} ${g}`,
      kind,
      county: OHIO_COUNTIES[g % OHIO_COUNTIES.length] as string,
      website: `https://gov${g}.example/`,
    });
    for (const records of KINDS) {
      sources.push({
        id: `gov-${g}-${records}`,
        government: `gov-${g}`,
        records,
        access: "feed",
        url: `https://gov${g}.example/${records}.rss`,
        alternates: [],
        backfill: { pagesPerNight: 3 },
        confirmed: true,
        name: `${records} of government ${g}`,
      });
    }
  }
  return { governments, sources, leads: [] };
}

/** The night's outcome for source `s` on night `k`: 2% of sites say no, a few go unreached. */
const RECORDS = 100_000;
const refused = (s: number) => Math.floor(s / KINDS.length) % 50 === 7;
const unreached = (s: number, k: number) =>
  Math.floor(s / KINDS.length) % 100 === 13 && k % 2 === 1;

/**
 * New records of source `s` on night `k`: night 0 reads 10 per source (its backfill), then
 * half the sources have one new a night; night 0 tops the whole up to RECORDS exactly.
 */
function newRecordCounts(sources: number): (s: number, k: number) => number {
  const later = (s: number, k: number) => (refused(s) || unreached(s, k) ? 0 : (s + k) % 2);
  let total = 0;
  for (let s = 0; s < sources; s++) {
    if (!refused(s)) total += 10;
    for (let k = 1; k < NIGHTS; k++) total += later(s, k);
  }
  let extra = RECORDS - total;
  const first = new Map<number, number>();
  for (let s = 0; s < sources; s++) {
    if (refused(s)) continue;
    first.set(s, 10 + (extra > 0 ? 1 : 0));
    extra--;
  }
  return (s, k) => (k === 0 ? (first.get(s) ?? 0) : later(s, k));
}

function result(
  src: Source,
  s: number,
  k: number,
  n: number,
  night: string,
  at: number,
): SourceResult {
  const g = Math.floor(s / KINDS.length);
  const base = {
    sourceId: src.id,
    validators: [],
    flags: [],
    startedAt: at,
    endedAt: at + 800,
  };
  if (refused(s))
    return {
      ...base,
      records: [],
      outcome: {
        kind: "refused",
        reason: "403 with a challenge page",
        status: 403,
        url: src.url,
        evidence: { provider: "cloudflare", verdict: "challenge", reference: `ref-${g}-${k}` },
      },
      way: { skipped: [] },
    };
  if (unreached(s, k))
    return {
      ...base,
      records: [],
      outcome: { kind: "unreached", reason: "the night's time limit passed" },
    };
  const records = Array.from({ length: n }, (_, i) => ({
    id: `${src.url}#${k}-${i}`,
    title: `${src.records} ${night} item ${i} of government ${g}`,
    date: night,
    url: `https://gov${g}.example/${src.records}/${k}-${i}`,
    kind: src.records,
  }));
  return {
    ...base,
    records,
    outcome: { kind: n > 0 ? "ok" : "unchanged", url: src.url },
    way: { used: { access: "feed", url: src.url }, skipped: [] },
  };
}

/** The log's rows of night `k`: the night's sources in turn, from 01:00 New York on. */
function* logRows(
  sources: readonly Source[],
  nights: readonly string[],
): Generator<RequestLogEntry> {
  const perNight = Math.ceil(LOG_ROWS / nights.length);
  // Each source's site, origin and robots.txt once, not per row.
  const where = sources.map((src) => ({
    site: siteOf(src.url),
    origin: new URL(src.url).origin,
    robots: new URL("/robots.txt", src.url).href,
  }));
  let written = 0;
  for (const night of nights) {
    const start = Date.parse(`${addDays(night, 1)}T06:00:00.000Z`);
    for (let j = 0; j < perNight && written < LOG_ROWS; j++, written++) {
      const src = sources[j % sources.length] as Source;
      const w = where[j % sources.length] as (typeof where)[number];
      const startedAt = start + Math.floor((j * 5 * HOUR) / perNight);
      const purpose: Purpose = j % 8 === 0 ? "robots" : j % 8 === 1 ? "backfill" : "page";
      const url = purpose === "robots" ? w.robots : `${src.url}?p=${j}`;
      yield {
        startedAt,
        endedAt: startedAt + 120 + (j % 400),
        method: "GET",
        url,
        status: j % 97 === 0 ? 503 : 200,
        outcome: j % 97 === 0 ? "retry" : "ok",
        bytes: 2_000 + (j % 50_000),
        site: w.site,
        origin: w.origin,
        source: src.id,
        purpose,
        attempt: 1,
        night,
      };
    }
  }
}

interface Built {
  dir: string;
  nights: string[];
  records: number;
  logRows: number;
  seconds: number;
  /** CPU time of this process while building (SQLite's work included). */
  cpuSeconds: number;
}

/** Builds the store in a new temporary directory (the caller removes it). */
export async function buildStore(say: (line: string) => void = () => {}): Promise<Built> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const dir = mkdtempSync(join(tmpdir(), "nor-bench-web-"));
  const store = await openStore({ kind: "sqlite", dir }, { cacheMiB: 512 });
  const cat = catalog();
  const yesterday = addDays(nightOf(Date.now()), -1);
  const nights = Array.from({ length: NIGHTS }, (_, k) => addDays(yesterday, k - (NIGHTS - 1)));
  const first = Date.parse(`${nights[0]}T12:00:00.000Z`) - 86_400_000;
  const files = (ids: { id: string }[]) => new Map(ids.map((x) => [x.id, "bench.yaml"]));
  await importCatalog(
    store.db,
    cat,
    { governments: files(cat.governments), sources: files(cat.sources) },
    first,
  );
  say(`catalog: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const ns = new SqlNightStore(store.db);
  const counts = newRecordCounts(cat.sources.length);
  let records = 0;
  for (const [k, night] of nights.entries()) {
    const at = Date.parse(`${addDays(night, 1)}T06:00:00.000Z`);
    await ns.openNight(night, at, at + 6 * HOUR);
    if (k === 0)
      await ns.syncSources(
        cat.sources.map((s) => ({
          id: s.id,
          government: s.government,
          url: s.url,
          site: siteOf(s.url),
        })),
        at,
      );
    records += await ns.commitMany(
      night,
      cat.sources.map((src, s) => result(src, s, k, counts(s, k), night, at + s * 4_000)),
    );
    await ns.finishNight(night, at + 5 * HOUR);
  }
  say(`nights and records: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const log = new SqlRequestLog(store.db);
  let batch: RequestLogEntry[] = [];
  let rows = 0;
  for (const e of logRows(cat.sources, nights)) {
    batch.push(e);
    if (batch.length === LOG_BATCH) {
      await log.appendMany(batch);
      rows += batch.length;
      batch = [];
    }
  }
  await log.appendMany(batch);
  rows += batch.length;
  say(`request log: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  await storePasswordHash(store.db, await hashPassword(PASSWORD), Date.now());
  await store.close();
  const used = process.cpuUsage(cpu);
  return {
    dir,
    nights,
    records,
    logRows: rows,
    seconds: (performance.now() - started) / 1000,
    cpuSeconds: (used.user + used.system) / 1e6,
  };
}

/** Starts the server child and resolves to its URL (no trailing slash). */
function startServer(
  mode: "nor" | "main-thread",
  dir: string,
): Promise<{ url: string; child: ChildProcess }> {
  const script = join(import.meta.dirname, "serve-child.js");
  const child = spawn(process.execPath, [script, mode, dir], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /the directory is at (http:\/\/[^\s]+?)\/?\n/.exec(out);
      if (m?.[1]) resolve({ url: m[1], child });
    });
    child.once("exit", (code) => reject(new Error(`server (${mode}) exited ${code}: ${out}`)));
  });
}

async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
    setTimeout(() => child.kill("SIGKILL"), 10_000).unref();
  });
}

async function signIn(url: string): Promise<string> {
  const res = await fetch(`${url}/console/sign-in`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: url },
    body: new URLSearchParams({ password: PASSWORD }).toString(),
    redirect: "manual",
  });
  const cookies = res.headers.getSetCookie().map((c) => c.split(";")[0] ?? "");
  if (res.status !== 303 || cookies.length === 0)
    throw new Error(`sign-in answered ${res.status}: ${await res.text()}`);
  return cookies.join("; ");
}

const HEADERS = { "accept-encoding": "gzip" };

async function load(url: string, connections = CONNECTIONS): Promise<Result> {
  const r = await autocannon({ url, connections, duration: SECONDS, headers: HEADERS });
  if (r.non2xx > 0 || r.errors > 0)
    throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return r;
}

/** One request, timed: how long one console page takes on its own. */
async function once(url: string, cookie: string): Promise<number> {
  const t = performance.now();
  const res = await fetch(url, { headers: { cookie } });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return performance.now() - t;
}

/** Asks `url` again and again (one at a time) until `stop` resolves; returns the count. */
async function loop(url: string, cookie: string, stop: Promise<void>): Promise<number> {
  let done = false;
  void stop.then(() => {
    done = true;
  });
  let n = 0;
  while (!done) {
    await once(url, cookie);
    n++;
  }
  return n;
}

type Timed = { name: string; path: string; t: number };

const ms = (x: number) => (x < 10 ? x.toFixed(1) : x.toFixed(0));
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;
const ratio = (x: number) => `${x.toFixed(1)}×`;

export async function run(): Promise<string> {
  const built = await buildStore();
  const last = built.nights[built.nights.length - 1] as string;
  const first = built.nights[0] as string;
  const lines: string[] = [];
  try {
    const nor = await startServer("nor", built.dir);
    try {
      const url = nor.url;
      const routes = [
        { name: "static file (/assets/site.css), the baseline", path: "/assets/site.css" },
        { name: "home (/)", path: "/" },
        { name: "a source page (/sources/gov-500-bids)", path: "/sources/gov-500-bids" },
        { name: "what is new (/new)", path: "/new" },
        { name: "a feed (/new.atom)", path: "/new.atom" },
        { name: "the API (/api/new)", path: "/api/new" },
      ];
      for (const r of routes) await once(`${url}${r.path}`, "");
      const results: { name: string; r: Result }[] = [];
      for (const r of routes) results.push({ name: r.name, r: await load(`${url}${r.path}`) });
      const base = results[0]?.r as Result;
      lines.push(
        `Store: ${built.logRows.toLocaleString("en-US")} request-log rows, ${built.records.toLocaleString("en-US")} records, ${GOVERNMENTS.toLocaleString("en-US")} governments, ${(GOVERNMENTS * KINDS.length).toLocaleString("en-US")} sources, ${NIGHTS} nights (${first} to ${last}); built in ${built.seconds.toFixed(0)} s (${built.cpuSeconds.toFixed(0)} s of CPU) through the store's own writers.`,
        "",
        `\`nor serve\` as a child process; autocannon in the parent, ${CONNECTIONS} connections, ${SECONDS} s per route, \`Accept-Encoding: gzip\`, one route after another.`,
        "",
        "| route | answer (gzip) | p50 | p99 | req/s | p50 / static | p99 / static | static req/s / route req/s |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
      );
      for (const { name, r } of results) {
        lines.push(
          `| ${name} | ${kb(r.throughput.average / r.requests.average)} | ${ms(r.latency.p50)} ms | ${ms(r.latency.p99)} ms | ${r.requests.average.toFixed(0)} | ${ratio(r.latency.p50 / Math.max(base.latency.p50, 1))} | ${ratio(r.latency.p99 / Math.max(base.latency.p99, 1))} | ${ratio(base.requests.average / r.requests.average)} |`,
        );
      }

      const cookie = await signIn(url);
      const consolePages = [
        { name: "overview (/console: last night's report)", path: "/console" },
        { name: `a night's report (/console/nights/${first})`, path: `/console/nights/${first}` },
        { name: "the nights (/console/nights)", path: "/console/nights" },
        { name: "sources (/console/sources)", path: "/console/sources" },
        {
          name: `log search, one site, one night (/console/log?since=${last}&site=…)`,
          path: `/console/log?${new URLSearchParams({ since: last, until: addDays(last, 1), site: "gov500.example" })}`,
        },
        {
          name: "log search, 31 nights, a URL that matches nothing",
          path: `/console/log?${new URLSearchParams({ since: first, until: addDays(last, 1), url: "no-such-path" })}`,
        },
        {
          name: "log download, one night (/console/log.json, 50,000 rows cap)",
          path: `/console/log.json?${new URLSearchParams({ since: last, until: addDays(last, 1) })}`,
        },
      ];
      const timed: Timed[] = [];
      for (const p of consolePages) {
        await once(`${url}${p.path}`, cookie);
        timed.push({ ...p, t: await once(`${url}${p.path}`, cookie) });
      }
      const heaviest = timed.reduce((a, b) => (b.t > a.t ? b : a));
      // The heaviest single statement: the month's index range read row by row for the URL
      // (all of its time is SQL); and the heaviest page, if another (its rows also become JSON
      // or HTML on the server's main thread).
      const heaviestSql = timed.find((p) => p.name.startsWith("log search, 31 nights")) as Timed;
      const loops = heaviest === heaviestSql ? [heaviestSql] : [heaviestSql, heaviest];
      lines.push(
        "",
        "The console's pages, one request each on an otherwise idle server (the second of two asks):",
        "",
        "| console page | time |",
        "| --- | --- |",
        ...timed.map((p) => `| ${p.name} | ${ms(p.t)} ms |`),
        "",
        `/site-owners (no SQL), ${CONNECTIONS} connections, ${SECONDS} s, alone and while one console page is asked again and again (one at a time, signed in):`,
        "",
        "| server | console meanwhile | /site-owners p50 | p99 | req/s | console page answered |",
        "| --- | --- | --- | --- | --- | --- |",
      );
      const owners = async (u: string, cookieFor: string, mode: string) => {
        const alone = await load(`${u}/site-owners`);
        lines.push(
          `| ${mode} | nothing | ${ms(alone.latency.p50)} ms | ${ms(alone.latency.p99)} ms | ${alone.requests.average.toFixed(0)} | – |`,
        );
        const busy: Result[] = [];
        for (const page of loops) {
          let stop!: () => void;
          const stopped = new Promise<void>((r) => {
            stop = r;
          });
          const looping = loop(`${u}${page.path}`, cookieFor, stopped);
          const r = await load(`${u}/site-owners`);
          stop();
          const n = await looping;
          busy.push(r);
          lines.push(
            `| ${mode} | ${page.name} | ${ms(r.latency.p50)} ms | ${ms(r.latency.p99)} ms | ${r.requests.average.toFixed(0)} | ${n} times |`,
          );
        }
        return { alone, busy };
      };
      const withPools = await owners(url, cookie, "`nor serve` (reads in worker threads)");
      await stopServer(nor.child);
      const old = await startServer("main-thread", built.dir);
      let onLoop: Awaited<ReturnType<typeof owners>>;
      try {
        onLoop = await owners(
          old.url,
          await signIn(old.url),
          "the same app, reads on the event loop (no read pools)",
        );
      } finally {
        await stopServer(old.child);
      }
      const p99 = (o: typeof withPools, i: number) =>
        ratio((o.busy[i]?.latency.p99 ?? 0) / Math.max(o.alone.latency.p99, 1));
      lines.push("");
      for (const [i, page] of loops.entries()) {
        lines.push(
          `/site-owners p99 while ${page.name} runs in a loop, against /site-owners alone in the same server: **${p99(withPools, i)}** with the read pools, ${p99(onLoop, i)} with reads on the event loop.`,
          "",
        );
      }
    } finally {
      await stopServer(nor.child);
    }
  } finally {
    rmSync(built.dir, { recursive: true, force: true });
  }
  return ["## The web server", "", ...lines].join("\n");
}
