import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeVillageCatalog } from "./catalogs.js";
import { nor } from "./cli-capture.js";

/**
 * A --data that names a regular file is said as what it is, "not a directory" (exit 2), by the
 * commands that only read what is in the data directory, in the words `nor catalog import` and
 * `nor night` use for it; not as a store missing from under it ("no store at FILE/nor.db").
 */
const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "nor-data-not-directory-"));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("--data naming a regular file", () => {
  it("is said to be not a directory (exit 2) by every command that reads or makes a store, and is left as it was", async () => {
    const d = tmp();
    // Nothing is sent: 127.0.0.1 is refused without --allow-private-addresses.
    const catalog = writeVillageCatalog(join(d, "catalog.yaml"), "Test", {
      "test-agendas": 'records: agendas, access: feed, url: "http://127.0.0.1:9/a.rss"',
    });
    const file = join(d, "afile");
    writeFileSync(file, "not a directory\n");
    for (const args of [
      ["status"],
      ["status", "--json"],
      ["log"],
      ["flags"],
      ["archive", "show", "http://127.0.0.1:9/a.rss"],
      ["archive", "verify"],
      ["archive", "cdx"],
      ["reparse", "--catalog", catalog],
      ["mark", "test-agendas", "--not-read", "--reason", "the clerk asked"],
      // The commands that make a store say the same.
      ["catalog", "import", catalog],
      ["night", "--catalog", catalog, "--deadline", "1m"],
    ]) {
      const r = await nor(...args, "--data", file);
      const what = args.join(" ");
      expect(r.code, `${what}: ${r.stderr}`).toBe(2);
      expect(r.stderr, what).toBe(`nor: the store location ${file} is not a directory\n`);
      expect(r.stdout, what).toBe("");
    }
    expect(readFileSync(file, "utf8")).toBe("not a directory\n");
    expect(readdirSync(d).sort()).toEqual(["afile", "catalog.yaml"]);
  });

  it("a --data that is not there is still no store there (exit 2), and nothing is made", async () => {
    const d = tmp();
    const missing = join(d, "typo");
    for (const args of [["status"], ["archive", "verify"]]) {
      const r = await nor(...args, "--data", missing);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toContain(`no store at ${join(missing, "nor.db")}`);
    }
    expect(readdirSync(d)).toEqual([]);
  });
});
