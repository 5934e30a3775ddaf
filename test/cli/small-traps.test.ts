import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { nor } from "./cli-capture.js";

/**
 * Small traps a review of the CLI found: each is refused with a message naming what was
 * typed and why, with exit 2 (usage or configuration), before anything is written.
 */
const dirs: string[] = [];
function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), "nor-small-traps-"));
  dirs.push(d);
  return d;
}
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("nor help for a command that does not exist", () => {
  it("says the command is unknown, names it, shows the help and exits 2, as `nor nosuch` does", async () => {
    const plain = await nor("nosuch");
    const r = await nor("help", "nosuch");
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toContain("error: unknown command 'nosuch'");
    expect(r.stderr).toContain("Usage: nor [options] [command]");
    expect(r).toEqual(plain);
  });

  it("the same one level down: `nor catalog help nosuch` is `nor catalog nosuch`", async () => {
    const plain = await nor("catalog", "nosuch");
    const r = await nor("catalog", "help", "nosuch");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("error: unknown command 'nosuch'");
    expect(r.stderr).toContain("Usage: nor catalog [options] [command]");
    expect(r).toEqual(plain);
  });

  it("`nor nosuch --help` (and one level down) is `nor nosuch`: unknown, exit 2", async () => {
    for (const args of [["nosuch"], ["catalog", "nosuch"]]) {
      const plain = await nor(...args);
      for (const help of ["--help", "-h"]) {
        const r = await nor(...args, help);
        expect(r.code, `${args.join(" ")} ${help}`).toBe(2);
        expect(r.stderr).toContain("error: unknown command 'nosuch'");
        expect(r).toEqual(plain);
      }
    }
  });

  it("help for a command that exists is still help (exit 0)", async () => {
    const general = await nor("help");
    expect(general.code).toBe(0);
    expect(general.stdout).toContain("Usage: nor [options] [command]");
    const log = await nor("help", "log");
    expect(log.code).toBe(0);
    expect(log.stdout).toContain("Usage: nor log [options]");
    const check = await nor("catalog", "help", "check");
    expect(check.code).toBe(0);
    expect(check.stdout).toContain("Usage: nor catalog check [options] [files...]");
  });
});

describe("a site, host or URL that names no site", () => {
  let data = "";
  beforeAll(async () => {
    data = join(tmp(), "data");
    const store = await openStore({ kind: "sqlite", dir: data });
    await store.close();
  });

  const bad: [string, RegExp][] = [
    ["nosuch..gov", /nosuch\.\.gov has an empty label/],
    ["https://nosuch..gov/agendas", /nosuch\.\.gov has an empty label/],
    ["x.gov..", /x\.gov\. has an empty label/],
    [".gov", /\.gov has an empty label/],
    ["x-.ohio.gov", /x-\.ohio\.gov has a label that starts or ends with a hyphen/],
    [`${"a".repeat(64)}.gov`, /has a label longer than 63 characters/],
    ["gov", /gov is a public suffix, shared by every site under it, not one site/],
    ["oh.us", /oh\.us is a public suffix/],
    ["columbus gov", /it contains a space/],
  ];

  it.each(bad)(
    "P9: nor site %j is refused (exit 2), naming it and why, and nothing is kept",
    async (value, why) => {
      const r = await nor(
        "site",
        value,
        "--not-read",
        "--reason",
        "asked by e-mail",
        "--data",
        data,
      );
      expect(r.code, r.stdout).toBe(2);
      expect(r.stderr).toContain(`"${value}" is not a site, host or URL: `);
      expect(r.stderr).toMatch(why);
      const list = await nor("site", "--data", data, "--json");
      expect(list.code).toBe(0);
      expect(list.stdout.trim()).toBe("");
    },
  );

  it("P9: nor site still takes a host, a registrable domain, a URL, an IP literal or localhost", async () => {
    for (const [value, site] of [
      ["www.Columbus.gov", "columbus.gov"],
      ["https://a.ohio.gov/agendas?x=1", "ohio.gov"],
      ["127.0.0.2", "127.0.0.2"],
      ["localhost", "localhost"],
    ]) {
      const r = await nor("site", value ?? "", "--data", data);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(`${site}: no owner's requests\n`);
    }
  });

  it.each(bad)(
    "P27: nor log --site %j is refused (exit 2), naming it and why",
    async (value, why) => {
      const r = await nor("log", "--site", value, "--data", data);
      expect(r.code, r.stdout).toBe(2);
      expect(r.stderr).toContain(`--site: "${value}" is not a site, host or URL: `);
      expect(r.stderr).toMatch(why);
    },
  );

  it.each([
    ["https://nosuch..gov/", /nosuch\.\.gov has an empty label/],
    ["https://gov/", /gov is a public suffix/],
    ["http://-x.ohio.gov/", /has a label that starts or ends with a hyphen/],
  ])(
    "nor discover %s is refused (exit 2) before the store is made or a request sent",
    async (url, why) => {
      const fresh = join(tmp(), "data");
      const r = await nor("discover", url, "--data", fresh);
      expect(r.code, r.stdout).toBe(2);
      expect(r.stderr).toContain(`"${url}" is not a site's address: `);
      expect(r.stderr).toMatch(why);
      expect(existsSync(fresh)).toBe(false);
    },
  );

  it("P3: nor discover refuses a URL with user-info (exit 2) before the store is made", async () => {
    const fresh = join(tmp(), "data");
    const r = await nor("discover", "https://user:secret@example.gov/", "--data", fresh);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("a URL with user-info is never read");
    expect(existsSync(fresh)).toBe(false);
  });
});

describe("a catalog file that is not there", () => {
  it.each([
    ["catalog", "check"],
    ["catalog", "stats"],
    ["catalog", "import", "--data", "DATA"],
    ["night", "--data", "DATA", "--catalog"],
  ])(
    "nor %s %s … names the path, with no line:column, exits 2 and writes nothing",
    async (...args) => {
      const d = tmp();
      const missing = join(d, "no-such-catalog.yaml");
      const data = join(d, "data");
      const r = await nor(...args.map((a) => (a === "DATA" ? data : a)), missing);
      const said = r.stdout + r.stderr;
      expect(r.code, said).toBe(2);
      expect(said).toContain(`${missing}: no such file`);
      expect(said).not.toMatch(/:0:0/);
      expect(existsSync(data)).toBe(false);
    },
  );

  it("every missing file is named at once; a directory is said to be one", async () => {
    const d = tmp();
    const [a, b] = [join(d, "a.yaml"), join(d, "b.yaml")];
    const folder = join(d, "catalog");
    mkdirSync(folder);
    const r = await nor("catalog", "check", a, folder, b);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe(
      `${a}: no such file\n${folder}: is a directory, not a catalog file\n${b}: no such file\n`,
    );
    expect(r.stderr).toBe("nor: catalog has 3 problems\n");
  });
});
