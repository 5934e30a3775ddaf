import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_USER_AGENT } from "../../src/policy/constants.js";
import { runMain } from "./cli-capture.js";

/** `nor robots check …` in this process, its output streams passed in. */
let dir = "";

async function nor(...args: string[]) {
  const r = await runMain(args);
  return { code: r.code, out: r.stdout, err: r.stderr };
}

function file(name: string, content: string | Uint8Array): string {
  const p = join(dir, name);
  writeFileSync(p, content);
  return p;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "nor-robots-cli-"));
}, 130_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("nor robots check", () => {
  it("P17: prints `disallowed` for a one-line `User-agent: * Disallow: /` file, exit 0", async () => {
    const f = file("one-line.txt", "User-agent: * Disallow: /\n");
    expect(await nor("robots", "check", f, "https://h.test/x")).toEqual({
      code: 0,
      out: "disallowed\n",
      err: "",
    });
  });

  it("P17: prints `allowed` for a path no rule closes, exit 0", async () => {
    const f = file("some.txt", "User-agent: *\nDisallow: /private\n");
    expect(await nor("robots", "check", f, "https://h.test/public")).toMatchObject({
      code: 0,
      out: "allowed\n",
    });
  });

  it("P17: reads the file as bytes, skipping a byte-order mark", async () => {
    const text = new TextEncoder().encode("User-agent: public-records-check\nDisallow: /r\n");
    const f = file("bom.txt", Uint8Array.from([0xef, 0xbb, 0xbf, ...text]));
    expect((await nor("robots", "check", f, "https://h.test/r/1")).out).toBe("disallowed\n");
  });

  it("P17: a file over 500 KiB: its first 512 KiB are read, as a night reads one, and it says so", async () => {
    const filler = `# ${"x".repeat(98)}\n`.repeat(5_300); // 535,300 bytes of comments
    const f = file("big.txt", `User-agent: *\nDisallow: /early\n${filler}Disallow: /late\n`);
    const late = await nor("robots", "check", f, "https://h.test/late");
    expect(late.code).toBe(0);
    expect(late.out).toBe(
      `allowed\nnote: ${f} is 535,347 bytes; only its first 524,288 are read (RFC 9309 §2.5), as a night reads a fetched robots.txt\n`,
    );
    expect((await nor("robots", "check", f, "https://h.test/early")).out).toMatch(/^disallowed\n/);
  });

  it("P16: prints the chosen group's crawl-delay on a second line", async () => {
    const f = file(
      "delay.txt",
      "User-agent: *\nDisallow: /\nCrawl-delay: 99\n\nUser-agent: public-records-check\nAllow: /\nCrawl-delay: 30\n",
    );
    expect(await nor("robots", "check", f, "https://h.test/x")).toMatchObject({
      code: 0,
      out: "allowed\ncrawl-delay: 30\n",
    });
  });

  it("P16: --agent takes a full User-Agent or another token", async () => {
    const f = file(
      "agents.txt",
      "User-agent: public-records-check\nDisallow: /\n\nUser-agent: *\nDisallow: /only-others\n",
    );
    expect(
      (await nor("robots", "check", f, "http://h.test/a", "--agent", DEFAULT_USER_AGENT)).out,
    ).toBe("disallowed\n");
    expect(
      (await nor("robots", "check", f, "http://h.test/a", "--agent", "otherbot/1.0")).out,
    ).toBe("allowed\n");
    expect(
      (await nor("robots", "check", f, "http://h.test/only-others", "--agent", "otherbot")).out,
    ).toBe("disallowed\n");
  });

  it("usage: a missing URL exits 2", async () => {
    const f = file("x.txt", "");
    const r = await nor("robots", "check", f);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/missing required argument 'url'/);
  });

  it("usage: an unreadable file exits 2 with a message naming the file", async () => {
    const missing = join(dir, "no-such-robots.txt");
    const r = await nor("robots", "check", missing, "https://h.test/");
    expect(r.code).toBe(2);
    expect(r.out).toBe("");
    expect(r.err).toContain(missing);
    expect((await nor("robots", "check", dir, "https://h.test/")).err).toContain(dir);
  });

  it("P17: a file that never ends (/dev/zero) is read as a night reads robots.txt: its first 500 KiB, no further", async () => {
    const r = await nor("robots", "check", "/dev/zero", "https://h.test/x");
    expect(r.code).toBe(0);
    expect(r.out).toBe(
      "allowed\nnote: /dev/zero is more than 524,288 bytes; only its first 524,288 are read (RFC 9309 §2.5), as a night reads a fetched robots.txt\n",
    );
  });

  it("P18, P27: judges the URL a night would send (its one normal form), so it says what the night does: `/records?` is asked as `/records`", async () => {
    // A night asks for `https://h.test/records?` as `/records` (net/redirects.ts checkUrl), which
    // `Disallow: /records$` closes (test/net/exact-urls.test.ts) and `Disallow: /*?` does not.
    const anchored = file("anchored.txt", "User-agent: *\nDisallow: /records$\n");
    for (const url of ["https://h.test/records?", "https://h.test/records?#top"])
      expect((await nor("robots", "check", anchored, url)).out).toBe("disallowed\n");
    const queries = file("queries.txt", "User-agent: *\nDisallow: /*?\n");
    expect((await nor("robots", "check", queries, "https://h.test/records?")).out).toBe(
      "allowed\n",
    );
    expect((await nor("robots", "check", queries, "https://h.test/records?a=1")).out).toBe(
      "disallowed\n",
    );
    // A URL a night never sends is no question it answers: said, exit 2.
    const r = await nor("robots", "check", anchored, "https://user:pw@h.test/records");
    expect(r.code).toBe(2);
    expect(r.err).toContain("user-info");
  });

  it("usage: a bad URL exits 2 with a message naming the URL", async () => {
    const f = file("y.txt", "");
    const r = await nor("robots", "check", f, "not a url");
    expect(r.code).toBe(2);
    expect(r.err).toContain("not a url");
    const ftp = await nor("robots", "check", f, "ftp://h.test/x");
    expect(ftp.code).toBe(2);
    expect(ftp.err).toContain("ftp://h.test/x");
  });
});
