import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runMain as runNor } from "../cli/cli-capture.js";

/** Review: a store that cannot be opened is a clear error naming the path (exit 1). */
describe("review: bad store locations", () => {
  const dir = mkdtempSync(join(tmpdir(), "nor-review-open-"));
  const catalog = join(dir, "catalog.yaml");
  writeFileSync(
    catalog,
    "governments:\n  - { id: g, name: G, kind: village, county: Franklin }\nsources: []\n",
  );
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("a --data path that is a file is refused by name, not with a raw EEXIST", async () => {
    const file = join(dir, "a-file");
    writeFileSync(file, "x");
    const r = await runNor(["night", "--catalog", catalog, "--data", file]);
    expect(r.code).toBe(2); // a configuration mistake
    expect(r.stderr).toContain(`${file} is not a directory`);
    expect(r.stderr).not.toContain("EEXIST");
  });

  it("a nor.db that is no SQLite database at all (a text file) is refused naming the file, exit 2, and left as it was", async () => {
    const d = join(dir, "text");
    mkdirSync(d);
    const text = "this is not a database, just text ".repeat(200);
    writeFileSync(join(d, "nor.db"), text);
    for (const args of [
      ["night", "--catalog", catalog, "--data", d],
      ["status", "--data", d],
    ]) {
      const r = await runNor(args);
      expect(r.code).toBe(2); // a person must look: a restart would meet it again
      expect(r.stderr).toContain(
        `${join(d, "nor.db")} is not a SQLite database (it does not begin as one), so not a store`,
      );
    }
    expect(readFileSync(join(d, "nor.db"), "utf8")).toBe(text);
  });

  it("a corrupt nor.db (a SQLite database, damaged) is refused naming the file and why", async () => {
    const d = join(dir, "corrupt");
    mkdirSync(d);
    const damaged = Buffer.concat([
      Buffer.from("SQLite format 3\u0000", "latin1"),
      Buffer.alloc(8192, 0x5a),
    ]);
    writeFileSync(join(d, "nor.db"), damaged);
    for (const args of [
      ["night", "--catalog", catalog, "--data", d],
      ["status", "--data", d],
    ]) {
      const r = await runNor(args);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(join(d, "nor.db"));
      expect(r.stderr).toMatch(/is damaged \(SQLite: /);
    }
  });
});
