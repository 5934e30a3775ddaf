import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { onStdoutError } from "../../src/cli/main.js";
import { openStore } from "../../src/store/db.js";
import { nor } from "./cli-capture.js";

/**
 * `nor status | head -1`: the reader closes, the next write fails with EPIPE. That is no
 * failure of the command: it ends quietly with its own exit code, never an unhandled 'error'
 * event and its stack trace (exit 1). One handler on process.stdout, for every command.
 */
const epipe = () => Object.assign(new Error("write EPIPE"), { code: "EPIPE" });

describe("standard output piped into a reader that closed", () => {
  const dir = mkdtempSync(join(tmpdir(), "nor-pipe-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("every command's stdout has the handler: an EPIPE emitted on it is not thrown, the command exits 0", async () => {
    await (await openStore({ kind: "sqlite", dir })).close();
    const r = await nor("status", "--data", dir);
    expect(r.code, r.stderr).toBe(0);
    expect(process.stdout.listeners("error")).toContain(onStdoutError);
    // Without a listener, emitting 'error' throws (that was the crash); with it, nothing.
    expect(() => process.stdout.emit("error", epipe())).not.toThrow();
    const again = await nor("status", "--data", dir);
    expect(again.code).toBe(0);
    expect(again.stderr).toBe("");
  });

  it("only a closed reader is quiet: any other write error is still thrown", () => {
    expect(() => onStdoutError(epipe())).not.toThrow();
    const destroyed = Object.assign(new Error("destroyed"), { code: "ERR_STREAM_DESTROYED" });
    expect(() => onStdoutError(destroyed)).not.toThrow();
    const full = Object.assign(new Error("no space"), { code: "ENOSPC" });
    expect(() => onStdoutError(full)).toThrow(/no space/);
  });
});
