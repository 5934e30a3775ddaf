import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nor } from "./cli-capture.js";
import { buildCli, ROOT } from "./run-nor.js";

/**
 * Commands load lazily: `nor --help` and `nor log` must not pay for the fetcher (undici), the
 * HTML parser (cheerio), the web server (hono), the PostgreSQL driver or the archive. Which
 * modules a command loads can only be seen in a fresh process, so this one test spawns `nor`
 * with a loader hook that writes down every module URL loaded. Counts, never wall time.
 */
const HEAVY = /\/node_modules\/(cheerio|undici|hono|@hono|pg|pino|warcio|feedsmith|entities)\//;

let dir: string;
let register: string;

beforeAll(() => {
  buildCli();
  dir = mkdtempSync(join(tmpdir(), "nor-lazy-"));
  writeFileSync(
    join(dir, "hooks.mjs"),
    `import { appendFileSync } from "node:fs";
export async function load(url, context, next) {
  appendFileSync(process.env.NOR_MODULE_TRACE, url + "\\n");
  return next(url, context);
}
`,
  );
  register = join(dir, "register.mjs");
  writeFileSync(
    register,
    `import { register } from "node:module";
register(new URL("./hooks.mjs", import.meta.url));
`,
  );
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The module URLs `nor ARGS` loads, and its exit code. */
function modulesLoadedBy(args: string[]): { code: number | null; modules: string[] } {
  const trace = join(dir, `trace-${args.join("-").replace(/[^a-z-]/gi, "")}.txt`);
  writeFileSync(trace, "");
  const env: NodeJS.ProcessEnv = { ...process.env, NOR_MODULE_TRACE: trace };
  delete env["NOR_DATABASE_URL"];
  const r = spawnSync(
    process.execPath,
    ["--import", pathToFileURL(register).href, join(ROOT, "bin", "nor.js"), ...args],
    { cwd: ROOT, env, encoding: "utf8", timeout: 60_000 },
  );
  return { code: r.status, modules: readFileSync(trace, "utf8").split("\n").filter(Boolean) };
}

describe("nor loads only what the command needs", () => {
  it("`nor --help` loads the command list and commander, no command module", () => {
    const { code, modules } = modulesLoadedBy(["--help"]);
    expect(code).toBe(0);
    const ours = modules.filter((m) => m.includes("/dist/"));
    expect(ours.map((m) => m.replace(/^.*\/dist\//, "")).sort()).toEqual([
      "cli/io.js",
      "cli/main.js",
      "errors.js",
    ]);
    const packages = new Set(
      modules.filter((m) => m.includes("/node_modules/")).map((m) => m.split("/node_modules/")[1]),
    );
    expect([...packages].every((p) => p?.startsWith("commander/"))).toBe(true);
  });

  it("`nor log` loads no fetcher, HTML parser, web server, PostgreSQL driver or archive", () => {
    const missing = join(dir, "no-store");
    const { code, modules } = modulesLoadedBy(["log", "--data", missing]);
    expect(code).toBe(2); // no store there: it still had to load the log command to say so
    expect(modules.some((m) => m.endsWith("/dist/cli/commands/log.js"))).toBe(true);
    expect(modules.filter((m) => HEAVY.test(m))).toEqual([]);
    expect(modules.some((m) => m.includes("/dist/cli/commands/night.js"))).toBe(false);
    // The control: `nor night --help` does load the fetcher and the parser.
    const night = modulesLoadedBy(["night", "--help"]);
    expect(night.code).toBe(0);
    expect(night.modules.some((m) => /\/node_modules\/undici\//.test(m))).toBe(true);
    expect(night.modules.some((m) => /\/node_modules\/cheerio\//.test(m))).toBe(true);
  });

  it("`nor night` loads no warcio (nor its wasm hasher): the night's archive reads and writes its own records", () => {
    // Issue 13's memory target: warcio, hash-wasm and pako cost a night several MB of its peak
    // RSS for nothing; only `nor archive cdx`, `verify` and a record not written here need them.
    const night = modulesLoadedBy(["night", "--help"]);
    expect(night.code).toBe(0);
    expect(night.modules.some((m) => m.endsWith("/dist/night/compose.js"))).toBe(true);
    expect(
      night.modules.filter((m) => /\/node_modules\/(warcio|hash-wasm|pako)\//.test(m)),
    ).toEqual([]);
  });

  it("`nor log` loads kysely as the one bundled file, and the public suffix list only for --site", () => {
    const missing = join(dir, "no-store");
    const plain = modulesLoadedBy(["log", "--data", missing]);
    expect(plain.code).toBe(2);
    // `npm run build` bundles kysely (src/store/kysely.ts): one module, not the package's 263.
    expect(plain.modules.filter((m) => m.endsWith("/dist/vendor/kysely.js"))).toHaveLength(1);
    expect(plain.modules.filter((m) => /\/node_modules\/kysely\//.test(m))).toEqual([]);
    expect(plain.modules.filter((m) => /\/node_modules\/tldts/.test(m))).toEqual([]);
    expect(plain.modules.filter((m) => m.includes("/node_modules/")).length).toBeLessThan(5);
    // The control: --site needs the registrable domain (P9), so tldts comes in then.
    const site = modulesLoadedBy(["log", "--data", missing, "--site", "www.example.gov"]);
    expect(site.modules.some((m) => /\/node_modules\/tldts/.test(m))).toBe(true);
  });

  it("`nor catalog check` and `stats` load no preset, HTML parser or fetcher (preset names are enough)", () => {
    for (const cmd of ["check", "stats"]) {
      const { code, modules } = modulesLoadedBy(["catalog", cmd, "catalog/ohio.yaml"]);
      expect(code).toBe(0);
      expect(modules.some((m) => m.endsWith("/dist/sources/catalog/load.js"))).toBe(true);
      expect(modules.filter((m) => HEAVY.test(m))).toEqual([]);
      expect(modules.filter((m) => m.includes("/dist/sources/platforms/"))).toEqual([
        expect.stringMatching(/\/dist\/sources\/platforms\/names\.js$/),
      ]);
    }
  });

  it("`nor help night` shows the night's own options", async () => {
    // What it shows needs no fresh process: in this one, its output passed in.
    const r = await nor("help", "night");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("--catalog <files...>");
  });
});
