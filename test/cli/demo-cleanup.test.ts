import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { type AddressInfo, createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runMain } from "./cli-capture.js";

/**
 * `nor demo` without --data works in a temporary directory of its own, and removes it when it
 * ends, whether it ends well or not. Each run gets its own TMPDIR, so what it leaves behind is
 * all that is in it afterwards. The run that ends well asks its loopback sites with no gap
 * (--gap-ms 0): the directory's removal does not depend on the pace, and test/cli/demo.test.ts
 * runs the demo at the real 2 s one.
 */
describe("nor demo's temporary data directory", () => {
  const dir = mkdtempSync(join(tmpdir(), "nor-demo-cleanup-"));
  const busy: Server = createServer();
  let port = "";
  beforeAll(async () => {
    await new Promise<void>((r) => busy.listen(0, "127.0.0.1", () => r()));
    port = String((busy.address() as AddressInfo).port);
  });
  afterAll(async () => {
    await new Promise<void>((r) => busy.close(() => r()));
    rmSync(dir, { recursive: true, force: true });
  });

  it("is removed when the demo fails (the port is in use, exit 1)", async () => {
    const tmp = mkdtempSync(join(dir, "fail-"));
    const r = await runMain(["demo", "--headless", "--port", port], { env: { TMPDIR: tmp } });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain("the port is in use by another program");
    // Said before anything was made: no temporary directory was even begun.
    expect(r.stdout).not.toContain("The catalog (");
    expect(readdirSync(tmp)).toEqual([]);
  });

  it("is removed when a headless demo ends well (exit 0)", async () => {
    const tmp = mkdtempSync(join(dir, "ok-"));
    const r = await runMain(["demo", "--headless", "--port", "0", "--gap-ms", "0"], {
      env: { TMPDIR: tmp },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("0 ms (--gap-ms) apart");
    expect(r.stdout).toContain(
      "headless: the directory answered as expected; stopping (and removing",
    );
    // No command is offered for a directory about to be removed.
    expect(r.stdout).not.toContain("And in another terminal");
    expect(r.stdout).not.toContain("bin/nor.js status --data");
    expect(readdirSync(tmp)).toEqual([]);
  });
});
