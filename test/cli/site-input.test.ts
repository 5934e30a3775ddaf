import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { siteInputProblem } from "../../src/policy/site.js";
import { nor } from "./cli-capture.js";

/**
 * A site typed with a port no URL may have, or an IPv6 address without its brackets, is refused
 * (exit 2) saying what is wrong with it, not "no host name can be read from it": the port is
 * impossible (more than 65535, as the catalog says it), the address goes in brackets.
 */
const dir = mkdtempSync(join(tmpdir(), "nor-site-input-"));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("a site no URL can be made of", () => {
  it("P27: nor site with a port over 65535 is refused (exit 2) saying the port is impossible", async () => {
    for (const typed of [
      "http://127.0.0.11:99999/",
      "example.gov:70000",
      "https://[::1]:99999/x",
    ]) {
      const r = await nor("site", typed, "--data", dir);
      expect(r.code, typed).toBe(2);
      expect(r.stdout, typed).toBe("");
      const port = /:(\d+)(?:\/|$)/.exec(typed)?.[1];
      expect(r.stderr, typed).toBe(
        `nor: "${typed}" is not a site, host or URL: its port ${port} is impossible: more than 65535, the largest there is\n`,
      );
    }
  });

  it("P27: nor site with an IPv6 address without brackets is refused (exit 2) suggesting the bracketed form", async () => {
    for (const [typed, meant] of [
      ["::1", "[::1]"],
      ["2001:DB8::1", "[2001:db8::1]"],
      ["2001:db8:0:0:0:0:0:1", "[2001:db8::1]"],
    ] as const) {
      const r = await nor("site", typed, "--data", dir);
      expect(r.code, typed).toBe(2);
      expect(r.stderr, typed).toBe(
        `nor: "${typed}" is not a site, host or URL: an IPv6 address is written in brackets: type ${meant}\n`,
      );
    }
    // As nor log --site says it.
    const log = await nor("log", "--data", dir, "--site", "::1");
    expect(log.code).toBe(2);
    expect(log.stderr).toContain(
      `--site: "::1" is not a site, host or URL: an IPv6 address is written in brackets: type [::1]`,
    );
  });

  it("P21, P26: contradictory changes in one command are refused (exit 2) before the store is touched: --gap with --clear-gap, one path both left alone and cleared", async () => {
    for (const [args, said] of [
      [["--gap", "30s", "--clear-gap"], "give --gap or --clear-gap, not both"],
      [
        ["--leave-alone", "/x", "--clear-leave-alone", "/x"],
        "give --leave-alone or --clear-leave-alone for /x, not both",
      ],
      [["--read", "--not-read"], "give --read or --not-read, not both"],
    ] as const) {
      const r = await nor("site", "example.gov", ...args, "--reason", "r", "--data", dir);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).toContain(said);
      expect(r.stdout).toBe("");
    }
  });

  it("P10: nor site --gap 0s (no time at all) is refused (exit 2) naming the 2 s floor, the real rule, as a gap under it is", async () => {
    for (const gap of ["0s", "0h0m", "0.1ms"]) {
      const r = await nor("site", "example.gov", "--gap", gap, "--reason", "r", "--data", dir);
      expect(r.code, gap).toBe(2);
      expect(r.stderr, gap).toBe(
        `nor: --gap: "${gap}" is no time at all: a gap must be at least the 2 s floor (P10)\n`,
      );
      expect(r.stdout).toBe("");
    }
  });

  it("siteInputProblem: only a port or an unbracketed IPv6 address; anything else is left to readSite", () => {
    expect(siteInputProblem("example.gov:abc")).toBe('its port "abc" is not a number');
    expect(siteInputProblem("http://u@h.gov:8080/")).toBeUndefined();
    expect(siteInputProblem("[::1]")).toBeUndefined();
    expect(siteInputProblem("example..gov")).toBeUndefined();
    expect(siteInputProblem("x.gov:")).toBeUndefined();
    expect(siteInputProblem("fe80::1%eth0")).toBe(
      "an IPv6 address is written in brackets: type [fe80::1%eth0]",
    );
  });
});
