import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Fleet, type FleetServer, type SeenRequest, startFleet } from "../fleet/fleet.js";

/**
 * Crash safety, from the outside: a real `node bin/nor.js night` against loopback servers,
 * killed with SIGKILL at 12 different points (on a request's arrival or right after its
 * answer), restarted each time, then run to the end. The servers' own log and the store are
 * then held to: no source checked twice, no request repeated whose answer was stored, no
 * record lost or duplicated, no gap below the floor across a restart (P10), a no still
 * closing its lane after a restart (P21).
 */
const REPO = join(import.meta.dirname, "..", "..");
const NIGHT = "2026-11-05";
const GAP_MS = 60;
const KILLS: { at: number; when: "arrival" | "answered" }[] = [
  { at: 1, when: "arrival" },
  { at: 2, when: "answered" },
  { at: 4, when: "arrival" },
  { at: 6, when: "answered" },
  { at: 8, when: "arrival" },
  { at: 10, when: "answered" },
  { at: 12, when: "arrival" },
  { at: 14, when: "answered" },
  { at: 16, when: "arrival" },
  { at: 18, when: "answered" },
  { at: 20, when: "arrival" },
  { at: 22, when: "answered" },
];

interface Seen extends SeenRequest {
  run: number;
}

function rss(source: string, origin: string): string {
  const items = [0, 1]
    .map(
      (j) =>
        `<item><title>${source} item ${j}</title><link>${origin}/doc/${source}-${j}</link>` +
        `<guid isPermaLink="false">${source}-${j}</guid><pubDate>Thu, 05 Nov 2026 1${j}:00:00 GMT</pubDate></item>`,
    )
    .join("");
  return `<?xml version="1.0"?><rss version="2.0"><channel><title>${source}</title><link>${origin}/</link><description>d</description>${items}</channel></rss>`;
}

describe("crash safety of the night (real process, SIGKILL, restart)", () => {
  let fleet: Fleet;
  let dir: string;
  const seen: Seen[] = [];
  let run = 0;
  let child: ChildProcess | undefined;
  let kill: { at: number; when: "arrival" | "answered" } | undefined;
  const servers: { server: FleetServer; sources: number; saysNo: boolean }[] = [];

  const onSeen = (s: SeenRequest, phase: "arrival" | "answered") => {
    if (phase === "arrival") seen.push(Object.assign(s, { run }));
    if (kill && kill.when === phase && seen.length >= kill.at) {
      child?.kill("SIGKILL");
      kill = undefined;
    }
  };

  beforeAll(async () => {
    if (!existsSync(join(REPO, "dist", "night", "run-night.js"))) {
      throw new Error("dist/ is not built: run `npm run build` first");
    }
    fleet = await startFleet();
    dir = mkdtempSync(join(tmpdir(), "nor-crash-"));
    const plan = [
      { sources: 6, saysNo: false },
      { sources: 5, saysNo: false },
      { sources: 4, saysNo: false },
      { sources: 3, saysNo: true },
    ];
    for (const p of plan) {
      const box: { server?: FleetServer } = {};
      const server = await fleet.server({
        fallback: (req, res, ctx) => {
          const path = req.url ?? "/";
          const s = ctx.seen;
          onSeen(s, "arrival");
          res.once("finish", () => onSeen(s, "answered"));
          if (path === "/robots.txt") return void res.writeHead(404).end("none");
          if (p.saysNo)
            return void res.writeHead(403, { "content-type": "text/plain" }).end("Forbidden");
          const m = /^\/feed\/(\d+)\.xml$/.exec(path);
          if (!m) return void res.writeHead(404).end();
          const origin = box.server?.origin ?? "";
          res
            .writeHead(200, { "content-type": "application/rss+xml" })
            .end(rss(`${box.server?.host}-${m[1]}`, origin));
        },
      });
      box.server = server;
      servers.push({ server, sources: p.sources, saysNo: p.saysNo });
    }
    const lines = [
      "governments:",
      "  - id: gov-test",
      "    name: Test Village",
      "    kind: village",
      "sources:",
    ];
    servers.forEach(({ server, sources }, si) => {
      for (let i = 0; i < sources; i++) {
        lines.push(
          `  - id: s${si}-${i}`,
          "    government: gov-test",
          "    records: agendas",
          "    access: feed",
          `    url: ${server.url(`/feed/${i}.xml`)}`,
        );
      }
    });
    writeFileSync(join(dir, "catalog.yaml"), `${lines.join("\n")}\n`);
  }, 60_000);

  afterAll(async () => {
    child?.kill("SIGKILL");
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function runOnce(): Promise<{ code: number | null; signal: string | null; stderr: string }> {
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
      ];
      args.push(
        "--deadline",
        "10m",
        "--concurrency",
        "3",
        "--allow-private-addresses",
        "--gap-ms",
        String(GAP_MS),
      );
      const p = spawn(process.execPath, args, { cwd: REPO, stdio: ["ignore", "ignore", "pipe"] });
      child = p;
      let stderr = "";
      p.stderr?.on("data", (c: Buffer) => {
        stderr += c.toString();
      });
      const timer = setTimeout(() => p.kill("SIGKILL"), 30_000);
      p.on("error", reject);
      p.on("exit", (code, signal) => {
        clearTimeout(timer);
        resolve({ code, signal, stderr });
      });
    });
  }

  function snapshot(): { outcomes: Map<string, string>; robots: Set<string> } {
    const file = join(dir, "nor.db");
    if (!existsSync(file)) return { outcomes: new Map(), robots: new Set() };
    const db = new Database(file, { readonly: true });
    try {
      const outcomes = new Map(
        (
          db.prepare("select source_id, outcome from night_sources where night = ?").all(NIGHT) as {
            source_id: string;
            outcome: string;
          }[]
        ).map((r) => [r.source_id, r.outcome]),
      );
      const robots = new Set(
        (db.prepare("select origin from robots_cache").all() as { origin: string }[]).map(
          (r) => r.origin,
        ),
      );
      return { outcomes, robots };
    } finally {
      db.close();
    }
  }

  it("P10, P13, P21: killed at 12 points and restarted, the night ends with every source checked once, no record lost or doubled, no answer asked twice, no gap below the floor", async () => {
    const before: ReturnType<typeof snapshot>[] = [];
    let killed = 0;
    for (const k of KILLS) {
      before.push(snapshot());
      kill = k;
      const r = await runOnce();
      run++;
      if (r.signal === "SIGKILL") killed++;
      else expect(r.code, r.stderr).toBe(0);
    }
    before.push(snapshot());
    kill = undefined;
    const last = await runOnce();
    expect(last.code, last.stderr).toBe(0);
    expect(killed).toBeGreaterThanOrEqual(10);

    const total = servers.reduce((n, s) => n + s.sources, 0);
    const after = snapshot();
    expect(after.outcomes.size).toBe(total);

    const sourceOf = (s: Seen) => {
      const si = servers.findIndex((x) => x.server.host === s.host && x.server.origin === s.origin);
      const m = /^\/feed\/(\d+)\.xml$/.exec(s.path);
      return m ? `s${si}-${m[1]}` : undefined;
    };
    for (const s of seen) {
      const snap = before[s.run] as ReturnType<typeof snapshot>;
      const id = sourceOf(s);
      // No source checked twice, no stored answer asked for again.
      if (id) expect(snap.outcomes.has(id), `${id} re-requested in run ${s.run}`).toBe(false);
      if (s.path === "/robots.txt")
        expect(snap.robots.has(s.origin), `robots of ${s.origin} again`).toBe(false);
    }
    for (let r = 0; r <= run; r++) {
      const urls = seen.filter((s) => s.run === r).map((s) => `${s.origin}${s.path}`);
      expect(new Set(urls).size, `run ${r}`).toBe(urls.length);
    }
    // P21: once the no is stored, that site gets no page request in any later run.
    const noServer = servers.find((s) => s.saysNo)?.server as FleetServer;
    for (const s of seen.filter((x) => x.origin === noServer.origin && x.path !== "/robots.txt")) {
      const snap = before[s.run] as ReturnType<typeof snapshot>;
      const refusedBefore = [...snap.outcomes].some(
        ([id, o]) =>
          id.startsWith(`s${servers.indexOf(servers.find((x) => x.saysNo)!)}-`) && o === "refused",
      );
      expect(refusedBefore).toBe(false);
    }
    // P10 across restarts: per site (one IP here) never two in flight, and the gap holds.
    const byHost = new Map<string, Seen[]>();
    for (const s of seen) byHost.set(s.host, [...(byHost.get(s.host) ?? []), s]);
    for (const [host, reqs] of byHost) {
      reqs.sort((a, b) => a.startedAt - b.startedAt);
      for (let i = 1; i < reqs.length; i++) {
        const gap = (reqs[i] as Seen).startedAt - (reqs[i - 1] as Seen).endedAt;
        expect(gap, `${host} ${reqs[i]?.path}`).toBeGreaterThanOrEqual(GAP_MS - 1);
      }
    }
    // Records: each feed source has exactly its two items, all new tonight, none doubled.
    const db = new Database(join(dir, "nor.db"), { readonly: true });
    try {
      const rows = db.prepare("select source_id, record_id from records").all() as {
        source_id: string;
        record_id: string;
      }[];
      const newSum = (
        db.prepare("select sum(new_records) n from night_sources where night = ?").get(NIGHT) as {
          n: number;
        }
      ).n;
      const okIds = [...after.outcomes].filter(([, o]) => o === "ok").map(([id]) => id);
      expect(okIds.length).toBe(total - 3);
      expect(rows.length).toBe(okIds.length * 2);
      expect(newSum).toBe(rows.length);
      for (const id of okIds) expect(rows.filter((r) => r.source_id === id)).toHaveLength(2);
      const refused = [...after.outcomes].filter(([, o]) => o === "refused");
      expect(refused).toHaveLength(3);
    } finally {
      db.close();
    }
  }, 300_000);
});
