import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore, type Store } from "../../src/store/db.js";
import { createApp } from "../../src/web/app.js";
import { runMain } from "../cli/cli-capture.js";
import { Browser, seedNight } from "./console-support.js";

/** `nor …` in this process with this text on stdin (the password is never an argument). */
const norWithStdin = (args: string[], input: string | Buffer[]) => runMain(args, { stdin: input });
const runNor = (args: string[]) => runMain(args);

interface StatusJson {
  id: string;
  reading: boolean;
  notReadReason?: string;
  flags: string[];
}

describe("nor operator set-password and the console over the same store", () => {
  let dir: string;
  let store: Store;
  const now = Date.UTC(2026, 10, 5, 14, 0, 0);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "nor-console-cli-"));
    store = await openStore({ kind: "sqlite", dir });
    await seedNight(store.db);
  }, 180_000);
  afterAll(async () => {
    await store?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("stores only a scrypt hash of the password read from stdin; the console then signs in with it, not with another", async () => {
    const password = "a long operator pass phrase";
    const r = await norWithStdin(["operator", "set-password", "--data", dir], `${password}\n`);
    expect(r.code, r.stderr).toBe(0);
    const row = await store.db.selectFrom("console_operator").selectAll().executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]{43}$/);
    expect(row.password_hash).not.toContain(password);

    const app = createApp({ db: store.db, now: () => now });
    const wrong = new Browser(app);
    expect((await wrong.signIn(`${password} `)).status).toBe(401);
    const b = new Browser(app);
    expect((await b.signIn(password)).status).toBe(303);
    expect((await b.get("/console")).status).toBe(200);

    // Setting it again ends the open session (the old password's sessions are gone).
    const again = await norWithStdin(
      ["operator", "set-password", "--data", dir],
      "another long pass phrase\n",
    );
    expect(again.code, again.stderr).toBe(0);
    expect((await b.get("/console")).status).toBe(303);
    expect((await new Browser(app).signIn(password)).status).toBe(401);
    expect((await new Browser(app).signIn("another long pass phrase")).status).toBe(303);
  });

  it("a password file saved with a byte-order mark (Notepad's UTF-8) and CRLF signs in with the password as typed, the mark and the line end not part of it", async () => {
    const password = "a long pass phrase from a file";
    const r = await norWithStdin(
      ["operator", "set-password", "--data", dir],
      `\uFEFF${password}\r\n`,
    );
    expect(r.code, r.stderr).toBe(0);
    const app = createApp({ db: store.db, now: () => now });
    expect((await new Browser(app).signIn(password)).status).toBe(303);
    // Old Mac line ends (a CR alone): the line ends there too.
    const mac = await norWithStdin(["operator", "set-password", "--data", dir], `${password}!\r`);
    expect(mac.code, mac.stderr).toBe(0);
    expect((await new Browser(app).signIn(`${password}!`)).status).toBe(303);
  });

  it("refuses a too-short or empty password with a usage error (exit 2) and keeps the old one", async () => {
    const before = await store.db.selectFrom("console_operator").selectAll().execute();
    for (const input of ["short\n", "", `${" ".repeat(12)}\n`, "  only9chars  \n"]) {
      const r = await norWithStdin(["operator", "set-password", "--data", dir], input);
      expect(r.code, JSON.stringify(input)).toBe(2);
      expect(r.stderr).toContain("at least 12 characters");
    }
    const bell = await norWithStdin(
      ["operator", "set-password", "--data", dir],
      "a long pass\u0007phrase\n",
    );
    expect(bell.code).toBe(2);
    expect(bell.stderr).toContain("no control characters");
    expect(await store.db.selectFrom("console_operator").selectAll().execute()).toEqual(before);
  });

  it("refuses a password that is not UTF-8 (Latin-1's é) with a usage error (exit 2), storing nothing: never read as U+FFFD, which other passwords would share", async () => {
    const before = await store.db.selectFrom("console_operator").selectAll().execute();
    for (const bytes of [
      Buffer.from("caf\xe9 long pass phrase\n", "latin1"),
      Buffer.from("\xff\xfea\0 \0l\0o\0n\0g\0 \0p\0a\0s\0s\0\n\0", "latin1"),
    ]) {
      const r = await norWithStdin(["operator", "set-password", "--data", dir], [bytes]);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toBe(
        "nor: the password must be UTF-8 text; save it as UTF-8 (read from stdin)\n",
      );
      expect(r.stdout).toBe("");
    }
    expect(await store.db.selectFrom("console_operator").selectAll().execute()).toEqual(before);
  });

  it("a UTF-8 password whose letters arrive split between reads (é's two bytes apart) is read whole and signs in", async () => {
    const password = "café long pass phrase";
    const bytes = Buffer.from(`${password}\n`, "utf8");
    const r = await norWithStdin(
      ["operator", "set-password", "--data", dir],
      [bytes.subarray(0, 4), bytes.subarray(4)],
    );
    expect(r.code, r.stderr).toBe(0);
    const app = createApp({ db: store.db, now: () => now });
    expect((await new Browser(app).signIn(password)).status).toBe(303);
  });

  it("P24: marking not read through the console form changes `nor status` exactly as `nor mark` does", async () => {
    const reason = "The clerk asked us to stop (email of 2026-11-05)";
    const status = async () => {
      const r = await runNor(["status", "--data", dir, "--json"]);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as StatusJson[];
    };
    const before = await status();
    expect(before.filter((s) => !s.reading)).toEqual([]);

    const app = createApp({
      db: store.db,
      now: () => now,
      console: { password: "console test password" },
    });
    const b = new Browser(app);
    expect((await b.signIn("console test password")).status).toBe(303);
    const token = await b.token("/console/sources/oh-a-agendas");
    const res = await b.post("/console/sources/oh-a-agendas/mark", {
      csrf: token,
      action: "not-read",
      reason,
    });
    expect(res.status).toBe(303);
    const cli = await runNor([
      "mark",
      "oh-c-minutes",
      "--not-read",
      "--reason",
      reason,
      "--data",
      dir,
    ]);
    expect(cli.code, cli.stderr).toBe(0);

    const after = await status();
    const viaConsole = after.find((s) => s.id === "oh-a-agendas");
    const viaCli = after.find((s) => s.id === "oh-c-minutes");
    expect(viaConsole).toMatchObject({ reading: false, notReadReason: reason });
    expect(viaCli).toMatchObject({ reading: false, notReadReason: reason });
    // The rest of each row is untouched by the mark, whichever way it was made.
    const strip = ({ reading: _r, notReadReason: _n, ...rest }: StatusJson) => rest;
    expect(strip(viaConsole as StatusJson)).toEqual(
      strip(before.find((s) => s.id === "oh-a-agendas") as StatusJson),
    );
    expect(strip(viaCli as StatusJson)).toEqual(
      strip(before.find((s) => s.id === "oh-c-minutes") as StatusJson),
    );
    // And the tab-separated table shows them the same way.
    const table = (await runNor(["status", "--data", dir])).stdout.split("\n");
    const cell = (id: string) => table.find((l) => l.startsWith(`${id}\t`))?.split("\t")[3];
    expect(cell("oh-a-agendas")).toBe(`not read: ${reason}`);
    expect(cell("oh-c-minutes")).toBe(cell("oh-a-agendas"));
  });
});
