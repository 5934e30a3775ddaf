import { execFile } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { build } from "rolldown";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_BODY_BYTES } from "../../src/policy/constants.js";
import { type Harness, harness } from "../fleet/harness.js";
import { big, cut, cutChunked, gzipBomb, html, robots } from "../fleet/routes.js";

let h: Harness;
afterEach(async () => h?.close());

async function origin() {
  h = await harness();
  const s = await h.fleet.server();
  s.route("/robots.txt", robots("User-agent: *\nAllow: /\n"));
  return { s, f: h.fetcher() };
}

/** Bundles the child script to plain JS (Node 20 cannot run .ts) and runs it on `url`. */
async function fetchInChild(url: string) {
  const dir = await mkdtemp(join(tmpdir(), "nor-child-"));
  const file = join(dir, "fetch-once.mjs");
  await build({
    input: join(import.meta.dirname, "child/fetch-once.ts"),
    platform: "node",
    logLevel: "silent",
    output: { file, format: "esm" },
  });
  // The engine requires its CommonJS packages at run time (src/cjs.ts), from node_modules: a
  // bundle written outside the project finds them through NODE_PATH.
  const env = { ...process.env, NODE_PATH: join(import.meta.dirname, "..", "..", "node_modules") };
  const { stdout } = await promisify(execFile)(process.execPath, [file, url], {
    timeout: 60_000,
    env,
  });
  return JSON.parse(stdout) as {
    outcome: { kind: string; bytesRead?: number };
    maxRssKiB: number;
    vmHwmKiB: number | null;
  };
}

describe("body limits (P14)", () => {
  it("P14: a 25 MB body stops at 20 MiB (too-large), and the connection is dropped", async () => {
    const { s, f } = await origin();
    s.route("/huge", big(25 * 1024 * 1024));
    const out = await f.fetch({ url: s.url("/huge"), purpose: "page" });
    expect(out).toMatchObject({ kind: "too-large", status: 200 });
    if (out.kind === "too-large") {
      expect(out.bytesRead).toBeGreaterThan(MAX_BODY_BYTES);
      expect(out.bytesRead).toBeLessThan(MAX_BODY_BYTES + 1024 * 1024);
    }
    expect(h.ports.log.entries.at(-1)).toMatchObject({ outcome: "too-large" });
  });

  it("P14: a gzip body that inflates to 200 MB stops at 20 MiB with peak RSS under 150 MB", async () => {
    const { s } = await origin();
    s.route("/bomb", gzipBomb(200 * 1024 * 1024));
    const { outcome, maxRssKiB, vmHwmKiB } = await fetchInChild(s.url("/bomb"));
    expect(outcome.kind).toBe("too-large");
    expect(outcome.bytesRead).toBeGreaterThan(MAX_BODY_BYTES);
    expect(outcome.bytesRead).toBeLessThan(MAX_BODY_BYTES + 2 * 1024 * 1024);
    // Linux: ru_maxrss survives fork+exec, so it can only over-report the child (it may count
    // the forked copy of this test worker); VmHWM is the child's own peak. Both must be low.
    const peakKiB = vmHwmKiB ?? maxRssKiB;
    expect(peakKiB * 1024).toBeLessThan(150 * 1024 * 1024);
    console.info(
      `gzip bomb: child peak RSS VmHWM ${((vmHwmKiB ?? 0) / 1024).toFixed(1)} MiB, ru_maxrss ${(maxRssKiB / 1024).toFixed(1)} MiB`,
    );
  });

  it("P14, P15: a body cut before its Content-Length is 'closed before a full response' and retried", async () => {
    const { s, f } = await origin();
    s.route("/cut", cut(10_000, 500));
    const out = await f.fetch({ url: s.url("/cut"), purpose: "page" });
    expect(out).toMatchObject({ kind: "refused", evidence: { verdict: "closed" } });
    expect(s.hits("/cut")).toHaveLength(3);
    expect(
      h.ports.log.entries.filter((e) => e.url === s.url("/cut")).map((e) => e.outcome),
    ).toEqual(["retry", "retry", "refused"]);
  });

  it("P14, P15: a chunked body never terminated counts as cut too", async () => {
    const { s, f } = await origin();
    s.route("/chunked", (req, res, ctx) =>
      ctx.count === 1 ? cutChunked("partial")(req, res, ctx) : html("whole")(req, res, ctx),
    );
    expect((await f.fetch({ url: s.url("/chunked"), purpose: "page" })).kind).toBe("ok");
    expect(s.hits("/chunked")).toHaveLength(2);
    expect(h.ports.log.entries.find((e) => e.url === s.url("/chunked"))?.failure).toMatch(
      /^closed/,
    );
  });

  it("P14: gzip, deflate and br bodies are decoded", async () => {
    const { s, f } = await origin();
    const zlib = await import("node:zlib");
    const text = "<ul><li>agenda</li></ul>".repeat(50);
    s.route("/gz", html(zlib.gzipSync(text), 200, { "content-encoding": "gzip" }));
    s.route("/df", html(zlib.deflateSync(text), 200, { "content-encoding": "deflate" }));
    s.route("/br", html(zlib.brotliCompressSync(text), 200, { "content-encoding": "br" }));
    for (const p of ["/gz", "/df", "/br"]) {
      const out = await f.fetch({ url: s.url(p), purpose: "page" });
      expect(out.kind).toBe("ok");
      if (out.kind === "ok") expect(new TextDecoder().decode(out.body)).toBe(text);
    }
  });

  it("P14: a deflate body sent as raw deflate (no zlib header, old IIS) is decoded, as browsers do", async () => {
    const { s, f } = await origin();
    const zlib = await import("node:zlib");
    const text = `<table><tr class="r"><td><a href="/bid/1">Road salt bid</a></td></tr></table>`;
    s.route("/raw", html(zlib.deflateRawSync(text), 200, { "content-encoding": "deflate" }));
    const out = await f.fetch({ url: s.url("/raw"), purpose: "page" });
    expect(out.kind).toBe("ok");
    if (out.kind === "ok") expect(new TextDecoder().decode(out.body)).toBe(text);
    expect(s.hits("/raw")).toHaveLength(1);
  });

  it("P14: a raw deflate body that inflates to 200 MB stops at 20 MiB with peak RSS under 150 MB", async () => {
    const { s } = await origin();
    const zlib = await import("node:zlib");
    const raw = zlib.createDeflateRaw({ level: 9 });
    const parts: Buffer[] = [];
    raw.on("data", (c: Buffer) => parts.push(c));
    const done = new Promise((r) => raw.once("end", r));
    const zeros = Buffer.alloc(1024 * 1024, 0);
    for (let i = 0; i < 200; i++)
      if (!raw.write(zeros)) await new Promise((r) => raw.once("drain", r));
    raw.end();
    await done;
    s.route("/raw-bomb", html(Buffer.concat(parts), 200, { "content-encoding": "deflate" }));
    const { outcome, maxRssKiB, vmHwmKiB } = await fetchInChild(s.url("/raw-bomb"));
    expect(outcome.kind).toBe("too-large");
    expect(outcome.bytesRead).toBeGreaterThan(MAX_BODY_BYTES);
    expect(outcome.bytesRead).toBeLessThan(MAX_BODY_BYTES + 2 * 1024 * 1024);
    expect((vmHwmKiB ?? maxRssKiB) * 1024).toBeLessThan(150 * 1024 * 1024);
  });
});
