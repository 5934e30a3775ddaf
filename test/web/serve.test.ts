import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { load } from "cheerio";
import { parseAtomFeed } from "feedsmith";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_USER_AGENT } from "../../src/policy/constants.js";
import { runMain } from "../cli/cli-capture.js";
import { type Fleet, type FleetServer, startFleet } from "../fleet/fleet.js";

/**
 * End to end: `nor night` runs against a loopback fleet, then the built `nor serve` (a process,
 * stopped with SIGTERM) shows what it wrote over real HTTP on 127.0.0.1 — the refused night with Cloudflare's Ray ID (P23) and
 * the records' links, which the directory shows but never fetches (P6).
 */
const REPO = join(import.meta.dirname, "..", "..");
const RAY = "8e1f2c3d4b5a6978-CMH";

/** The feed's agendas 1…n, the newest first (a second night lists one more than the first). */
const feed = (origin: string, n: number) =>
  `<?xml version="1.0"?><rss version="2.0"><channel><title>Agendas</title><link>${origin}/</link><description>d</description>${Array.from(
    { length: n },
    (_, i) => n - i,
  )
    .map(
      (i) =>
        `<item><title>Council agenda ${i}</title><link>${origin}/agenda/${i}</link><guid>${origin}/agenda/${i}</guid><pubDate>Tue, 0${i} Nov 2026 18:00:00 GMT</pubDate></item>`,
    )
    .join("")}</channel></rss>`;

const BLOCK_PAGE = `<!DOCTYPE html><html><head><title>Attention Required! | Cloudflare</title></head><body>
<h1 data-translate="block_headline">Sorry, you have been blocked</h1>
<span class="cf-error-code">1020</span><p>Cloudflare Ray ID: <strong>${RAY.slice(0, 16)}</strong></p></body></html>`;

/** `nor …` in this process (what ends by itself: the night, refused settings). */
async function run(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  const r = await runMain(args);
  return { code: r.code, out: r.stdout, err: r.stderr };
}

/** Starts `nor serve` as a process (it stops on SIGTERM), resolves with the URL it prints (bounded: 50 s, a start on a loaded 2-core machine has taken over 20). */
function startServe(
  args: string[],
): Promise<{ proc: ChildProcess; url: string; output: () => string }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ["bin/nor.js", "serve", ...args], {
      cwd: REPO,
      env: { ...process.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      reject(new Error(`nor serve printed no URL in 50 s: ${out} ${err}`));
    }, 50_000);
    proc.stderr?.on("data", (c: Buffer) => {
      err += c.toString();
    });
    proc.stdout?.on("data", (c: Buffer) => {
      out += c.toString();
      const m = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve({ proc, url: m[1], output: () => out });
      }
    });
    proc.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`nor serve exited ${code}: ${err}`));
    });
  });
}

/** What the server at `url` answers `text` sent as it is on a new connection (bounded: 10 s). */
function rawRequest(url: string, text: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(text));
    let got = "";
    socket.setTimeout(10_000, () => socket.destroy(new Error("no answer in 10 s")));
    socket.on("data", (c: Buffer) => {
      got += c.toString();
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(got));
  });
}

function exited(proc: ChildProcess, ms: number): Promise<number | null> {
  return new Promise((resolve) => {
    if (proc.exitCode !== null) return resolve(proc.exitCode);
    const timer = setTimeout(() => {
      proc.kill("SIGKILL");
      resolve(null);
    }, ms);
    proc.once("exit", (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

describe("nor night, then nor serve", () => {
  let fleet: Fleet;
  let dir: string;
  let feedSite: FleetServer;
  let blockSite: FleetServer;

  beforeAll(async () => {
    fleet = await startFleet();
    feedSite = await fleet.server({ host: "127.0.0.2" });
    blockSite = await fleet.server({ host: "127.0.0.3" });
    feedSite.route(
      "/robots.txt",
      (_q, res) => void res.writeHead(200).end("User-agent: *\nAllow: /\n"),
    );
    let agendas = 2;
    feedSite.route(
      "/agendas.rss",
      (_q, res) =>
        void res
          .writeHead(200, { "content-type": "application/rss+xml" })
          .end(feed(feedSite.origin, agendas)),
    );
    blockSite.route("/robots.txt", (_q, res) => void res.writeHead(404).end());
    blockSite.route(
      "/bids",
      (_q, res) =>
        void res
          .writeHead(403, { "content-type": "text/html", server: "cloudflare", "cf-ray": RAY })
          .end(BLOCK_PAGE),
    );
    dir = mkdtempSync(join(tmpdir(), "nor-serve-"));
    writeFileSync(
      join(dir, "catalog.yaml"),
      [
        "governments:",
        "  - { id: village-of-test, name: Village of Test, kind: village, county: Franklin }",
        "sources:",
        "  - { id: test-agendas, government: village-of-test, records: agendas, access: feed, " +
          `url: "${feedSite.url("/agendas.rss")}" }`,
        "  - id: test-bids",
        "    government: village-of-test",
        "    records: bids",
        "    access: page",
        `    url: ${blockSite.url("/bids")}`,
        "    extract: { items: li.bid, title: a, link: a }",
        "",
      ].join("\n"),
    );
    // Two nights: the first reads the feed for the first time (what it lists was there before:
    // already listed, not new); by the second it lists one agenda more, new on record.
    for (const night of ["2026-11-05", "2026-11-06"]) {
      const r = await run(
        ["night", "--catalog", join(dir, "catalog.yaml"), "--data", dir, "--night", night].concat([
          "--allow-private-addresses",
          "--gap-ms",
          "50",
        ]),
      );
      if (r.code !== 0) throw new Error(`nor night exited ${r.code}: ${r.err}`);
      agendas = 3;
    }
  }, 180_000);

  afterAll(async () => {
    await fleet?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("P23, P6: serves the nights' results on 127.0.0.1 (a feed's first read already listed, the next night's agenda new), never fetches a record link, and stops on SIGTERM", async () => {
    const seenBefore = feedSite.requests.length + blockSite.requests.length;
    const { proc, url, output } = await startServe(["--data", dir, "--port", "0"]);
    try {
      const get = async (path: string) => {
        const res = await fetch(new URL(path, url), { signal: AbortSignal.timeout(10_000) });
        return { res, text: await res.text() };
      };
      const home = await get("/");
      expect(home.res.status).toBe(200);
      expect(load(home.text)(".counts strong").first().text()).toBe("1");

      const source = await get("/sources/test-bids");
      expect(source.res.status).toBe(200);
      const $ = load(source.text);
      expect($("section.last-no .provider").text()).toBe("cloudflare");
      expect($("section.last-no .reference").text()).toBe(RAY);
      expect($(".public-link a").attr("href")).toBe(blockSite.url("/bids"));

      const agendas = load((await get("/sources/test-agendas")).text);
      expect(
        agendas("a.record")
          .map((_i, a) => agendas(a).attr("href"))
          .get(),
      ).toEqual([3, 2, 1].map((i) => `${feedSite.origin}/agenda/${i}`));

      // New on record: what the feed listed when first read was already there (its source page
      // shows it, above); the agenda it listed the next night is new.
      const atom = await get("/new.atom?night=2026-11-06");
      expect(atom.res.headers.get("content-type")).toMatch(/^application\/atom\+xml/);
      const parsed = parseAtomFeed(atom.text);
      expect(parsed.links?.find((l) => l.rel === "self")?.href).toBe(
        new URL("/new.atom?night=2026-11-06", url).href,
      );
      expect(parsed.entries?.map((e) => e.title?.value)).toEqual(["Council agenda 3"]);
      expect(parseAtomFeed((await get("/new.atom?night=2026-11-05")).text).entries ?? []).toEqual(
        [],
      );

      expect((await get("/site-owners")).res.status).toBe(200);
      // A search longer than Node reads (16 KB) is answered with words, not an empty 431; a
      // request that is not HTTP with a 400 that says so.
      const long = await get(`/search?q=${"a".repeat(17_000)}`);
      expect(long.res.status).toBe(431);
      expect(long.res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
      expect(long.text).toContain("The address or its headers are too long (more than 16 KB)");
      expect(await rawRequest(url, "NOT HTTP\r\n\r\n")).toMatch(
        /^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*\r\n\r\nThe request could not be read as HTTP\.\n$/,
      );
      const api = await get("/api/sources/test-bids");
      expect(JSON.parse(api.text).lastOutcome.evidence.reference).toBe(RAY);
      // Without an operator password the console is off, and nor serve said so.
      expect((await get("/console")).res.status).toBe(503);
      expect(output()).toContain("the console is off");
      // P6: showing the records (pages, feed, API) asked the sites for nothing.
      expect(feedSite.requests.length + blockSite.requests.length).toBe(seenBefore);
    } finally {
      proc.kill("SIGTERM");
      expect(await exited(proc, 10_000)).toBe(0);
      expect(output()).toContain("stopping");
    }
  }, 120_000);

  it("P1, P2: nor serve shows the User-Agent the checker last sent, and the operator's name and contact beside the one they configured; bad settings are refused", async () => {
    const ua = "public-records-check/0.1 (+mailto:desk@example.org)";
    // The night ran with the built-in User-Agent: the page shows that one, whatever nor serve
    // was given, and nor serve says so.
    const other = await startServe([
      "--data",
      dir,
      "--port",
      "0",
      "--user-agent",
      ua,
      "--operator-name",
      "Records Desk",
    ]);
    try {
      const html = await (
        await fetch(new URL("/site-owners", other.url), { signal: AbortSignal.timeout(10_000) })
      ).text();
      expect(html).toContain(`<pre id="user-agent">${DEFAULT_USER_AGENT}</pre>`);
      expect(html).not.toContain("Records Desk");
      for (let i = 0; i < 100 && !other.output().includes("last night sent"); i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(other.output()).toContain(
        `the site-owners page shows the User-Agent the last night sent, ${JSON.stringify(DEFAULT_USER_AGENT)}, not ${JSON.stringify(ua)}`,
      );
    } finally {
      other.proc.kill("SIGTERM");
      expect(await exited(other.proc, 10_000)).toBe(0);
    }
    // As if the night had sent the operator's own (each night records what it sent).
    const db = new Database(join(dir, "nor.db"));
    try {
      db.prepare("update nights set user_agent = ?").run(ua);
    } finally {
      db.close();
    }
    const { proc, url } = await startServe([
      "--data",
      dir,
      "--port",
      "0",
      "--user-agent",
      ua,
      "--operator-name",
      "Records Desk",
    ]);
    try {
      const res = await fetch(new URL("/site-owners", url), {
        signal: AbortSignal.timeout(10_000),
      });
      const html = await res.text();
      expect(html).toContain(`<pre id="user-agent">${ua}</pre>`);
      expect(html).toContain(
        'Records Desk runs it: <a href="mailto:desk@example.org">desk@example.org</a>.',
      );
      expect(html).not.toContain("newonrecord.com");
    } finally {
      proc.kill("SIGTERM");
      expect(await exited(proc, 10_000)).toBe(0);
    }
    const browser = await run([
      "serve",
      "--data",
      dir,
      "--port",
      "0",
      "--user-agent",
      "Mozilla/5.0",
    ]);
    expect(browser.code).toBe(2); // configuration
    expect(browser.err).toMatch(/must be exactly public-records-check\/<version> \(\+mailto:/);
    const origin = await run(["serve", "--data", dir, "--port", "0", "--origin", "ftp://x"]);
    expect(origin.code).toBe(2);
    const header = await run([
      "serve",
      "--data",
      dir,
      "--port",
      "0",
      "--client-address-header",
      "X Real",
    ]);
    expect(header.code).toBe(2);
    // --operator-name: only beside the operator's own contact, one line, not empty, not long.
    const serveWith = (...extra: string[]) =>
      run(["serve", "--data", dir, "--port", "0", ...extra]);
    const noUa = await serveWith("--operator-name", "Records Desk");
    expect(noUa.code).toBe(2);
    expect(noUa.err).toContain("--operator-name needs a User-Agent with your own contact");
    for (const [name, says] of [
      ["   ", "the name is empty"],
      ["Records\nDesk", "holds a control or formatting character"],
      ["Records\u202eDesk", "holds a control or formatting character"],
      ["x".repeat(101), "at most 100 characters"],
    ]) {
      const bad = await serveWith("--user-agent", ua, "--operator-name", name!);
      expect(bad.code, name).toBe(2);
      expect(bad.err, name).toContain(says);
    }
  }, 150_000);

  it("bad usage and a missing store are clear errors", async () => {
    const port = await run(["serve", "--data", dir, "--port", "eighty"]);
    expect(port.code).toBe(2);
    expect(port.err).toContain(
      '--port must be a number from 0 to 65535 (0 picks a free port), not "eighty"',
    );
    const missing = join(dir, "nowhere");
    const none = await run(["serve", "--data", missing, "--port", "0"]);
    expect(none.code).toBe(2);
    expect(none.err).toContain(`no store at ${join(missing, "nor.db")}`);
  });
});
