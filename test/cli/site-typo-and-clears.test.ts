import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { siteRules } from "../../src/store/site-rules.js";
import { oneSourceStore, writeVillageCatalog } from "./catalogs.js";
import { nor } from "./cli-capture.js";

/**
 * `nor site` for a site no source is on still records the owner's request (an owner may write
 * before the catalog lists their site) but says so on stderr, so a mistyped site is seen. A
 * clear that finds nothing to clear is refused (exit 2) and nothing is recorded, as `nor mark`
 * refuses a mark that is already so and the console's Clear does (409).
 */
const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "nor-site-typo-"));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A store holding one catalog (one source, on example.gov). */
const storeDir = (): Promise<string> => oneSourceStore(tmp(), "Typo", "typo-agendas");

/** Every row of site_rules, cleared ones too: what a command recorded. */
async function allRuleRows(data: string): Promise<unknown[]> {
  const store = await openStore({ kind: "sqlite", dir: data }, { create: false });
  try {
    return await store.db.selectFrom("site_rules").selectAll().orderBy("id").execute();
  } finally {
    await store.close();
  }
}

async function inForce(data: string): Promise<string[]> {
  const store = await openStore({ kind: "sqlite", dir: data }, { create: false });
  try {
    return (await siteRules(store.db)).map((r) => `${r.site} ${r.kind} ${r.value ?? ""}`.trim());
  } finally {
    await store.close();
  }
}

const NO_SOURCE = (site: string) =>
  `nor site: no source in the store is on ${site}: is it mistyped? The request is kept all the same, as an owner may write before the catalog lists their site (\`nor status\` lists the sources)\n`;

describe("nor site for a site no source in the store is on", () => {
  it("--gap, --leave-alone and --not-read are recorded (exit 0) with a warning on stderr naming the site", async () => {
    const data = await storeDir();
    const gap = await nor(
      "site",
      "unknown-site.gov",
      "--gap",
      "5s",
      "--reason",
      "owner, e-mail",
      "--data",
      data,
    );
    expect(gap.code, gap.stderr).toBe(0);
    expect(gap.stdout).toBe("unknown-site.gov: at least 5 s between requests\n");
    expect(gap.stderr).toBe(NO_SOURCE("unknown-site.gov"));
    for (const change of [["--leave-alone", "/permits/"], ["--not-read"]]) {
      const r = await nor("site", "unknown-site.gov", ...change, "--reason", "r", "--data", data);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr, change.join(" ")).toBe(NO_SOURCE("unknown-site.gov"));
    }
    expect(await inForce(data)).toEqual([
      "unknown-site.gov gap 5000",
      "unknown-site.gov leave-alone /permits/",
      "unknown-site.gov not-read",
    ]);
  });

  it("no warning for the site a source is on, however it is typed (host, www., URL)", async () => {
    const data = await storeDir();
    for (const typed of ["example.gov", "www.example.gov", "https://www.example.gov/x"]) {
      const r = await nor("site", typed, "--gap", "5s", "--reason", "owner", "--data", data);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr, typed).toBe("");
    }
  });

  it("no warning for the site of a source a night has read, retired from the catalog since (`nor status` still lists it)", async () => {
    const d = tmp();
    const data = join(d, "data");
    const loopback = writeVillageCatalog(join(d, "loopback.yaml"), "Typo", {
      "typo-loop": 'records: agendas, access: feed, url: "http://127.0.0.1:9/a.rss"',
    });
    // Without --allow-private-addresses nothing is sent to 127.0.0.1: the night ends at once.
    const night = await nor("night", "--catalog", loopback, "--data", data, "--deadline", "1m");
    expect(night.code, night.stderr).toBe(0);
    const other = writeVillageCatalog(join(d, "other.yaml"), "Typo", {
      "typo-agendas": 'records: agendas, access: feed, url: "https://www.example.gov/agendas.rss"',
    });
    const imported = await nor("catalog", "import", other, "--data", data, "--allow-retire");
    expect(imported.code, imported.stderr).toBe(0);
    const r = await nor("site", "127.0.0.1", "--gap", "5s", "--reason", "owner", "--data", data);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    const typo = await nor("site", "127.0.0.2", "--gap", "5s", "--reason", "owner", "--data", data);
    expect(typo.stderr).toBe(NO_SOURCE("127.0.0.2"));
  });

  it("no warning for a clear or a listing", async () => {
    const data = await storeDir();
    await nor("site", "unknown-site.gov", "--gap", "5s", "--reason", "r", "--data", data);
    const cleared = await nor("site", "unknown-site.gov", "--clear-gap", "--data", data);
    expect(cleared.code, cleared.stderr).toBe(0);
    expect(cleared.stderr).toBe("");
    const listed = await nor("site", "unknown-site.gov", "--data", data);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stderr).toBe("");
  });
});

describe("nor site: a clear that finds nothing to clear", () => {
  it("--clear-leave-alone /nothere, --read and --clear-gap with nothing in force: exit 2, says so, nothing recorded", async () => {
    const data = await storeDir();
    for (const [change, said] of [
      [["--clear-leave-alone", "/nothere"], "/nothere is not left alone"],
      [["--read"], "it is not marked not read"],
      [["--clear-gap"], "it has no gap of its own"],
    ] as const) {
      const r = await nor("site", "example.gov", ...change, "--data", data);
      expect(r.code, change.join(" ")).toBe(2);
      expect(r.stdout, change.join(" ")).toBe("");
      expect(r.stderr, change.join(" ")).toBe(
        `nor: example.gov: nothing to clear (${said}); nothing was recorded (\`nor site example.gov\` lists what is in force)\n`,
      );
    }
    expect(await allRuleRows(data)).toEqual([]);
  });

  it("as nor mark --read on a source already read (exit 2)", async () => {
    const data = await storeDir();
    const mark = await nor("mark", "typo-agendas", "--read", "--data", data);
    expect(mark.code).toBe(2);
    expect(mark.stderr).toContain("nothing changed");
    const site = await nor("site", "example.gov", "--read", "--data", data);
    expect(site.code).toBe(2);
    expect(site.stderr).toContain("nothing to clear");
  });

  it("among other changes it refuses the whole command before anything is written", async () => {
    const data = await storeDir();
    expect(
      (await nor("site", "example.gov", "--leave-alone", "/a/", "--reason", "r", "--data", data))
        .code,
    ).toBe(0);
    const before = await allRuleRows(data);

    // A new request beside a clear of nothing: neither is recorded.
    const mixed = await nor(
      "site",
      "example.gov",
      "--gap",
      "10s",
      "--clear-leave-alone",
      "/nothere",
      "--reason",
      "r",
      "--data",
      data,
    );
    expect(mixed.code).toBe(2);
    expect(mixed.stdout).toBe("");
    expect(mixed.stderr).toBe(
      "nor: example.gov: nothing to clear (/nothere is not left alone); nothing was recorded (`nor site example.gov` lists what is in force)\n",
    );
    // A clear of something in force beside a clear of nothing: /a/ stays left alone.
    const two = await nor(
      "site",
      "example.gov",
      "--clear-leave-alone",
      "/a/",
      "/nothere",
      "--read",
      "--data",
      data,
    );
    expect(two.code).toBe(2);
    expect(two.stderr).toBe(
      "nor: example.gov: nothing to clear (it is not marked not read; /nothere is not left alone); nothing was recorded (`nor site example.gov` lists what is in force)\n",
    );
    // The same path twice: the second finds nothing once the first has cleared it.
    const twice = await nor(
      "site",
      "example.gov",
      "--clear-leave-alone",
      "/a/",
      "/a/",
      "--data",
      data,
    );
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain(
      "nothing to clear (/a/ is not left alone); nothing was recorded",
    );
    expect(await allRuleRows(data)).toEqual(before);
    expect(await inForce(data)).toEqual(["example.gov leave-alone /a/"]);
  });

  it("a clear of what is in force still clears it (exit 0); the same clear again is refused", async () => {
    const data = await storeDir();
    await nor("site", "example.gov", "--gap", "30s", "--reason", "r", "--data", data);
    await nor("site", "example.gov", "--not-read", "--reason", "r", "--data", data);
    const r = await nor("site", "example.gov", "--clear-gap", "--read", "--data", data);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe("example.gov: read again\nexample.gov: gap back to the floor\n");
    expect(await inForce(data)).toEqual([]);
    const again = await nor("site", "example.gov", "--clear-gap", "--data", data);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("nothing to clear (it has no gap of its own)");
    // A request set and cleared by one command contradicts itself: refused, nothing recorded
    // (as --read with --not-read is).
    const setAndClear = await nor(
      "site",
      "example.gov",
      "--leave-alone",
      "/b/",
      "--clear-leave-alone",
      "/b/",
      "--reason",
      "r",
      "--data",
      data,
    );
    expect(setAndClear.code, setAndClear.stderr).toBe(2);
    expect(setAndClear.stderr).toContain(
      "give --leave-alone or --clear-leave-alone for /b/, not both",
    );
    expect(await inForce(data)).toEqual([]);
  });
});
