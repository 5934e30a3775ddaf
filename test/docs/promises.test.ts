import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

/**
 * docs/promises.md defines P1–P27 and names the test that proves each. This keeps it
 * honest: every promise listed there must be named by at least one test title under test/,
 * and every proof it cites must still exist, in that file, with that title.
 */
const ROOT = join(import.meta.dirname, "..", "..");
const DOC = readFileSync(join(ROOT, "docs", "promises.md"), "utf8");

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return name === "fixtures" ? [] : testFiles(p);
    return name.endsWith(".test.ts") ? [p] : [];
  });
}

/** The titles of it/test/describe calls: the first string argument, whatever its quotes. */
function titles(source: string): string[] {
  const out: string[] = [];
  const call =
    /\b(?:it|test|describe)(?:\.(?:each\([^)]*\)|skipIf\([^)]*\)|runIf\([^)]*\)|only|skip))*\(\s*(["'`])((?:\\.|(?!\1)[^\\])*)\1/g;
  for (let m = call.exec(source); m; m = call.exec(source)) out.push(m[2] ?? "");
  return out;
}

const files = testFiles(join(ROOT, "test"));
const allTitles = files.flatMap((f) =>
  titles(readFileSync(f, "utf8")).map((t) => ({ file: relative(ROOT, f), title: t })),
);

interface Entry {
  promise: number;
  file: string;
  title: string;
}

function entries(): Entry[] {
  const out: Entry[] = [];
  const heads = [...DOC.matchAll(/^### P(\d+)\. /gm)];
  heads.forEach((h, i) => {
    const end = heads[i + 1]?.index ?? DOC.length;
    const section = DOC.slice(h.index, end);
    const proof = /\*\*Proof:\*\* `([^`]+)` "([^"]+)"/.exec(section);
    out.push({ promise: Number(h[1]), file: proof?.[1] ?? "", title: proof?.[2] ?? "" });
  });
  return out;
}

describe("docs/promises.md", () => {
  it("defines P1 to P27, each once and in order, each with a proof", () => {
    const list = entries();
    expect(list.map((e) => e.promise)).toEqual(Array.from({ length: 27 }, (_, i) => i + 1));
    for (const e of list) {
      expect(e.file, `P${e.promise} names no test file`).not.toBe("");
      expect(e.title, `P${e.promise} names no test title`).not.toBe("");
    }
  });

  it("every promise it lists is named by at least one test title in test/", () => {
    const missing = entries()
      .map((e) => e.promise)
      .filter((n) => !allTitles.some((t) => new RegExp(`\\bP${n}\\b`).test(t.title)));
    expect(missing).toEqual([]);
  });

  it("every proof it cites is a test in that file whose title starts so and names that promise", () => {
    for (const e of entries()) {
      const found = allTitles.find((t) => t.file === e.file && t.title.startsWith(e.title));
      expect(found, `P${e.promise}: no test "${e.title}…" in ${e.file}`).toBeDefined();
      expect(found?.title, `P${e.promise}`).toMatch(new RegExp(`\\bP${e.promise}\\b`));
    }
  });

  it("the README's politeness table lists the same promises with the same proofs", () => {
    const readme = readFileSync(join(ROOT, "README.md"), "utf8");
    const rows = [
      ...readme.matchAll(/^\| P(\d+) \| [^|]+ \| \[`([^`]+)`\]\([^)]+\): (.+)… \|$/gm),
    ].map((m) => ({ promise: Number(m[1]), file: m[2], title: m[3] }));
    expect(rows).toEqual(entries());
  });

  // The promises are restated in the project's words: no sentence of 12 words or more is
  // shared with the contract they restate. Skipped (and reported so) where that contract is
  // not beside the checkout: the repository itself never needs it.
  const specFile = join(ROOT, "..", "shared", "SPEC.md");
  it.skipIf(!existsSync(specFile))("does not copy SPEC.md's sentences", () => {
    const spec = readFileSync(specFile, "utf8");
    const words = (s: string) => s.replace(/[`*]/g, "").toLowerCase().split(/\s+/).filter(Boolean);
    const specText = ` ${words(spec).join(" ")} `;
    const doc = words(DOC);
    const shared: string[] = [];
    for (let i = 0; i + 12 <= doc.length; i++) {
      const run = doc.slice(i, i + 12).join(" ");
      if (specText.includes(` ${run} `)) shared.push(run);
    }
    expect(shared).toEqual([]);
  });
});
