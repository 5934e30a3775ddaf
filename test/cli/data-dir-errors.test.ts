import { spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  linkSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import Database from "better-sqlite3";
import { afterAll, describe, expect, it } from "vitest";
import { runStart } from "../../src/cli/commands/start.js";
import { writeVillageCatalog } from "./catalogs.js";
import { nor } from "./cli-capture.js";
import { ROOT, runNorAsync } from "./run-nor.js";

/**
 * A data directory nor cannot use (one that cannot be made, is not writable, has a directory
 * where nor.db goes or a file where night-runners/ goes, or an empty nor.db) is said in words
 * with the path and the reason (exit 2: the person can fix it), before anything is made or
 * changed, and never spins, or becomes a new empty store.
 */
const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "nor-data-dir-errors-"));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) {
    chmodSync(d, 0o700);
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (lstatSync(p).isDirectory()) chmodSync(p, 0o700);
    }
    rmSync(d, { recursive: true, force: true });
  }
});

function catalogIn(d: string): string {
  // Nothing is sent: 127.0.0.1 is refused without --allow-private-addresses.
  return writeVillageCatalog(join(d, "catalog.yaml"), "Test", {
    "test-agendas": 'records: agendas, access: feed, url: "http://127.0.0.1:9/a.rss"',
  });
}

/** The names in a directory and each file's bytes: what a refused command must leave alone. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    out[name] = statSync(p).isDirectory()
      ? `dir:${readdirSync(p).sort().join(",")}`
      : readFileSync(p).toString("base64");
  }
  return out;
}

describe.skipIf(!existsSync("/proc/self"))("--data where mkdir says ENOENT (/proc)", () => {
  // A separate process: before the fix, Node's recursive mkdir spun there for ever (100% CPU),
  // which would have blocked this test's own event loop. The kill after 60 s only ends it.
  it("nor catalog import and nor night stop at once with exit 2, naming the path", async () => {
    const d = tmp();
    const catalog = catalogIn(d);
    const data = `/proc/nor-test-${process.pid}`;
    const [imported, night] = await Promise.all([
      runNorAsync(["catalog", "import", catalog, "--data", data], {}),
      runNorAsync(
        ["night", "--catalog", catalog, "--data", join(data, "sub"), "--deadline", "1m"],
        {},
      ),
    ]);
    expect(imported.code, imported.stderr).toBe(2);
    expect(imported.stderr).toBe(
      `nor: cannot make the data directory ${data}: /proc takes no new directories (ENOENT); make it yourself with the right owner, or choose another --data\n`,
    );
    expect(night.code, night.stderr).toBe(2);
    expect(night.stderr).toBe(
      `nor: cannot make the data directory ${join(data, "sub")} (making ${data}): /proc takes no new directories (ENOENT); make it yourself with the right owner, or choose another --data\n`,
    );
  });
});

describe("--data under a file", () => {
  it("is refused naming the file in the way (exit 2), not as ENOTDIR, and the file is left as it was", async () => {
    const d = tmp();
    const catalog = catalogIn(d);
    const file = join(d, "afile");
    writeFileSync(file, "not a directory\n");
    for (const args of [
      ["catalog", "import", catalog],
      ["night", "--catalog", catalog, "--deadline", "1m"],
    ]) {
      const r = await nor(...args, "--data", join(file, "sub", "data"));
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toBe(
        `nor: the store location ${join(file, "sub", "data")} cannot be made: ${file} is not a directory; choose another --data\n`,
      );
    }
    expect(readFileSync(file, "utf8")).toBe("not a directory\n");
  });
});

// Root may write in any directory whatever its mode, so as root the commands run as nobody
// (setpriv), in a process of their own; as any other user they run here, on a directory made
// read-only. Skipped only as root without setpriv.
const isRoot = process.getuid?.() === 0;
const hasSetpriv = isRoot && spawnSync("setpriv", ["--version"]).status === 0;

/**
 * As root: one process as nobody runs the commands one after another, each as bin/nor.js runs
 * it (the engine it picks, its main(), an error main() does not turn into an exit code said
 * as `nor: …`, exit 1), its stderr captured apart, as the in-process runs here capture it
 * (cli-capture.ts). Each is refused before it makes anything, so none changes what the next
 * finds; one process, not one a command, saves a node start and the command's modules each
 * (about 0.2 s of CPU a command).
 */
const UNPRIVILEGED_RUNS = `
const { cliModule } = await import(new URL("dist/joined.js", process.argv[1]).href);
const { main } = await import(cliModule(new URL("dist/", process.argv[1])).url.href);
const { Readable } = await import("node:stream");
const out = [];
for (const args of JSON.parse(process.argv[2])) {
  let stderr = "";
  const code = await main(["node", "nor", ...args], {
    stdout: { write: () => true },
    stderr: { write: (c) => { stderr += String(c); return true; } },
    stdin: Readable.from([]),
  }).catch((e) => {
    stderr += \`nor: \${e instanceof Error ? e.message : String(e)}\\n\`;
    return 1;
  });
  out.push({ code, stderr });
}
process.stdout.write(JSON.stringify(out));
`;

async function asUnprivileged(
  runs: string[][],
): Promise<{ code: number | null; stderr: string }[]> {
  if (!isRoot) {
    const out: { code: number | null; stderr: string }[] = [];
    for (const args of runs) out.push(await nor(...args));
    return out;
  }
  const env = { ...process.env };
  delete env["NOR_DATABASE_URL"];
  const r = spawnSync(
    "setpriv",
    [
      "--reuid=65534",
      "--regid=65534",
      "--clear-groups",
      process.execPath,
      "--input-type=module",
      "-e",
      UNPRIVILEGED_RUNS,
      pathToFileURL(`${ROOT}/`).href,
      JSON.stringify(runs),
    ],
    { cwd: ROOT, env, encoding: "utf8", timeout: 60_000 },
  );
  expect(r.status, r.stderr).toBe(0);
  const out = JSON.parse(r.stdout) as { code: number | null; stderr: string }[];
  expect(out).toHaveLength(runs.length);
  return out;
}

describe.skipIf(isRoot && !hasSetpriv)("a data directory this user may not write", () => {
  it("one that cannot be made, or exists and is not writable, is refused with the reason (exit 2), and nothing is made", async () => {
    const d = tmp();
    const catalog = catalogIn(d);
    const ro = join(d, "rodir");
    mkdirSync(ro);
    chmodSync(ro, 0o555);
    chmodSync(d, 0o755);
    try {
      const commands = [
        ["night", "--catalog", catalog, "--deadline", "1m"],
        ["catalog", "import", catalog],
      ];
      const results = await asUnprivileged(
        commands.flatMap((args) => [
          [...args, "--data", join(ro, "new")],
          [...args, "--data", join(ro, "a", "b")],
          [...args, "--data", ro],
        ]),
      );
      expect(results).toHaveLength(6);
      for (let i = 0; i < commands.length; i++) {
        const [made, deep, there] = results.slice(i * 3, i * 3 + 3) as [
          (typeof results)[0],
          (typeof results)[0],
          (typeof results)[0],
        ];
        expect(made.code, made.stderr).toBe(2);
        expect(made.stderr).toBe(
          `nor: cannot make the data directory ${join(ro, "new")}: permission denied: ${ro} is not writable by this user; make it yourself with the right owner, or choose another --data\n`,
        );
        expect(deep.code, deep.stderr).toBe(2);
        expect(deep.stderr).toContain(
          `nor: cannot make the data directory ${join(ro, "a", "b")} (making ${join(ro, "a")}): permission denied: ${ro} is not writable by this user;`,
        );
        expect(there.code, there.stderr).toBe(2);
        expect(there.stderr).toBe(
          `nor: the data directory ${ro} is not writable by this user (permission denied): nor keeps its store and archive there; make it writable for the user nor runs as, or choose another --data\n`,
        );
      }
      expect(readdirSync(ro)).toEqual([]);
    } finally {
      chmodSync(ro, 0o755);
    }
  });
});

/** Whether this process may bind-mount a directory read-only (root on Linux): tried once. */
function canMountReadOnly(): boolean {
  if (!isRoot || process.platform !== "linux") return false;
  const probe = tmp();
  const from = join(probe, "from");
  const at = join(probe, "at");
  mkdirSync(from);
  mkdirSync(at);
  if (spawnSync("mount", ["--bind", from, at]).status !== 0) return false;
  const ok = spawnSync("mount", ["-o", "remount,ro,bind", at]).status === 0;
  // Left mounted, it would hold the test's directory read-only: then nothing is tried.
  return spawnSync("umount", [at]).status === 0 && ok;
}

describe.skipIf(!canMountReadOnly())("a store on a read-only file system", () => {
  it("a command that logs into it (nor discover) says it is read-only, one that only reads it (nor log) that it cannot be read there (exit 2), not SQLite's words, and sends nothing", async () => {
    const d = tmp();
    const catalog = catalogIn(d);
    const data = join(d, "data");
    expect((await nor("catalog", "import", catalog, "--data", data)).code).toBe(0);
    const ro = join(d, "ro");
    mkdirSync(ro);
    expect(spawnSync("mount", ["--bind", data, ro]).status).toBe(0);
    try {
      expect(spawnSync("mount", ["-o", "remount,ro,bind", ro]).status).toBe(0);
      // 192.0.2.1 (TEST-NET-1) is never reached: the store is refused before anything is sent.
      for (const args of [
        ["discover", "http://192.0.2.1/", "--data", ro],
        ["log", "--data", ro],
      ]) {
        const r = await nor(...args);
        expect(r.code, `${args[0]}: ${r.stderr}`).toBe(2);
        expect(r.stderr, args[0]).toContain(
          args[0] === "log"
            ? `${join(ro, "nor.db")} cannot be read here: SQLite reads a nor store beside its shared-memory file (nor.db-shm), which it makes there when no other process has the store open, and ${ro} is on a read-only file system; read a copy of the store in a directory you may write in`
            : `${join(ro, "nor.db")} is read-only (on a read-only file system)`,
        );
      }
    } finally {
      // Nothing of nor may hold the mount (a store that did not open is closed): it comes off.
      const off = spawnSync("umount", [ro]).status;
      if (off !== 0) spawnSync("umount", ["-l", ro]);
      expect(off).toBe(0);
    }
  });
});

describe("a directory where DATA/nor.db goes", () => {
  it("is refused by reading and writing commands alike (exit 2), naming it, and nothing is made", async () => {
    const d = tmp();
    const catalog = catalogIn(d);
    const data = join(d, "data");
    mkdirSync(join(data, "nor.db"), { recursive: true });
    const before = snapshot(data);
    for (const args of [
      ["status"],
      ["log"],
      ["flags"],
      ["catalog", "import", catalog],
      ["night", "--catalog", catalog, "--deadline", "1m"],
      ["mark", "test-agendas", "--not-read", "--reason", "the clerk asked"],
    ]) {
      const r = await nor(...args, "--data", data);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(2);
      expect(r.stderr, args.join(" ")).toBe(
        `nor: ${join(data, "nor.db")} is a directory, not a store: nor keeps its store in a file of that name; move the directory aside, or choose another --data\n`,
      );
    }
    expect(snapshot(data)).toEqual(before);
  });
});

describe("what nor night keeps beside the store, of the wrong kind", () => {
  const cases = [
    {
      part: "night-runners",
      make: (p: string) => writeFileSync(p, "x\n"),
      said: (p: string) =>
        `${p} is not a directory: nor night keeps the marks of its running processes in a directory there; move what is in the way`,
    },
    {
      part: "night.lock",
      make: (p: string) => mkdirSync(p),
      said: (p: string) =>
        `${p} is a directory: nor night keeps its lock in a file there; move what is in the way`,
    },
    {
      part: "archive",
      make: (p: string) => writeFileSync(p, "x\n"),
      said: (p: string) =>
        `the archive location ${p} is not a directory: the stored copies (P8) are kept in a directory there; move what is in the way`,
    },
  ];

  it.each(cases)(
    "$part: refused by name (exit 2) before the store is made",
    async ({ part, make, said }) => {
      const d = tmp();
      const catalog = catalogIn(d);
      const data = join(d, "data");
      mkdirSync(data);
      make(join(data, part));
      const before = snapshot(data);
      const r = await nor("night", "--catalog", catalog, "--data", data, "--deadline", "1m");
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toBe(`nor: ${said(join(data, part))}\n`);
      expect(existsSync(join(data, "nor.db"))).toBe(false);
      expect(snapshot(data)).toEqual(before);
    },
  );

  it("night-runners a file beside a store: refused before the store is opened, which is left as it was", async () => {
    const d = tmp();
    const catalog = catalogIn(d);
    const data = join(d, "data");
    const imported = await nor("catalog", "import", catalog, "--data", data);
    expect(imported.code, imported.stderr).toBe(0);
    writeFileSync(join(data, "night-runners"), "x\n");
    const before = snapshot(data);
    const r = await nor("night", "--catalog", catalog, "--data", data, "--deadline", "1m");
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(`nor: ${join(data, "night-runners")} is not a directory:`);
    expect(snapshot(data)).toEqual(before);
  });
});

describe("an empty (0-byte) DATA/nor.db", () => {
  it("is refused by every command, reading or writing (exit 2), and never written into", async () => {
    const d = tmp();
    const catalog = catalogIn(d);
    const data = join(d, "data");
    mkdirSync(data);
    const file = join(data, "nor.db");
    writeFileSync(file, "");
    for (const args of [
      ["status"],
      ["status", "--json"],
      ["log"],
      ["flags"],
      ["site"],
      ["reparse", "--catalog", catalog],
      ["catalog", "import", catalog],
      ["night", "--catalog", catalog, "--deadline", "1m"],
      ["mark", "test-agendas", "--not-read", "--reason", "the clerk asked"],
      ["site", "example.org", "--gap", "30s", "--reason", "the owner asked"],
    ]) {
      const r = await nor(...args, "--data", data);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(2);
      expect(r.stderr, args.join(" ")).toBe(
        `nor: ${file} is empty (0 bytes): it is not a store (a copy cut short?), and nor writes nothing into it; move it aside to start a new store there, or restore the store from a backup (docs/operations.md, "Backups")\n`,
      );
      expect(r.stdout, args.join(" ")).toBe("");
    }
    expect(statSync(file).size).toBe(0);
    expect(readdirSync(data)).toEqual(["nor.db"]);
  });

  it("another program's SQLite database where the store goes is refused by every command (exit 2), and nothing is written into it", async () => {
    const d = tmp();
    const catalog = catalogIn(d);
    const data = join(d, "data");
    mkdirSync(data);
    const file = join(data, "nor.db");
    const other = new Database(file);
    other.exec(
      "create table users (id integer primary key, name text); insert into users (name) values ('ada')",
    );
    other.close();
    const before = readFileSync(file);
    for (const args of [
      ["status"],
      ["log"],
      ["catalog", "import", catalog],
      ["night", "--catalog", catalog, "--deadline", "1m"],
    ]) {
      const r = await nor(...args, "--data", data);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(2);
      expect(r.stderr, args.join(" ")).toBe(
        `nor: ${file} is a SQLite database of another program (its tables: users), not a nor store: nothing was changed in it; give --data nor's own data directory\n`,
      );
    }
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(readdirSync(data)).toEqual(["nor.db"]);
  });

  it("a store nor makes is never empty: made whole, it reads at once, and no part file is left", async () => {
    const d = tmp();
    const data = join(d, "data");
    const r = await nor("catalog", "import", catalogIn(d), "--data", data);
    expect(r.code, r.stderr).toBe(0);
    expect(statSync(join(data, "nor.db")).size).toBeGreaterThan(0);
    expect(readdirSync(data).filter((n) => n.startsWith("nor.db.new-"))).toEqual([]);
    const status = await nor("status", "--data", data);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain("test-agendas");
  });

  it("a nor.db that links to nothing (a disk not mounted yet) is refused (exit 2), never made anew there", async () => {
    const d = tmp();
    const data = join(d, "data");
    const other = join(d, "other");
    mkdirSync(data);
    mkdirSync(other);
    symlinkSync(join("..", "other", "nor.db"), join(data, "nor.db"));
    const r = await nor("catalog", "import", catalogIn(d), "--data", data);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      `${join(data, "nor.db")} is a symbolic link to ${join(other, "nor.db")}, which does not exist (a disk not mounted yet?): nor does not make a new store there`,
    );
    expect(readdirSync(other)).toEqual([]);
    // Made where it points, on purpose, the link is a store like any.
    expect((await nor("catalog", "import", catalogIn(d), "--data", other)).code).toBe(0);
    const status = await nor("status", "--data", data);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain("test-agendas");
  });

  it("a second name a killed maker left beside the store (nor.db.new-PID-…, the same file) is removed; a part never linked is left alone", async () => {
    const d = tmp();
    const data = join(d, "data");
    expect((await nor("catalog", "import", catalogIn(d), "--data", data)).code).toBe(0);
    const second = join(data, "nor.db.new-4194305-0badf00d");
    const unlinked = join(data, `nor.db.new-${process.pid}-0badf00d`);
    linkSync(join(data, "nor.db"), second);
    writeFileSync(unlinked, "x");
    expect(statSync(join(data, "nor.db")).nlink).toBe(2);
    const r = await nor("catalog", "import", catalogIn(d), "--data", data);
    expect(r.code, r.stderr).toBe(0);
    expect(existsSync(second)).toBe(false);
    expect(existsSync(unlinked)).toBe(true);
    expect(statSync(join(data, "nor.db")).nlink).toBe(1);
  });

  it("a --data that is a symbolic link to nothing (a disk not mounted yet) is said as that (exit 2)", async () => {
    const d = tmp();
    const data = join(d, "data");
    symlinkSync(join(d, "not-mounted"), data);
    const r = await nor("catalog", "import", catalogIn(d), "--data", data);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${data} is a symbolic link to ${join(d, "not-mounted")}, which does not exist (a disk not mounted yet?)`,
    );
    expect(existsSync(join(d, "not-mounted"))).toBe(false);
  });
});

describe("nor start and what its nights need beside the store", () => {
  it("a file where the archive goes is refused at start (exit 2), before it listens, not by each night at its hour", async () => {
    const d = tmp();
    const data = join(d, "data");
    mkdirSync(data);
    writeFileSync(join(data, "archive"), "not a directory");
    const stop = new AbortController();
    let listened = false;
    const running = runStart(
      {
        catalog: [catalogIn(d)],
        data,
        host: "127.0.0.1",
        port: "0",
        at: "01:00",
        zone: "America/New_York",
      },
      {
        say: () => {},
        signal: stop.signal,
        onListening: () => {
          listened = true;
          stop.abort();
        },
      },
    );
    await expect(running).rejects.toThrow(
      `the archive location ${join(data, "archive")} is not a directory`,
    );
    expect(listened).toBe(false);
    expect(readdirSync(data)).toEqual(["archive"]);
  });
});
