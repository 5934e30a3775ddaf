import {
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { WarcArchive } from "../../src/store/archive/warc-archive.js";
import { exchange, type TempStore, tempStore } from "../archive/support/fixtures.js";
import { nor } from "./cli-capture.js";

/**
 * `nor archive cdx --out FILE` never loses what is stored: an --out that is the store, or in
 * the data directory or the archive's (symbolic links followed), or a directory, is refused
 * (exit 2) naming the path, before anything is written; a missing directory is said in words,
 * not as a bare ENOENT; and the index is written beside the target and renamed into place, so
 * the file named is either the old one or the whole new one.
 */
describe("nor archive cdx --out", () => {
  let t: TempStore;
  let outside: string;
  /** Every file of the data directory with its bytes, to show nothing in it changed. */
  let before: Map<string, Buffer>;

  const snapshot = (dir: string): Map<string, Buffer> => {
    const files = new Map<string, Buffer>();
    for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (!e.isFile()) continue;
      const path = join(e.parentPath, e.name);
      files.set(path, readFileSync(path));
    }
    return files;
  };

  beforeEach(async () => {
    t = await tempStore();
    const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
    await a.write(exchange("http://127.0.0.2/agendas", "<p>agenda</p>"));
    await a.close();
    outside = mkdtempSync(join(tmpdir(), "nor-cdx-out-"));
    before = snapshot(t.dataDir);
  });
  afterEach(async () => {
    await t.cleanup();
    rmSync(outside, { recursive: true, force: true });
  });

  const cdx = (out: string) => nor("archive", "cdx", "--data", t.dataDir, "--out", out);
  /** Refused before the store is opened: every file in --data is as it was, byte for byte. */
  const expectDataUnchanged = (under = t.dataDir) => {
    const after = snapshot(under);
    const was = [...before].filter(([path]) => path.startsWith(under));
    expect([...after.keys()].sort()).toEqual(was.map(([path]) => path).sort());
    for (const [path, bytes] of was) expect(after.get(path)?.equals(bytes), path).toBe(true);
  };

  it("refuses the store file itself (exit 2, naming it) and leaves the store byte for byte", async () => {
    const db = join(t.dataDir, "nor.db");
    const r = await cdx(db);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^nor: --out .*nor\.db is the store/);
    expect(r.stderr).toContain(db);
    expectDataUnchanged();
  });

  it.each([
    ["a new file in the data directory", (d: string) => join(d, "index.cdxj")],
    ["a new file in the archive directory", (d: string) => join(d, "archive", "index.cdxj")],
    ["the data directory's path written another way", (d: string) => `${d}/archive/../nor.db`],
  ])("refuses %s (exit 2) and writes nothing there", async (_what, path) => {
    const out = path(t.dataDir);
    const r = await cdx(out);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(out);
    expect(r.stderr).toMatch(
      /^nor: --out .* (is the store|is in the data directory|is in the archive)/,
    );
    expectDataUnchanged();
  });

  it("follows symbolic links: a link to the store, or a path through a link to the data directory, is refused", async () => {
    const toDb = join(outside, "db-link");
    symlinkSync(join(t.dataDir, "nor.db"), toDb);
    const viaLink = await cdx(toDb);
    expect(viaLink.code).toBe(2);
    expect(viaLink.stderr).toContain(toDb);
    expect(viaLink.stderr).toContain("is the store");

    const toData = join(outside, "data-link");
    symlinkSync(t.dataDir, toData);
    const throughDir = await cdx(join(toData, "nor.db"));
    expect(throughDir.code).toBe(2);
    expect(throughDir.stderr).toContain("is the store");
    const newInData = await cdx(join(toData, "new.cdxj"));
    expect(newInData.code).toBe(2);
    expect(newInData.stderr).toContain("is in the data directory");
    expectDataUnchanged();
  });

  it("refuses a file in an archive directory kept elsewhere through a link", async () => {
    const moved = join(outside, "archive-disk");
    renameSync(t.archiveDir, moved);
    symlinkSync(moved, t.archiveDir);
    before = snapshot(moved);
    const r = await cdx(join(moved, "index.cdxj"));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("is in the archive directory");
    expect(existsSync(join(moved, "index.cdxj"))).toBe(false);
    const after = snapshot(moved);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
  });

  it("a directory as --out is a usage error naming it (exit 2), not EISDIR", async () => {
    const r = await cdx(outside);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `nor: --out ${outside} is a directory; give the name of a file to write\n`,
    );
  });

  it("a missing directory is a usage error naming it (exit 2), not ENOENT", async () => {
    const out = join(outside, "no-such-dir", "index.cdxj");
    const r = await cdx(out);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(out);
    expect(r.stderr).toContain(`there is no directory ${join(outside, "no-such-dir")}`);
    expect(r.stderr).not.toMatch(/ENOENT|ENOTDIR|EISDIR/);
    expect(existsSync(join(outside, "no-such-dir"))).toBe(false);
  });

  it("a file where a directory should be is a usage error (exit 2), not ENOTDIR", async () => {
    const file = join(outside, "plain");
    writeFileSync(file, "x");
    const r = await cdx(join(file, "index.cdxj"));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${file} is not a directory`);
    expect(r.stderr).not.toMatch(/ENOENT|ENOTDIR|EISDIR/);
  });

  it("writes the same index as standard output, beside the target then renamed into place (a hard link to the old file keeps the old bytes; no temporary file is left)", async () => {
    const printed = await nor("archive", "cdx", "--data", t.dataDir);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toContain("http://127.0.0.2/agendas");

    const out = join(outside, "index.cdxj");
    writeFileSync(out, "old index\n");
    const keep = join(outside, "old-link");
    linkSync(out, keep);
    const inode = statSync(out).ino;

    const r = await cdx(out);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`nor: 1 CDXJ lines written to ${out}\n`);
    expect(readFileSync(out, "utf8")).toBe(printed.stdout);
    // Replaced by a rename, never rewritten in place: the old file is whole under its other name.
    expect(statSync(out).ino).not.toBe(inode);
    expect(readFileSync(keep, "utf8")).toBe("old index\n");
    expect(readdirSync(outside).sort()).toEqual(["index.cdxj", "old-link"]);
    // The store was read (its -shm may change); the archive is as it was.
    expectDataUnchanged(t.archiveDir);
  });

  it("a new file in a directory that exists is written (relative to the working directory too)", async () => {
    const sub = join(outside, "sub");
    mkdirSync(sub);
    const r = await cdx(relative(process.cwd(), join(sub, "new.cdxj")));
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(join(sub, "new.cdxj"), "utf8")).toContain("http://127.0.0.2/agendas");
    expect(readdirSync(sub)).toEqual(["new.cdxj"]);
  });
});
