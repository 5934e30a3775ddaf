import { afterEach, describe, expect, it } from "vitest";
import { type Harness, harness } from "../fleet/harness.js";
import { html, robots } from "../fleet/routes.js";
import { bothReadings } from "./robots-paths.js";

/**
 * P16–P18 from the outside: a loopback server serves the robots.txt bytes, the checker's
 * fetcher reads them the way a night does (fetch, cache, parse the cache), and the server's
 * log shows which paths were asked for. `nor robots check` on the same bytes must agree.
 */
let h: Harness;
afterEach(async () => h?.close());

const enc = new TextEncoder();
const bytes = (...parts: (number[] | Uint8Array | string)[]) =>
  Uint8Array.from(parts.flatMap((p) => [...(typeof p === "string" ? enc.encode(p) : p)]));

/** A site serving `file` as robots.txt; every other path is a small page. */
async function site(file: string | Uint8Array) {
  h = await harness();
  const s = await h.fleet.server({ fallback: html("<p>page</p>") });
  s.route("/robots.txt", robots(file));
  return s;
}

/** Fetches each URL in turn; returns the outcome kinds. */
async function visit(urls: string[]): Promise<string[]> {
  const f = h.fetcher();
  const kinds: string[] = [];
  for (const url of urls) kinds.push((await f.fetch({ url, purpose: "page" })).kind);
  return kinds;
}

describe("robots.txt is read once and the same way on every path (P16, P17, P18)", () => {
  it("P17/P18: a 171 KiB Latin-1 file's final `Disallow: /private` keeps the checker out", async () => {
    const file = bytes(
      "User-agent: *\n# ",
      new Uint8Array(175_000).fill(0xe9),
      "\nDisallow: /private\n",
    );
    const s = await site(file);
    expect(await visit([s.url("/private/x"), s.url("/list")])).toEqual(["disallowed", "ok"]);
    expect(s.requests.map((r) => r.path)).toEqual(["/robots.txt", "/list"]);
    const r = await bothReadings(file, s.url("/private/x"));
    expect(r).toEqual({ cli: { verdict: "disallowed" }, night: { verdict: "disallowed" } });
  });

  it("P17/P18: a rule byte that is not UTF-8 (`/caf\\xE9`) closes the URL's %E9", async () => {
    const file = bytes("User-agent: *\nDisallow: /caf", [0xe9], "\n");
    const s = await site(file);
    expect(await visit([s.url("/caf%E9"), s.url("/caf%e9/menu"), s.url("/cafe")])).toEqual([
      "disallowed",
      "disallowed",
      "ok",
    ]);
    expect(s.requests.map((r) => r.path)).toEqual(["/robots.txt", "/cafe"]);
    const r = await bothReadings(file, s.url("/caf%E9"));
    expect(r).toEqual({ cli: { verdict: "disallowed" }, night: { verdict: "disallowed" } });
  });

  it("P17/P18: a `'` in a query rule closes the URL written with `'`", async () => {
    const file = "User-agent: *\nDisallow: /search?q='x'\n";
    const s = await site(file);
    const urls = [s.url("/search?q='x'"), s.url("/search?q=%27x%27"), s.url("/search?q=x")];
    expect(await visit(urls)).toEqual(["disallowed", "disallowed", "ok"]);
    expect(s.requests.map((r) => r.path)).toEqual(["/robots.txt", "/search?q=x"]);
    const r = await bothReadings(file, s.url("/search?q='x'"));
    expect(r).toEqual({ cli: { verdict: "disallowed" }, night: { verdict: "disallowed" } });
  });

  it("P16/P18: a `*bot` group's `Allow: /` does not open what the * group closes", async () => {
    const file = "User-agent: *\nDisallow: /\n\nUser-agent: *bot\nAllow: /\n";
    const s = await site(file);
    expect(await visit([s.url("/list")])).toEqual(["disallowed"]);
    expect(s.requests.map((r) => r.path)).toEqual(["/robots.txt"]);
    const r = await bothReadings(file, s.url("/list"));
    expect(r).toEqual({ cli: { verdict: "disallowed" }, night: { verdict: "disallowed" } });
  });

  it("P17/P18: `Disallow\\v/v` is no rule and does not end the * group", async () => {
    const file = "User-agent: *\nDisallow\v/v\nUser-agent: other\nDisallow: /private\n";
    const s = await site(file);
    expect(await visit([s.url("/private/x"), s.url("/v")])).toEqual(["disallowed", "ok"]);
    expect(s.requests.map((r) => r.path)).toEqual(["/robots.txt", "/v"]);
    const r = await bothReadings(file, s.url("/private/x"));
    expect(r).toEqual({ cli: { verdict: "disallowed" }, night: { verdict: "disallowed" } });
  });
});
