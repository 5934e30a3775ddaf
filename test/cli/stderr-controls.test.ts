import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { diagnosticText, rewriteLine, stderr, stdout, withIo } from "../../src/cli/io.js";
import { type TempStore, tempStore } from "../archive/support/fixtures.js";
import { nor } from "./cli-capture.js";

/**
 * What a person typed is echoed in error messages; a control character in it (an escape
 * sequence pasted from a log, a bidi mark) reaches the terminal escaped as \uXXXX, never raw,
 * whichever command says it and however (a thrown error, a refusal the command writes itself,
 * commander's own messages). Messages without such characters are written as they were.
 */
const RAW =
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

describe("control characters typed in arguments are escaped on stderr", () => {
  let t: TempStore;
  beforeAll(async () => {
    t = await tempStore();
  });
  afterAll(async () => {
    await t.cleanup();
  });

  it("nor mark with an escape sequence in the source id says the id escaped (exit 2)", async () => {
    const r = await nor(
      "mark",
      "bad\x1b[31mid",
      "--not-read",
      "--reason",
      "x",
      "--data",
      t.dataDir,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(RAW);
    expect(r.stderr).toContain('unknown source "bad\\u001b[31mid"');
  });

  it("nor log --since with an escape sequence says the value escaped (exit 2)", async () => {
    const r = await nor("log", "--since", "x\x1b[2J", "--data", t.dataDir);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(RAW);
    expect(r.stderr).toContain('--since: cannot read "x\\u001b[2J" as a time');
  });

  it("nor flags --clear with an OSC title sequence (ESC … BEL) says both escaped", async () => {
    const r = await nor("flags", "--clear", "x\x1b]0;pwn\x07", "--data", t.dataDir);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(RAW);
    expect(r.stderr).toContain("x\\u001b]0;pwn\\u0007");
  });

  it("a --data with an escape sequence, from main's own writer of `nor: …`", async () => {
    const r = await nor("status", "--data", "/tmp/\x1b[2J-no-such");
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(RAW);
    expect(r.stderr).toContain("/tmp/\\u001b[2J-no-such");
  });

  it("commander's unknown command and unknown option are escaped too (exit 2)", async () => {
    const cmd = await nor("\x1b[2Jcmd");
    expect(cmd.code).toBe(2);
    expect(cmd.stderr).not.toMatch(RAW);
    expect(cmd.stderr).toContain("unknown command '\\u001b[2Jcmd'");

    const opt = await nor("status", "--bo\x1bgus");
    expect(opt.code).toBe(2);
    expect(opt.stderr).not.toMatch(RAW);
    expect(opt.stderr).toContain("unknown option '--bo\\u001bgus'");
  });

  it("C1 controls, DEL, CR, tab and the marks that turn text around are escaped as well", async () => {
    const typed = "a\u0085b\u009bc\u007fd\re\tf\u202eg\u2066h\u200fi\u061cj";
    const r = await nor("mark", typed, "--read", "--data", t.dataDir);
    expect(r.code).toBe(2);
    expect(r.stderr).not.toMatch(RAW);
    expect(r.stderr).toContain(
      '"a\\u0085b\\u009bc\\u007fd\\u000de\\u0009f\\u202eg\\u2066h\\u200fi\\u061cj"',
    );
  });

  it("a message without such characters is written byte for byte as before (other text untouched)", async () => {
    const r = await nor("zzz-no-such-command");
    expect(r.code).toBe(2);
    expect(r.stderr.startsWith("error: unknown command 'zzz-no-such-command'\n")).toBe(true);
    const m = await nor("mark", "café→ü «x»", "--read", "--data", t.dataDir);
    expect(m.stderr).toBe(
      'nor: unknown source "café→ü «x»" (not a source of the catalog in use; `nor status` lists them)\n',
    );
  });

  it("only stderr is escaped: stdout is passed as written, and the night's progress line keeps its own \\r and erase-to-end", async () => {
    const out: string[] = [];
    const err: string[] = [];
    await withIo(
      {
        stdout: { write: (c) => out.push(String(c)) },
        stderr: { write: (c) => err.push(String(c)) },
        stdin: (async function* () {})(),
      },
      async () => {
        stdout().write("\x1b[1mout\x1b[0m\n");
        stderr().write("nor: \x1b[1merr\u202e\n");
        rewriteLine("[##] 1/2 sources \x1b[31m");
      },
    );
    expect(out).toEqual(["\x1b[1mout\x1b[0m\n"]);
    expect(err).toEqual(["nor: \\u001b[1merr\\u202e\n", "\r[##] 1/2 sources \\u001b[31m\x1b[K"]);
  });

  it("diagnosticText returns clean text as the same string, keeps newlines, and leaves JSON lines valid JSON", () => {
    const clean = "nor: catalog has 2 problems:\n  a.yaml:3:1: sources[0].url: \\u001b escaped\n";
    expect(diagnosticText(clean)).toBe(clean);
    const json = `${JSON.stringify({ msg: "x\u0085\u202e\u007fy" })}\n`;
    const said = diagnosticText(json);
    expect(said).not.toMatch(RAW);
    expect(JSON.parse(said)).toEqual({ msg: "x\u0085\u202e\u007fy" });
  });
});
