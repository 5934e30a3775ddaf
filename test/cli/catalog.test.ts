import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { nor } from "./cli-capture.js";

const dir = () => mkdtempSync(join(tmpdir(), "nor-catalog-cli-"));

const GOVS = `governments:
  - { id: city-of-kent, name: City of Kent, kind: city, county: Portage }
  - { id: portage-county, name: Portage County, kind: county, county: Portage }
`;
const src = (id: string, url: string, gov = "city-of-kent") =>
  `  - { id: ${id}, government: ${gov}, records: agendas, access: feed, url: "${url}" }\n`;

describe("nor catalog check", () => {
  it("prints ok with the counts for a good catalog", async () => {
    const f = join(dir(), "ok.yaml");
    writeFileSync(f, `${GOVS}sources:\n${src("kent-council", "https://www.kent-ohio.org/rss")}`);
    expect(await nor("catalog", "check", f)).toMatchObject({
      code: 0,
      stdout: "ok: 2 governments, 1 source\n",
    });
  });

  it("P3: prints every error with file:line and exits 2", async () => {
    const f = join(dir(), "bad.yaml");
    writeFileSync(
      f,
      `${GOVS}sources:\n${src("a", "https://u:p@x.gov/")}${src("a", "https://x.gov/?apikey=1", "nowhere")}`,
    );
    const r = await nor("catalog", "check", f);
    expect(r.code).toBe(2);
    expect(r.stdout.split("\n").filter(Boolean)).toEqual([
      expect.stringMatching(new RegExp(`^${f}:5:77: sources\\[0\\]\\.url: URL carries user-info`)),
      `${f}:6:11: sources[1].id: duplicate source id "a" (first at ${f}:5:11)`,
      expect.stringMatching(
        new RegExp(`^${f}:6:26: sources\\[1\\]\\.government: unknown government "nowhere"`),
      ),
      expect.stringMatching(
        new RegExp(
          `^${f}:6:72: sources\\[1\\]\\.url: URL carries the credential query parameter "apikey"`,
        ),
      ),
    ]);
    expect(r.stderr).toContain("catalog has 4 problems");
  });

  it("refuses a selector the reader cannot parse, at its line and field, exit 2 (not a nightly extract-error)", async () => {
    const f = join(dir(), "bad-selector.yaml");
    writeFileSync(
      f,
      `${GOVS}sources:\n  - { id: kent-agendas, government: city-of-kent, records: agendas, url: "https://www.kent-ohio.org/a", extract: { items: 'li[[[' } }\n`,
    );
    const r = await nor("catalog", "check", f);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe(
      `${f}:5:123: sources[0].extract.items: not a CSS selector the reader can use: Expected name, found [[\n`,
    );
  });

  it("exits 2 on usage errors", async () => {
    expect((await nor("catalog", "check")).code).toBe(2);
    expect((await nor("catalog", "frobnicate")).code).toBe(2);
  });

  it("the shipped catalog/ohio.yaml passes", async () => {
    const r = await nor("catalog", "check", "catalog/ohio.yaml");
    expect(r.stdout).toMatch(/^ok: \d+ governments, \d+ sources\n$/);
    expect(r.code).toBe(0);
  });
});

describe("nor catalog import", () => {
  const stores: string[] = [];
  afterEach(() => {
    stores.length = 0;
  });

  it("imports as a diff: added, changed, retired (kept, with the time), re-added un-retired", async () => {
    const d = dir();
    const f = join(d, "cat.yaml");
    const data = join(d, "data");
    writeFileSync(
      f,
      `${GOVS}sources:\n${src("s1", "https://x.gov/1")}${src("s2", "https://x.gov/2")}`,
    );
    const first = await nor("catalog", "import", f, "--data", data);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("governments: 2 added, 0 changed, 0 retired, 0 un-retired");
    expect(first.stdout).toContain("sources: 2 added, 0 changed, 0 retired, 0 un-retired");
    expect(first.stdout).toContain("+ source s1 added");

    // Same again: nothing to do.
    const same = await nor("catalog", "import", f, "--data", data);
    expect(same.stdout).toContain("sources: 0 added, 0 changed, 0 retired, 0 un-retired");
    expect(same.stdout).toContain("4 unchanged");

    // s2 removed, s1's url changed.
    writeFileSync(f, `${GOVS}sources:\n${src("s1", "https://x.gov/one")}`);
    // Retiring half the sources is more than a tenth: it needs --allow-retire.
    const second = await nor("catalog", "import", f, "--data", data, "--allow-retire");
    expect(second.stdout).toContain("sources: 0 added, 1 changed, 1 retired, 0 un-retired");
    expect(second.stdout).toContain("~ source s1 changed (url)");
    expect(second.stdout).toContain("- source s2 retired");

    let store = await openStore({ kind: "sqlite", dir: data });
    const s2 = await store.db
      .selectFrom("sources")
      .selectAll()
      .where("id", "=", "s2")
      .executeTakeFirstOrThrow();
    expect(s2.retired_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    expect(s2.url).toBe("https://x.gov/2"); // never deleted: the row and its history stay
    await store.close();

    writeFileSync(
      f,
      `${GOVS}sources:\n${src("s1", "https://x.gov/one")}${src("s2", "https://x.gov/2")}`,
    );
    const third = await nor("catalog", "import", f, "--data", data);
    expect(third.stdout).toContain("^ source s2 unretired");
    store = await openStore({ kind: "sqlite", dir: data });
    const back = await store.db
      .selectFrom("sources")
      .selectAll()
      .where("id", "=", "s2")
      .executeTakeFirstOrThrow();
    expect(back.retired_at).toBeNull();
    const history = await store.db
      .selectFrom("catalog_changes")
      .select(["change"])
      .where("entity_id", "=", "s2")
      .orderBy("id")
      .execute();
    expect(history.map((h) => h.change)).toEqual(["added", "retired", "unretired"]);
    await store.close();
  });

  it("refuses a broken catalog before touching the store", async () => {
    const d = dir();
    const f = join(d, "cat.yaml");
    writeFileSync(f, `${GOVS}sources:\n${src("s1", "ftp://x.gov/1")}`);
    const r = await nor("catalog", "import", f, "--data", join(d, "data"));
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/cat\.yaml:5:\d+: sources\[0\]\.url: must be an absolute http/);
    await expect(
      openStore({ kind: "sqlite", dir: join(d, "data") }, { create: false }),
    ).rejects.toThrow(/no store/);
  });
});
