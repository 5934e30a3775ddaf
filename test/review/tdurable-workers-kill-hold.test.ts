import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT, runNorAsync } from "../cli/run-nor.js";
import { startFleet } from "../fleet/fleet.js";
import { gaps } from "../fleet/gaps.js";
import { writeCatalog } from "../night/cli-night.js";
import { citiesToVendor, workersNightArgs } from "./vendor-cities.js";

/**
 * tdurable (outside tester): P15 and P21 across a SIGKILL of every process of a night at once
 * (`nor night --workers 3` and its workers: the machine's OOM killer, a `systemctl kill
 * -s KILL`), then a restart. The vendor's 503 with Retry-After: 3 ends a moment before the
 * kill: the restarted night (whichever worker) asks the vendor nothing before those 3 s are
 * over, and its later 403 still stops every lane.
 */
describe("tdurable: a night's processes all killed after a Retry-After (P15, P21)", () => {
  it.each([
    { when: "just after a 503 with Retry-After: 3 was answered", midBody: false },
    { when: "while the body of a 503 with Retry-After: 3 is still arriving", midBody: true },
  ])(
    "P15, P21, P10: after SIGKILL of every process of a night $when, the restarted night waits the 3 s, and a 403 then stops every lane",
    async ({ midBody }) => {
      const fleet = await startFleet({ now: () => Date.now() });
      const dir = mkdtempSync(join(tmpdir(), "nor-tdurable-killhold-"));
      let killGroup: (() => void) | undefined;
      try {
        const vendor = await fleet.server();
        vendor.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
        let feeds = 0;
        let busyEnded: number | undefined;
        for (let i = 0; i < 5; i++) {
          vendor.route(`/feed/${i}.xml`, (_q, res) => {
            feeds++;
            if (feeds === 1) {
              if (midBody) {
                // The head, then part of the body; the night is killed while it reads the rest,
                // which ends the answer (its connection closed) then.
                res.writeHead(503, { "retry-after": "3", "content-length": "1000" });
                res.write("busy");
                setTimeout(() => {
                  busyEnded = Date.now();
                  killGroup?.();
                }, 200);
                return;
              }
              res.once("finish", () => {
                busyEnded = Date.now();
                // Every process of the night, at once, 100 ms after the answer went out.
                setTimeout(() => killGroup?.(), 100);
              });
              return void res.writeHead(503, { "retry-after": "3" }).end("busy");
            }
            res.writeHead(403).end("Forbidden");
          });
        }
        const sources = await citiesToVendor(fleet, vendor, 5);
        const catalog = writeCatalog(dir, sources);
        const args = workersNightArgs(catalog, dir);
        const env = { ...process.env };
        delete env["NOR_DATABASE_URL"];
        const first = spawn(process.execPath, [join(ROOT, "bin", "nor.js"), ...args], {
          cwd: ROOT,
          env,
          stdio: "ignore",
          detached: true,
        });
        killGroup = () => {
          try {
            if (first.pid !== undefined) process.kill(-first.pid, "SIGKILL");
          } catch {
            // already gone
          }
        };
        const timer = setTimeout(() => killGroup?.(), 60_000);
        const signal = await new Promise<NodeJS.Signals | null>((r) =>
          first.once("exit", (_c, s) => r(s)),
        );
        clearTimeout(timer);
        expect(signal).toBe("SIGKILL");
        expect(busyEnded).toBeDefined();
        const killedRequests = vendor.requests.length;
        const r = await runNorAsync(args, { timeoutMs: 90_000 });
        expect(r.code, r.stderr).toBe(0);
        const asked = vendor.requests.filter((q) => q.path !== "/robots.txt");
        const after = vendor.requests.slice(killedRequests);
        // Nothing at the vendor before the Retry-After's 3 s were over.
        for (const q of after)
          expect(q.startedAt - (busyEnded as number)).toBeGreaterThanOrEqual(3000);
        // The 503, then one request answered 403; no other lane asks the vendor after the no.
        expect(asked).toHaveLength(2);
        for (const g of gaps(vendor.requests)) expect(g).toBeGreaterThanOrEqual(50);
      } finally {
        killGroup?.();
        await fleet.close();
        rmSync(dir, { recursive: true, force: true });
      }
    },
    150_000,
  );
});
