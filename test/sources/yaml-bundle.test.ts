import { spawnSync } from "node:child_process";
import {
  existsSync,
  linkSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import * as pkg from "yaml";
import { parseCatalog } from "../../src/sources/catalog/load.js";
import { ROOT } from "../cli/run-nor.js";

/**
 * `npm run build` bundles what the engine takes from yaml into dist/vendor/yaml.js
 * (scripts/bundle-vendor.mjs), and the built engine loads it (src/yaml.ts): one file, not the
 * package's 60-odd CommonJS files, at every start of a command that reads a catalog. The bundle
 * must be the package's Node build (its warnings through process.emitWarning, binary tags through
 * Buffer), and read every catalog as the package does. dist/ is built once by
 * test/global-build.ts.
 */
const BUNDLE = join(ROOT, "dist", "vendor", "yaml.js");

async function bundled(): Promise<typeof import("yaml")> {
  return import(pathToFileURL(BUNDLE).href);
}

/** The built catalog loader, on the bundle (the source one runs on the package: no src/vendor/). */
async function builtLoader(): Promise<typeof import("../../src/sources/catalog/load.js")> {
  return import(pathToFileURL(join(ROOT, "dist", "sources", "catalog", "load.js")).href);
}

const TEXTS: Record<string, string> = {
  plain: "a: 1\nb: [x, y]\nc: { d: true, e: null, f: 2026-11-03 }\n",
  anchors: "base: &b { x: 1 }\nuse: *b\nlist:\n  - *b\n",
  binary: "%YAML 1.1\n---\nbin: !!binary aGVsbG8=\n",
  "duplicate key": "a: 1\na: 2\n",
  "bad indent": "a:\n  - b\n - c\n",
  "tab indent": "a:\n\t- b\n",
  "unclosed flow": "a: [1, 2\n",
  "collection key": "? [a, b]\n: c\n",
  "unknown tag": "a: !nope x\n",
  quoted: "a: \"\\u00e9\\t\\x41\"\nb: 'it''s'\nc: |\n  two\n  lines\n",
};

/** What a parse gives: the value (as JSON, binary tags too), errors and warnings. */
function parsed(y: typeof import("yaml"), text: string) {
  const lines = new y.LineCounter();
  // logLevel "error": the warning a collection key makes is kept in doc.warnings, not printed.
  const doc = y.parseDocument(text, { lineCounter: lines, prettyErrors: true, logLevel: "error" });
  let value: unknown;
  try {
    value = JSON.stringify(doc.toJS()); // a Buffer as {"type":"Buffer","data":[…]}
  } catch (e) {
    value = `threw ${(e as Error).message}`;
  }
  return {
    value,
    errors: doc.errors.map((e) => [e.code, e.message, e.linePos]),
    warnings: doc.warnings.map((w) => [w.code, w.message]),
    lineStarts: lines.lineStarts,
  };
}

describe("yaml bundled (dist/vendor/yaml.js)", () => {
  it("the build bundles the package's Node build, its requires of Node's own modules kept", () => {
    expect(existsSync(BUNDLE)).toBe(true);
    const text = readFileSync(BUNDLE, "utf8");
    expect(text).not.toMatch(/yaml\/browser\//);
    expect(text).toMatch(/yaml\/dist\/parse\/parser\.js/);
    expect(text).toContain("emitWarning");
    // Nothing else imported: Node's modules only.
    const imports = [...text.matchAll(/^import .* from "([^"]+)";$/gm)].map((m) => m[1]);
    expect(imports.every((s) => s?.startsWith("node:"))).toBe(true);
  });

  it("the built src/yaml.ts gives every value from the bundle (scripts/vendor/yaml.mjs names each it takes), and src/zod.ts its z", async () => {
    // A name src/yaml.ts takes that the bundle lacks makes it take the package instead
    // (src/vendored.ts): right, but the bundle's gain lost without a word. Said here.
    for (const [wrapper, bundle] of [
      ["yaml.js", BUNDLE],
      ["zod.js", join(ROOT, "dist", "vendor", "zod.js")],
    ] as const) {
      const built = (await import(pathToFileURL(join(ROOT, "dist", wrapper)).href)) as Record<
        string,
        unknown
      >;
      const vendor = (await import(pathToFileURL(bundle).href)) as Record<string, unknown>;
      const names = Object.keys(built);
      expect(names.length, wrapper).toBeGreaterThan(0);
      for (const name of names) expect(built[name], `${wrapper} ${name}`).toBe(vendor[name]);
    }
  });

  it("parses, reports and stringifies exactly as the package does", async () => {
    const y = await bundled();
    for (const [name, text] of Object.entries(TEXTS)) {
      expect(parsed(y, text), name).toEqual(parsed(pkg, text));
    }
    // The Node build's binary tag is a Buffer, as the package's.
    expect(parsed(y, TEXTS["binary"]!).value).toBe(
      '{"bin":{"type":"Buffer","data":[104,101,108,108,111]}}',
    );
    const value = { a: [1, "two", { b: null }], c: "multi\nline", d: "x: y" };
    expect(y.stringify(value)).toBe(pkg.stringify(value));
    // Its nodes are recognised by the package's tests of kind, and the other way round.
    const doc = y.parseDocument("a: [1]\n");
    expect(pkg.isMap(doc.contents)).toBe(true);
    expect(y.isMap(pkg.parseDocument("a: 1\n").contents)).toBe(true);
  });

  it("the built catalog loader reads a catalog, and says its problems, as the package-based one does", async () => {
    const { parseCatalog: built } = await builtLoader();
    const good = `governments:
  - id: village-of-x
    name: Village of X
    kind: village
    county: Summit
sources:
  - id: x-agendas
    government: village-of-x
    records: agendas
    url: https://www.x.gov/AgendaCenter
    access: page
    extract: { items: li.row, title: a, link: a, date: span }
  - id: x-minutes
    government: village-of-x
    records: minutes
    url: https://www.x.gov/feed.rss
`;
    expect(JSON.parse(JSON.stringify(built(good, "x.yaml")))).toEqual(
      JSON.parse(JSON.stringify(parseCatalog(good, "x.yaml"))),
    );
    const said = (parse: typeof parseCatalog, text: string) => {
      try {
        parse(text, "bad.yaml");
        return "no error";
      } catch (e) {
        return (e as Error).message;
      }
    };
    for (const bad of [
      `${good}  - id: x-agendas\n    government: nowhere\n    records: agendas\n    url: https://u:p@www.x.gov/\n`,
      "governments:\n  - id: a\n    name: [unclosed\n",
      "governments:\n  - &g { id: a, name: A, kind: city }\n  - *g\nsources: []\n",
      "governments:\n  - id: a\n    id: b\n",
    ]) {
      const message = said(built, bad);
      expect(message).not.toBe("no error");
      expect(message).toBe(said(parseCatalog, bad));
    }
  });

  it("a bundle from another build, without a name src/yaml.ts takes, or one cut short, is passed over for the package: the catalog is read as always", async () => {
    // dist/vendor/yaml.js is written by scripts/bundle-vendor.mjs from scripts/vendor/yaml.mjs's
    // list, dist/yaml.js by tsc from src/yaml.ts: a `tsc` alone after src/yaml.ts took one
    // more name, or a list that forgot it, leaves a bundle without it (here `visit`, the
    // catalog loader's walk of the document). A bundle cut short (a build killed as it wrote,
    // before builds renamed their bundles into place; a full disk) does not parse. Each in a
    // copy of dist/ of its own.
    const changes: [string, (text: string) => string][] = [
      ["without visit", (t) => t.replace(/^(export \{[^}]*?)\bvisit,? ?([^}]*\};)$/m, "$1$2")],
      ["cut short", (t) => t.slice(0, 5000)],
    ];
    for (const [name, change] of changes) {
      const copy = mkdtempSync(join(tmpdir(), "nor-yaml-bundle-"));
      try {
        const cp = spawnSync("cp", ["-a", join(ROOT, "dist"), copy]);
        expect(cp.status, cp.stderr?.toString()).toBe(0);
        symlinkSync(join(ROOT, "node_modules"), join(copy, "node_modules"));
        const bundle = join(copy, "dist", "vendor", "yaml.js");
        const text = readFileSync(bundle, "utf8");
        const changed = change(text);
        expect(changed, name).not.toBe(text);
        writeFileSync(bundle, changed);
        const { parseCatalog: built } = (await import(
          pathToFileURL(join(copy, "dist", "sources", "catalog", "load.js")).href
        )) as typeof import("../../src/sources/catalog/load.js");
        const good = "governments:\n  - id: a\n    name: A\n    kind: city\n    county: Summit\n";
        expect(JSON.parse(JSON.stringify(built(good, "x.yaml"))), name).toEqual(
          JSON.parse(JSON.stringify(parseCatalog(good, "x.yaml"))),
        );
      } finally {
        rmSync(copy, { recursive: true, force: true });
      }
    }
  });

  it("the build writes each bundle beside it, then renames it into place: a command starting during `npm run build` reads the old bundle or the new, never one half written", () => {
    // A hard link to a bundle keeps the old bytes when the new one is renamed over it (written
    // in place, the link would show the new bytes as they are written).
    const out = mkdtempSync(join(tmpdir(), "nor-vendor-"));
    try {
      const run = () => {
        const r = spawnSync(process.execPath, [join(ROOT, "scripts", "bundle-vendor.mjs"), out], {
          cwd: ROOT,
          encoding: "utf8",
          env: { ...process.env },
          timeout: 120_000,
        });
        expect(r.status, r.stderr).toBe(0);
      };
      run();
      const names = ["feedsmith.js", "kysely.js", "yaml.js", "zod.js"];
      expect(readdirSync(out).sort()).toEqual(names);
      for (const name of names) {
        linkSync(join(out, name), join(out, `${name}.old`));
        writeFileSync(join(out, name), "// the old bundle\n");
      }
      run();
      for (const name of names) {
        expect(readFileSync(join(out, `${name}.old`), "utf8"), name).toBe("// the old bundle\n");
        expect(statSync(join(out, name)).ino).not.toBe(statSync(join(out, `${name}.old`)).ino);
        expect(readFileSync(join(out, name), "utf8").length).toBeGreaterThan(10_000);
      }
      // Nothing left beside them.
      expect(readdirSync(out).sort()).toEqual(names.flatMap((n) => [n, `${n}.old`]).sort());
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
