import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { PARENT_PID_ENV } from "../../src/cli/night-process.js";
import { leftAt } from "../store/stores.js";
import { writeVillageCatalog } from "./catalogs.js";
import { runMain } from "./cli-capture.js";
import { buildCli, ROOT } from "./run-nor.js";

/**
 * `nor start` runs each night as a `nor night` process of its own (--served-at), whose stderr is
 * the terminal the person ran `nor start` in: every line it writes there names `nor start`, the
 * command the person ran, never `nor night` (nor a bare `nor:`), its errors and its stop when
 * `nor start` is gone included.
 */
const dir = mkdtempSync(join(tmpdir(), "nor-start-words-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SERVED = "http://127.0.0.1:8080/";

describe("the stderr of a night nor start runs names nor start", () => {
  it("P13: an error of the night's process (its catalog file gone) begins 'nor start:'", async () => {
    const r = await runMain(
      [
        "night",
        ...["--catalog", join(dir, "none.yaml"), "--data", join(dir, "data-none")],
        ...["--night", "2026-11-05", "--or-stored-catalog", "--served-at", SERVED],
      ],
      { tty: true },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^nor start: /);
    expect(r.stderr).not.toMatch(/^nor( night)?: /m);
    // By hand, the same error names no other command than nor's own.
    const byHand = await runMain(
      ["night", "--catalog", join(dir, "none.yaml"), "--data", join(dir, "data-none")],
      { tty: true },
    );
    expect(byHand.stderr).toMatch(/^nor: /);
  });

  it("P13: a night nor start runs on a store an earlier version made says its upgrade as 'nor start:' on the terminal (was 'nor:')", async () => {
    const data = join(dir, "data-upgrade");
    mkdirSync(data);
    await leftAt({ kind: "sqlite", dir: data }, "017-night-user-agent", async () => {});
    const catalog = join(dir, "upgrade.yaml");
    writeFileSync(
      catalog,
      "governments:\n  - { id: village-of-up, name: Village of Up, kind: village, county: Franklin }\nsources: []\n",
    );
    const r = await runMain(
      [
        "night",
        ...["--catalog", catalog, "--data", data, "--night", "2026-11-05"],
        ...["--or-stored-catalog", "--served-at", SERVED],
      ],
      { tty: true },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^nor start: upgrading the store at /m);
    expect(r.stderr).not.toMatch(/^nor( night)?: /m);
  });

  it("P13, P27: a night's process whose nor start is gone says so as 'nor start:', and stops", async () => {
    buildCli();
    const catalog = join(dir, "gone.yaml");
    writeVillageCatalog(catalog, "Gone", {
      "gone-a": `records: agendas, access: feed, url: "http://127.0.0.7:9/a.rss"`,
    });
    const env: NodeJS.ProcessEnv = { ...process.env };
    delete env["NOR_DATABASE_URL"];
    // As nor start starts it, naming a parent that is not its parent (nor start is gone).
    env[PARENT_PID_ENV] = String(process.pid + 1_000_000);
    const night = spawn(
      process.execPath,
      [
        join(ROOT, "bin", "nor.js"),
        ...["night", "--catalog", catalog, "--data", join(dir, "data-gone")],
        ...["--night", "2026-11-05", "--allow-private-addresses", "--gap-ms", "0"],
        ...["--or-stored-catalog", "--served-at", SERVED],
      ],
      { cwd: ROOT, env, stdio: ["ignore", "ignore", "pipe"] },
    );
    let err = "";
    night.stderr?.on("data", (d: Buffer) => {
      err += d.toString();
    });
    const ended = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
      night.once("close", (code, signal) => r({ code, signal })),
    );
    expect(ended).toEqual({ code: null, signal: "SIGTERM" });
    expect(err).toMatch(
      /^nor start: the command that started this night's process \(pid \d+\) is gone; stopping in order$/m,
    );
    expect(err).not.toContain("nor night");
  });
});
