import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rng as random } from "../../src/night/simulate.js";
import { type Fleet, type FleetServer, type SeenRequest, startFleet } from "../fleet/fleet.js";

/**
 * Crash safety, from the servers' side: a real `node bin/nor.js night` over a loopback fleet,
 * SIGKILLed at 30 seeded random moments (a request's arrival, its last byte, or 300 ms after
 * it) and restarted each time, then run to the end. What the servers saw is held to the
 * journal's promises: never two requests in flight to one site, never a gap under the floor
 * (across restarts too), never a request without its journal row, never an answer received
 * in full asked for again (unless the kill fell within the durability window after its last byte), at most three
 * attempts per URL a night with the Retry-After wait between them, no source checked twice,
 * and records neither lost nor doubled.
 */
const REPO = join(import.meta.dirname, "..", "..");
const NIGHT = "2026-11-05";
const GAP_MS = 60;
const KILLS = 30;
/**
 * The window the test grants the journal to make an answer durable after its last byte. The
 * target is 250 ms (measured on an idle machine: about 50 ms, docs/benchmarks.md); on a
 * shared 2-core CI runner under the whole suite, fsyncs queue, so the test grants 1 s.
 */
const DURABLE_MS = 1_000;
/** A "settled" kill comes this long after an answer's last byte. */
const SETTLED_MS = 1_500;

interface Seen extends SeenRequest {
  run: number;
  /** When the answer's last byte went out (undefined: cut, or never answered). */
  finishedAt?: number;
}

type Kind = "ok" | "no" | "chain" | "fails" | "gone";
interface Site {
  server: FleetServer;
  sources: { id: string; path: string; kind: Kind }[];
}

function rss(id: string, origin: string): string {
  const items = [0, 1]
    .map(
      (j) =>
        `<item><title>${id} item ${j}</title><link>${origin}/doc/${id}-${j}</link>` +
        `<guid isPermaLink="false">${id}-${j}</guid><pubDate>Thu, 05 Nov 2026 1${j}:00:00 GMT</pubDate></item>`,
    )
    .join("");
  return `<?xml version="1.0"?><rss version="2.0"><channel><title>${id}</title><link>${origin}/</link><description>d</description>${items}</channel></rss>`;
}

describe("crash safety of the journal (real process, 30 seeded SIGKILLs, restart)", () => {
  const seed = Number(process.env["NOR_CRASH_SEED"] ?? 20261105);
  const rand = random(seed);
  let fleet: Fleet;
  let dir: string;
  const seen: Seen[] = [];
  const kills: number[] = [];
  /** When each killed run was killed. */
  const killedAt = new Map<number, number>();
  let run = 0;
  let child: ChildProcess | undefined;
  let plan: { at: number; when: "arrival" | "answered" | "settled" } | undefined;
  let seenThisRun = 0;
  const sites: Site[] = [];

  const killNow = () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      kills.push(Date.now());
      killedAt.set(run, Date.now());
      child.kill("SIGKILL");
    }
    plan = undefined;
  };

  beforeAll(async () => {
    if (!existsSync(join(REPO, "dist", "night", "run-night.js"))) {
      throw new Error("dist/ is not built: run `npm run build` first");
    }
    fleet = await startFleet({ now: () => Date.now() });
    dir = mkdtempSync(join(tmpdir(), "nor-crash-"));
    const layout: { kinds: Kind[] }[] = [
      { kinds: [...Array(180).fill("ok"), "chain", "gone"] },
      { kinds: [...Array(178).fill("ok"), "fails", "chain"] },
      { kinds: Array(4).fill("no") },
      { kinds: [...Array(178).fill("ok"), "gone"] },
    ];
    for (const [si, l] of layout.entries()) {
      const box: { server?: FleetServer } = {};
      const server = await fleet.server({
        fallback: (req, res, ctx) => {
          const path = req.url ?? "/";
          const s = Object.assign(ctx.seen, { run }) as Seen;
          seen.push(s);
          seenThisRun++;
          res.once("finish", () => {
            s.finishedAt = Date.now();
            if (plan?.when === "answered" && seenThisRun >= plan.at) killNow();
            if (plan?.when === "settled" && seenThisRun >= plan.at) {
              // Well past the window even on a loaded 2-core machine: this answer must not
              // be asked again (measured idle, an answer is durable ~50 ms after its last byte).
              setTimeout(killNow, SETTLED_MS);
              plan = undefined;
            }
          });
          if (plan?.when === "arrival" && seenThisRun >= plan.at) killNow();
          const origin = box.server?.origin ?? "";
          if (path === "/robots.txt") return void res.writeHead(404).end("none");
          if (l.kinds[0] === "no") return void res.writeHead(403).end("Forbidden");
          const hop = /^\/r(\d)\/(\d+)$/.exec(path);
          if (hop) {
            const next =
              Number(hop[1]) < 3 ? `/r${Number(hop[1]) + 1}/${hop[2]}` : `/feed/${hop[2]}.xml`;
            return void res.writeHead(301, { location: `${origin}${next}` }).end();
          }
          const m = /^\/(feed|fails|gone)\/(\d+)\.xml$/.exec(path);
          if (m?.[1] === "fails")
            return void res.writeHead(503, { "retry-after": "1" }).end("busy");
          if (!m || m[1] === "gone") return void res.writeHead(404).end("no such feed");
          res
            .writeHead(200, { "content-type": "application/rss+xml" })
            .end(rss(`s${si}-${m[2]}`, origin));
        },
      });
      box.server = server;
      sites.push({
        server,
        sources: l.kinds.map((kind, i) => ({
          id: `s${si}-${i}`,
          kind,
          path:
            kind === "chain"
              ? `/r1/${i}`
              : kind === "fails"
                ? `/fails/${i}.xml`
                : kind === "gone"
                  ? `/gone/${i}.xml`
                  : `/feed/${i}.xml`,
        })),
      });
    }
    const lines = [
      "governments:",
      "  - id: gov-test",
      "    name: Test Village",
      "    kind: village",
      "sources:",
    ];
    for (const site of sites) {
      for (const s of site.sources) {
        lines.push(
          `  - id: ${s.id}`,
          "    government: gov-test",
          "    records: agendas",
          "    access: feed",
          `    url: ${site.server.url(s.path)}`,
        );
      }
    }
    writeFileSync(join(dir, "catalog.yaml"), `${lines.join("\n")}\n`);
  }, 60_000);

  afterAll(async () => {
    child?.kill("SIGKILL");
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function runOnce(): Promise<{ code: number | null; signal: string | null; stderr: string }> {
    seenThisRun = 0;
    return new Promise((resolve, reject) => {
      const args = [
        "bin/nor.js",
        "night",
        "--catalog",
        join(dir, "catalog.yaml"),
        "--data",
        dir,
        "--night",
        NIGHT,
        "--deadline",
        "10m",
        "--concurrency",
        "4",
        "--allow-private-addresses",
        "--gap-ms",
        String(GAP_MS),
      ];
      const p = spawn(process.execPath, args, { cwd: REPO, stdio: ["ignore", "ignore", "pipe"] });
      child = p;
      let stderr = "";
      p.stderr?.on("data", (c: Buffer) => {
        stderr += c.toString();
      });
      const timer = setTimeout(() => p.kill("SIGKILL"), 60_000);
      p.on("error", reject);
      p.on("exit", (code, signal) => {
        clearTimeout(timer);
        resolve({ code, signal, stderr });
      });
    });
  }

  it(`P8, P9, P10, P15, P21, P27: ${KILLS} seeded SIGKILLs, then the servers' view matches the journal's promises`, async () => {
    let killed = 0;
    for (let k = 0; k < KILLS; k++) {
      const r = rand();
      plan = {
        at: 2 + Math.floor(rand() * 5),
        when: r < 0.45 ? "arrival" : r < 0.9 ? "answered" : "settled",
      };
      const out = await runOnce();
      run++;
      if (out.signal === "SIGKILL") killed++;
      else expect(out.code, out.stderr).toBe(0);
    }
    plan = undefined;
    const last = await runOnce();
    expect(last.code, last.stderr).toBe(0);
    expect(killed, `seed ${seed}`).toBeGreaterThanOrEqual(KILLS - 2);

    const db = new Database(join(dir, "nor.db"), { readonly: true });
    try {
      const outcomes = new Map(
        (
          db.prepare("select source_id, outcome from night_sources where night = ?").all(NIGHT) as {
            source_id: string;
            outcome: string;
          }[]
        ).map((r) => [r.source_id, r.outcome]),
      );
      const all = sites.flatMap((s) => s.sources);
      expect(outcomes.size).toBe(all.length);
      const rows = db
        .prepare("select url, outcome, ended_at from request_log where night = ?")
        .all(NIGHT) as { url: string; outcome: string; ended_at: string | null }[];

      // P27: the row is written before the request: every arrival has one (a row may lack an
      // arrival when the kill came between the two). None is left "in-flight".
      const rowsByUrl = new Map<string, number>();
      for (const r of rows) rowsByUrl.set(r.url, (rowsByUrl.get(r.url) ?? 0) + 1);
      const arrivals = new Map<string, Seen[]>();
      for (const s of seen) {
        const url = `${s.origin}${s.path}`;
        arrivals.set(url, [...(arrivals.get(url) ?? []), s]);
      }
      for (const [url, list] of arrivals) {
        expect(rowsByUrl.get(url) ?? 0, `journal rows for ${url}`).toBeGreaterThanOrEqual(
          list.length,
        );
      }
      expect(rows.filter((r) => r.outcome === "in-flight")).toEqual([]);

      // P8: an answer received in full is never asked again tonight, unless the process was
      // killed within the durability window after its last byte. P15: the 503 at most 3 times,
      // at least its Retry-After apart.
      for (const [url, list] of arrivals) {
        if (url.includes("/fails/")) {
          // An attempt whose run was killed before its answer was durable may be sent again;
          // every other one counts: at most 3, each at least Retry-After (1 s) after the last.
          const cut = (x: Seen) => {
            const k = killedAt.get(x.run);
            return k !== undefined && k <= (x.finishedAt ?? x.endedAt) + DURABLE_MS;
          };
          const counted = list.filter((x) => !cut(x));
          expect(counted.length, url).toBeLessThanOrEqual(3);
          for (let i = 1; i < list.length; i++) {
            const prev = list[i - 1] as Seen;
            if (cut(prev)) continue;
            expect((list[i] as Seen).startedAt - prev.endedAt, url).toBeGreaterThanOrEqual(
              1000 - 5,
            );
          }
          continue;
        }
        for (let i = 1; i < list.length; i++) {
          const prev = list[i - 1] as Seen;
          if (prev.finishedAt === undefined) continue; // cut by a kill: may be asked again
          // Excused only when the run that received it was killed before, or within the window
          // after, its last byte went out (the server may even log "finish" after the kill:
          // the bytes then went to a dead socket).
          const k = killedAt.get(prev.run);
          const excused = k !== undefined && k <= prev.finishedAt! + DURABLE_MS;
          expect(
            excused,
            `${url} asked again after a full answer (run ${prev.run}; killed ${k === undefined ? "never" : `+${k - prev.finishedAt!} ms`})`,
          ).toBe(true);
        }
      }

      // P9, P10 across restarts: per site (one IP each) never two in flight; the gap holds.
      for (const site of sites) {
        const reqs = [...site.server.requests].sort((a, b) => a.startedAt - b.startedAt);
        for (let i = 1; i < reqs.length; i++) {
          const gap = (reqs[i] as SeenRequest).startedAt - (reqs[i - 1] as SeenRequest).endedAt;
          expect(gap, `${site.server.host} ${reqs[i]?.path}`).toBeGreaterThanOrEqual(GAP_MS - 1);
        }
      }

      // P21: once the site said no (its 403 received in full), nothing more goes there, unless
      // the kill fell inside the durability window of that 403.
      const no = sites[2] as Site;
      const pages = no.server.requests.filter((r) => r.path !== "/robots.txt") as Seen[];
      const firstNo = pages.find((r) => r.finishedAt !== undefined);
      expect(firstNo).toBeDefined();
      for (const r of pages.filter((p) => p.startedAt > (firstNo?.finishedAt ?? 0))) {
        const k = killedAt.get(firstNo!.run);
        const excused =
          r.run > firstNo!.run && k !== undefined && k <= firstNo!.finishedAt! + DURABLE_MS;
        expect(excused, `${r.path} sent after the site said no`).toBe(true);
      }
      const reasons = db
        .prepare("select source_id, outcome, reason from night_sources where night = ?")
        .all(NIGHT);
      for (const s of no.sources)
        expect(
          outcomes.get(s.id),
          JSON.stringify(reasons.filter((r) => JSON.stringify(r).includes(`"${s.id}"`))),
        ).toBe("refused");

      // Records: every readable feed has exactly its two items, none doubled, all new tonight.
      const records = db.prepare("select source_id, record_id from records").all() as {
        source_id: string;
        record_id: string;
      }[];
      const okIds = all.filter((s) => s.kind === "ok" || s.kind === "chain").map((s) => s.id);
      for (const id of okIds) expect(outcomes.get(id), id).toBe("ok");
      for (const id of okIds)
        expect(
          records.filter((r) => r.source_id === id),
          id,
        ).toHaveLength(2);
      expect(records).toHaveLength(okIds.length * 2);
      const newSum = (
        db.prepare("select sum(new_records) n from night_sources where night = ?").get(NIGHT) as {
          n: number;
        }
      ).n;
      expect(newSum).toBe(records.length);
    } finally {
      db.close();
    }
  }, 240_000);
});
