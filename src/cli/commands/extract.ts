import { pathToFileURL } from "node:url";
import type { Command } from "commander";
import { NorError, UsageError } from "../../errors.js";
import { MAX_BODY_BYTES } from "../../policy/constants.js";
import { isIanaZone } from "../../policy/zone.js";
import { pageRecipe } from "../../sources/catalog/schema.js";
import type { PageRecipe } from "../../sources/catalog/types.js";
import { DEFAULT_ZONE } from "../../sources/dates.js";
import { refusedForNesting } from "../../sources/extract/nesting.js";
import { extractPage } from "../../sources/extract/page.js";
import { recipeSelectorProblems } from "../../sources/extract/selector-check.js";
import { getPlatform, platformNames } from "../../sources/platforms/index.js";
import type { ExtractedRecord, Extraction } from "../../sources/record.js";
import { LineCounter, parseDocument } from "../../yaml.js";
import { readBoundedFile } from "../bounded-file.js";
import { shownStdout, stderr } from "../io.js";

/** A recipe is a few lines of YAML: a file larger than this is no recipe. */
const RECIPE_MOST_BYTES = 1024 * 1024;

interface ExtractOptions {
  recipe?: string;
  platform?: string;
  url?: string;
  timezone?: string;
}

/**
 * `nor extract --recipe RECIPE.yaml FILE [--url URL]` and `nor extract --platform NAME FILE`:
 * try a recipe or preset on a saved page, offline (P6: no request is made), and print the
 * records as a JSON array with a stable key order.
 */
export function register(program: Command): void {
  program
    .command("extract")
    .description("Print the records a recipe or platform preset finds in a saved file (offline)")
    .argument("<file>", "a saved page, feed or API answer")
    .option("--recipe <file>", "page recipe YAML (items, title, link, date, id, kind, next)")
    .option("--platform <name>", "a platform preset")
    .option("--url <url>", "the address the file was saved from (resolves relative links)")
    .option(
      "--timezone <zone>",
      "the government's IANA zone: times the page writes without one are read there",
      DEFAULT_ZONE,
    )
    .action((file: string, opts: ExtractOptions) => {
      runExtract(file, opts);
    });
}

function readRecipe(path: string): PageRecipe {
  const text = readBoundedFile(path, RECIPE_MOST_BYTES, "--recipe").toString("utf8");
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines });
  if (doc.errors.length > 0) throw new NorError("E_CONFIG", `${path}: ${doc.errors[0]!.message}`);
  const raw = doc.toJS() as Record<string, unknown> | null;
  // A recipe file may be the recipe itself or a way with `extract:` (copied from a catalog).
  const inWay = raw !== null && typeof raw === "object" && "extract" in raw;
  const candidate = inWay ? raw["extract"] : raw;
  const r = pageRecipe.safeParse(candidate);
  if (!r.success) {
    const why = r.error.issues
      .map((i) => `${i.path.join(".") || "(recipe)"}: ${i.message}`)
      .join("; ");
    throw new NorError("E_CONFIG", `${path}: not a page recipe: ${why}`);
  }
  // Its selectors, as the catalog's are checked: file:line:column: field: the parser's words.
  const bad = recipeSelectorProblems(candidate).map((p) => {
    const field = inWay ? ["extract", p.field] : [p.field];
    const node = doc.getIn(field, true) as { range?: [number, number, number] } | undefined;
    const at = node?.range ? lines.linePos(node.range[0]) : undefined;
    return `${path}${at ? `:${at.line}:${at.col}` : ""}: ${field.join(".")}: ${p.message}`;
  });
  if (bad.length > 0) throw new NorError("E_CONFIG", bad.join("\n"));
  return r.data as PageRecipe;
}

/** id, title, date, url, kind — always in this order, absent fields left out. */
function ordered(r: ExtractedRecord): Record<string, string> {
  const out: Record<string, string> = { id: r.id, title: r.title };
  if (r.date !== undefined) out["date"] = r.date;
  if (r.url !== undefined) out["url"] = r.url;
  if (r.kind !== undefined) out["kind"] = r.kind;
  return out;
}

function runExtract(file: string, opts: ExtractOptions): void {
  if ((opts.recipe === undefined) === (opts.platform === undefined)) {
    throw new UsageError("extract: give exactly one of --recipe FILE or --platform NAME");
  }
  if (opts.url !== undefined && !/^https?:\/\//i.test(opts.url)) {
    throw new UsageError(`--url: "${opts.url}" is not an http(s) URL`);
  }
  const zone = opts.timezone ?? DEFAULT_ZONE;
  if (!isIanaZone(zone))
    throw new UsageError(`--timezone: "${zone}" is not an IANA time zone (e.g. America/Chicago)`);
  // A saved page, read as the checker reads an answer: at most 20 MiB (P14).
  const body = new Uint8Array(readBoundedFile(file, MAX_BODY_BYTES, "extract"));
  // Without --url, links resolve against the file itself; they are printed, never fetched.
  const url = opts.url ?? pathToFileURL(file).href;
  if (opts.url === undefined) stderr().write("note: no --url given: relative links are left out\n");
  let x: Extraction;
  if (opts.recipe !== undefined) {
    x = extractPage(body, url, readRecipe(opts.recipe), { zone });
  } else {
    const p = getPlatform(opts.platform!);
    if (!p)
      throw new UsageError(
        `--platform: unknown "${opts.platform}" (known: ${platformNames.join(", ")})`,
      );
    try {
      x = p.extract(body, url, { zone });
    } catch (err) {
      // A page nested too deeply to read in good time: the note the night would keep (P14).
      x = refusedForNesting(err);
    }
  }
  if (x.unreadable !== undefined) {
    // P6: the night would store this as extract-error; say so, and print no records.
    stderr().write(`cannot read this page: ${x.unreadable}\n`);
    process.exitCode = 1;
    return;
  }
  shownStdout().write(`${JSON.stringify(x.records.map(ordered), null, 2)}\n`);
  if (x.note) stderr().write(`note: ${x.note}\n`);
  if (x.next) stderr().write(`next: ${x.next}\n`);
}
