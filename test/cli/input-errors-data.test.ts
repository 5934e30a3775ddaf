import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { WarcArchive } from "../../src/store/archive/warc-archive.js";
import { exchange, tempStore } from "../archive/support/fixtures.js";
import { writeVillageCatalog } from "./catalogs.js";
import { nor } from "./cli-capture.js";

/**
 * A data directory that is not what a command needs (a file given as --data, an empty
 * --data, none given where no store is, an archive that is a file or is gone) is said in
 * words with the path and the option, never as a bare ENOTDIR or ENOENT.
 */
const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "nor-input-errors-data-"));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("nor demo --data", () => {
  it("a file is refused by name (exit 2), before any site starts", async () => {
    const file = join(tmp(), "afile");
    writeFileSync(file, "not a directory\n");
    const r = await nor("demo", "--headless", "--port", "0", "--data", file);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(
      `nor: --data ${file} is a file: the demo needs a new or empty directory\n`,
    );
    expect(r.stdout).toBe("");
  });

  it("a path under a file is refused naming the file in the way (exit 2), as every command says it", async () => {
    const file = join(tmp(), "afile");
    writeFileSync(file, "not a directory\n");
    const r = await nor("demo", "--headless", "--port", "0", "--data", join(file, "sub"));
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe(
      `nor: the store location ${join(file, "sub")} cannot be made: ${file} is not a directory; choose another --data\n`,
    );
    expect(r.stdout).toBe("");
  });

  it('"" is refused as a usage error (exit 2), not read as the current directory', async () => {
    const r = await nor("demo", "--headless", "--port", "0", "--data", "");
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe("nor: --data needs a directory, not an empty value\n");
  });
});

describe("nor discover and its store", () => {
  it("without --data, refuses when ./data holds no store (exit 2) and makes none", async () => {
    const cwd = tmp();
    const before = process.cwd();
    process.chdir(cwd);
    try {
      const r = await nor("discover", "http://127.0.0.1:9/", "--allow-private-addresses");
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toBe(
        `nor: no store at ${join("data", "nor.db")} (check --data; \`nor catalog import\` or \`nor night\` creates one)\n`,
      );
    } finally {
      process.chdir(before);
    }
    expect(readdirSync(cwd)).toEqual([]);
  });

  it("P27: with --data naming no store, refuses as without it (exit 2), naming the path, and makes nothing: no store, no archive, no request logged", async () => {
    const d = tmp();
    // An empty directory, and a mistyped one that is not there at all.
    for (const data of [d, join(d, "mistyped")]) {
      const r = await nor(
        "discover",
        "http://127.0.0.1:9/",
        "--data",
        data,
        "--allow-private-addresses",
      );
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toBe(
        `nor: no store at ${join(data, "nor.db")} (check --data; \`nor catalog import\` or \`nor night\` creates one)\n`,
      );
      expect(r.stdout).toBe("");
    }
    expect(readdirSync(d)).toEqual([]);
  });

  it('--data "" is a usage error (exit 2)', async () => {
    const r = await nor("discover", "http://127.0.0.1:9/", "--data", "");
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toBe("nor: --data needs a directory, not an empty value\n");
  });
});

describe("--data for every command that opens the store", () => {
  it.each([
    ["catalog", "import", "catalog/ohio.yaml"],
    ["status"],
    ["log"],
    ["night", "--catalog", "catalog/ohio.yaml"],
  ])(
    'nor %s … --data "" is refused (exit 2), never read as the current directory',
    async (...args) => {
      const r = await nor(...args, "--data", "");
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain("--data needs a directory, not an empty value");
    },
  );
});

describe("the archive in the data directory", () => {
  it("a file where DATA/archive goes stops the night by name (exit 2)", async () => {
    const d = tmp();
    const data = join(d, "data");
    // Without --allow-private-addresses nothing is sent to 127.0.0.1.
    const catalog = writeVillageCatalog(join(d, "catalog.yaml"), "Test", {
      "test-agendas": 'records: agendas, access: feed, url: "http://127.0.0.1:9/a.rss"',
    });
    expect((await nor("catalog", "import", catalog, "--data", data)).code).toBe(0);
    rmSync(join(data, "archive"), { recursive: true, force: true });
    writeFileSync(join(data, "archive"), "not a directory\n");
    const r = await nor("night", "--catalog", catalog, "--data", data);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      `nor: the archive location ${join(data, "archive")} is not a directory: the stored copies (P8) are kept in a directory there; move what is in the way\n`,
    );
    expect(r.stderr).not.toContain("EEXIST");
  });

  it("nor archive show says the archive directory (exit 2) or its file (exit 1) is gone, by path", async () => {
    const t = await tempStore();
    try {
      const url = "http://127.0.0.1:9/bids";
      const a = await WarcArchive.open(t.archiveDir, t.archiveOptions);
      await a.write(exchange(url, "<p>bids</p>", { source: "city-bids" }));
      const file = join(t.archiveDir, a.currentFile ?? "");
      await a.close();

      rmSync(file);
      const gone = await nor("archive", "show", url, "--data", t.dataDir);
      expect(gone.code, gone.stderr).toBe(1);
      expect(gone.stderr).toBe(
        `nor: ${file}: the file is gone from the archive (moved or deleted), though the index names records in it\n`,
      );

      // No archive at all where the index names copies: said as `nor archive verify` says it,
      // naming the directory looked in (exit 2, docs/operations.md "Backups").
      rmSync(t.archiveDir, { recursive: true });
      const all = await nor("archive", "show", url, "--data", t.dataDir);
      expect(all.code, all.stderr).toBe(2);
      expect(all.stderr).toBe(
        `nor: no archive at ${t.archiveDir}: the directory does not exist, though the index names 1 stored copy in it (check --data; put the archive back if it was moved)\n`,
      );
      expect(existsSync(t.archiveDir)).toBe(false);
    } finally {
      await t.cleanup();
    }
  });
});
