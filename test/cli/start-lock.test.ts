import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runStart } from "../../src/cli/commands/start.js";
import { ManualClock } from "../../src/clock.js";
import { runMain } from "./cli-capture.js";

/**
 * One `nor start` a data directory: a second would serve it again and schedule every night
 * twice. Its lock holds the pid of the one running; a lock whose process is gone (kill -9) is
 * taken over, so a restart after a crash needs no person.
 */
const dir = mkdtempSync(join(tmpdir(), "nor-start-lock-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const catalog = join(dir, "catalog.yaml");
writeFileSync(
  catalog,
  `governments:
  - { id: village-of-lock, name: Village of Lock, kind: village, county: Franklin }
sources:
  - { id: lock-agendas, government: village-of-lock, records: agendas, url: "http://127.0.0.1:9/agendas.rss" }
`,
);
const args = (data: string) => [
  ...["start", "--catalog", catalog, "--data", data, "--host", "127.0.0.1", "--port", "0"],
  ...["--at", "01:00", "--zone", "America/New_York"],
];

describe("nor start's lock", () => {
  it("a second nor start on a data directory another live one holds is refused (exit 2), naming its pid; nothing is served or imported", async () => {
    const data = join(dir, "held");
    mkdirSync(data);
    // A live process other than this one holds it (its pid in the lock, as a running start's is).
    const holder = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60_000)"], {
      stdio: "ignore",
    });
    try {
      writeFileSync(join(data, "start.lock"), `${holder.pid}\n`);
      const r = await runMain(args(data));
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(
        `another nor start is running on ${data} (pid ${holder.pid}, lock ${join(data, "start.lock")})`,
      );
      expect(r.stdout).toBe("");
      expect(existsSync(join(data, "nor.db"))).toBe(false);
      expect(readFileSync(join(data, "start.lock"), "utf8")).toBe(`${holder.pid}\n`);
    } finally {
      holder.kill("SIGKILL");
    }
  });

  it("a lock left by a nor start that is gone is taken over, held while this one runs, and removed when it stops", async () => {
    const data = join(dir, "stale");
    mkdirSync(data);
    const gone = spawnSync(process.execPath, ["-e", "0"]).pid;
    writeFileSync(join(data, "start.lock"), `${gone}\n`);
    const stop = new AbortController();
    let listening: () => void = () => {};
    const up = new Promise<void>((resolve) => {
      listening = resolve;
    });
    const running = runStart(
      {
        catalog: [catalog],
        data,
        host: "127.0.0.1",
        port: "0",
        at: "01:00",
        zone: "America/New_York",
      },
      {
        clock: new ManualClock(Date.UTC(2026, 10, 5, 12, 0, 0)),
        say: () => {},
        signal: stop.signal,
        onListening: () => listening(),
      },
    );
    await up;
    expect(readFileSync(join(data, "start.lock"), "utf8").split("\n")[0]).toBe(`${process.pid}`);
    stop.abort();
    await running;
    expect(existsSync(join(data, "start.lock"))).toBe(false);
  });
});
