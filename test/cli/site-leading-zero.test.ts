import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../src/store/db.js";
import { SqlRequestLog } from "../../src/store/request-log.js";
import { siteRules } from "../../src/store/site-rules.js";
import { entry } from "../store/entries.js";
import { nor } from "./cli-capture.js";

/**
 * The URL parser reads `127.0.0.054` as octal: 127.0.0.44, another site than the 127.0.0.54 a
 * person typing it usually means. A value that could name either is refused (exit 2) by every
 * command that takes a site, with the value and why, never answered with another site's rows.
 */
describe("a site typed as an IPv4 address with a leading zero", () => {
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "nor-site-zero-"));
    const store = await openStore({ kind: "sqlite", dir });
    const log = new SqlRequestLog(store.db);
    for (const [host, at] of [
      ["127.0.0.44", Date.UTC(2026, 10, 5, 8, 12, 4)],
      ["127.0.0.54", Date.UTC(2026, 10, 5, 8, 12, 9)],
    ] as const) {
      await log.append(
        entry({ startedAt: at, site: host, origin: `http://${host}`, url: `http://${host}/bids` }),
      );
    }
    await store.close();
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("P27: nor log --site 127.0.0.054 is refused (exit 2) naming the value, the leading zero and both readings, and shows no site's rows", async () => {
    for (const typed of ["127.0.0.054", "http://127.0.0.054:8080/bids"]) {
      const r = await nor("log", "--data", dir, "--site", typed, "--jsonl");
      expect(r.code, typed).toBe(2);
      expect(r.stdout, typed).toBe("");
      expect(r.stderr, typed).toContain(`--site: "${typed}"`);
      expect(r.stderr, typed).toContain(
        "127.0.0.054 is an IPv4 address with a part written with a leading zero (054), which is ambiguous: the URL parser reads it as octal (127.0.0.44), a person usually means decimal (127.0.0.54)",
      );
    }
  });

  it("P27: nor log --site finds an IPv4 site typed as the checker stores it, and only its rows", async () => {
    for (const host of ["127.0.0.44", "127.0.0.54"]) {
      const r = await nor("log", "--data", dir, "--site", host, "--jsonl");
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      const sites = r.stdout
        .trim()
        .split("\n")
        .map((l) => (JSON.parse(l) as { site: string }).site);
      expect(sites).toEqual([host]);
    }
  });

  it("P27: nor log --site refuses other spellings the URL parser reads as an IPv4 address, naming the address to type", async () => {
    for (const [typed, stored] of [
      ["127.1", "127.0.0.1"],
      ["0x7f.0.0.54", "127.0.0.54"],
      ["2130706486", "127.0.0.54"],
      ["127.0.0.%35%34", "127.0.0.54"],
    ]) {
      const r = await nor("log", "--data", dir, "--site", typed!);
      expect(r.code, typed).toBe(2);
      expect(r.stdout, typed).toBe("");
      expect(r.stderr, typed).toContain(
        `${typed} is not an IPv4 address as the checker writes it: URLs read it as ${stored}`,
      );
      expect(r.stderr, typed).toContain(`type ${stored} if that is the site`);
    }
  });

  it("P27: nor log --site 127.0.0.08 (no octal number) says the leading zero, not that no host can be read", async () => {
    const r = await nor("log", "--data", dir, "--site", "127.0.0.08");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "127.0.0.08 is an IPv4 address with a part written with a leading zero (08)",
    );
    expect(r.stderr).toContain("a person usually means decimal (127.0.0.8)");
  });

  it("nor site 127.0.0.054 --gap is refused by the same rule, and no request is kept for either site", async () => {
    const r = await nor("site", "127.0.0.054", "--gap", "30s", "--reason", "e-mail", "--data", dir);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('"127.0.0.054" is not a site, host or URL');
    expect(r.stderr).toContain("a part written with a leading zero (054)");
    const store = await openStore({ kind: "sqlite", dir }, { create: false });
    try {
      expect(await siteRules(store.db)).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
