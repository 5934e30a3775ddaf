/**
 * Reads catalog YAML files into the validated Catalog. Every problem in every file — YAML
 * syntax, schema, credentials (P3), duplicate ids, unknown governments — is collected and
 * thrown together as one CatalogError (E_CATALOG) naming file:line:column and field path.
 *
 * Files are read in pieces of a few hundred list items (chunks.ts), each parsed and
 * validated on its own, so the memory a catalog takes is that of its validated entries (or,
 * for `nor catalog check`, stats and import, of one piece), never that of a YAML tree of the
 * whole file. Ids and references are checked across pieces and files as they pass. A file
 * not in the plain block shape, or a piece the YAML parser finds fault with, is read whole
 * instead, so the problems and their wording are those of a whole-file read.
 */
import { statSync } from "node:fs";
import type { Alias, Document } from "yaml";
import type { z } from "zod";
import { readSite } from "../../policy/site.js";
import {
  CST,
  isMap,
  isPair,
  isScalar,
  isSeq,
  LineCounter,
  Parser,
  parseDocument,
  visit,
} from "../../yaml.js";
import { dateFormatProblem, dateTemplateProblem } from "../extract/form-dates.js";
import { formSelectorProblems, recipeSelectorProblems } from "../extract/selector-check.js";
import { presetAccess, presetNames } from "../platforms/names.js";
import {
  blockChunks,
  fileLines,
  NotBlockShaped,
  SECTIONS,
  type Section,
  textLines,
} from "./chunks.js";
import { findCredentials } from "./credentials.js";
import {
  CatalogError,
  type CatalogProblem,
  escapeControls,
  type Frame,
  Located,
  type PathKey,
} from "./problems.js";
import { CatalogBytesError, statsProblem } from "./read.js";
import { catalogFile, inferAccess, MAX_URL_LENGTH, urlSpellingProblem } from "./schema.js";
import type { Catalog, Government, Lead, Source } from "./types.js";
import { urlRewriteProblem } from "./url-written.js";

/** List items per piece: large enough that parsing stays cheap, small enough to stay small. */
export const ITEMS_PER_PIECE = 50;

/** A catalog file by its name, or (parseCatalog, tests) its text under a name. */
export interface CatalogInput {
  file: string;
  text?: string;
}

/** One piece's entries as validated, before their ways get their access and zone. */
export type RawPart = z.output<typeof catalogFile>;

/** The entries of one piece (or whole file), complete: every way with its access and zone. */
export interface CatalogPart {
  governments: Government[];
  sources: Source[];
  leads: Lead[];
}

interface Piece {
  loc: Located;
  raw: unknown;
  data: RawPart | undefined;
  problems: CatalogProblem[];
}

const WHOLE: Frame = { prefix: [], lineOffset: 0, indexOffset: 0 };

/** A document with no content: none at all, a null scalar (`---`, `~`, `null`), or `{}`. */
function nothingIn(contents: unknown): boolean {
  if (contents === null || contents === undefined) return true;
  if (isMap(contents)) return contents.items.length === 0;
  return isScalar(contents) && (contents.value === null || contents.value === undefined);
}

/** Where the first quoted value that is never closed opens (its offset in `text`), if any. */
function unclosedQuote(text: string): number | undefined {
  let at: number | undefined;
  for (const token of new Parser().parse(text)) {
    if (token.type !== "document") continue;
    CST.visit(token, (item) => {
      for (const node of [item.key, item.value]) {
        if (at !== undefined || node === null || node === undefined) continue;
        if (node.type !== "double-quoted-scalar" && node.type !== "single-quoted-scalar") continue;
        const q = node.source[0] ?? "";
        const body = node.source.slice(1);
        // Closed: ends with its quote, not one escaped by a backslash (double) or doubled (single).
        const closed =
          node.source.length >= 2 &&
          body.endsWith(q) &&
          (q === "'" || !/(^|[^\\])(\\\\)*\\"$/.test(body));
        if (!closed) at = node.offset;
      }
      return at !== undefined ? CST.visit.BREAK : undefined;
    });
    if (at !== undefined) break;
  }
  return at;
}

function parsePiece(text: string, file: string, frame: Frame): Piece {
  const lines = new LineCounter();
  // logLevel "error": yaml prints nothing itself (a key that is a list, made a string by toJS,
  // would be a Node warning on stderr, amid a night's JSON lines); the schema says it.
  const doc = parseDocument(text, {
    lineCounter: lines,
    prettyErrors: false,
    uniqueKeys: true,
    logLevel: "error",
  });
  const loc = new Located(file, doc, lines, frame);
  const section = frame.prefix[0] as Section | undefined;
  if (section !== undefined) {
    // A piece the parser finds fault with is read again as part of the whole file.
    const contents = doc.contents as { items?: unknown } | null;
    if (doc.errors.length > 0 || doc.warnings.length > 0 || !Array.isArray(contents?.items))
      throw new NotBlockShaped("piece does not parse on its own");
  }
  const problems: CatalogProblem[] = [];
  for (const e of [...doc.errors, ...doc.warnings]) {
    // A quote never closed is found where the text ends: said where it opens.
    const opened =
      e.code === "MISSING_CHAR" && /quote/.test(e.message) ? unclosedQuote(text) : undefined;
    const { line, col } = loc.pos(opened ?? e.pos[0]);
    // A second document (`---` again) is said in the catalog's words, not the library's.
    const said =
      e.code === "MULTIPLE_DOCS"
        ? "a second YAML document starts here (a second `---`): a catalog file is one document; put its entries in the first, or in a file of their own"
        : (e.message.split("\n")[0] ?? "");
    const message = `YAML: ${said}${opened !== undefined ? " (the quoted value opens here)" : ""}`;
    problems.push({ file, line, col, path: "", message });
  }
  if (doc.errors.length > 0) return { loc, raw: undefined, data: undefined, problems };
  if (section === undefined && nothingIn(doc.contents)) {
    // Nothing at all (an empty file, only comments or a document marker, a bare null): a file
    // cut short or the wrong one, never a catalog. One that means to list nothing says so
    // (`sources: []`).
    problems.push({
      file,
      line: 1,
      col: 1,
      path: "",
      message:
        "the file lists nothing: a catalog lists governments and sources (write `sources: []` for a file that means to list none)",
    });
    return { loc, raw: undefined, data: undefined, problems };
  }
  const secrets = findCredentials(loc);
  problems.push(...secrets, ...controlCharacters(doc, loc));
  let js: unknown;
  try {
    js = doc.toJS() ?? (section === undefined ? {} : []);
  } catch (e) {
    // An alias without its anchor: in a piece, the anchor may be in another piece.
    if (section !== undefined) throw new NotBlockShaped("alias");
    const message = `YAML: ${e instanceof Error ? e.message : String(e)}`;
    const { line, col } = unresolvedAlias(doc, loc) ??
      aliasThatThrew(doc, loc) ?? { line: 1, col: 1 };
    problems.push({ file, line, col, path: "", message });
    return { loc, raw: undefined, data: undefined, problems };
  }
  const raw: unknown = section === undefined ? js : { [section]: js };
  const result = catalogFile.safeParse(raw);
  if (!result.success) {
    // A refused credential key is also an unknown key: say it once, the P3 way.
    const said = new Set(secrets.map((p) => p.path));
    const issues = result.error.issues.flatMap((i) => fromIssue(loc, raw, i));
    problems.push(...issues.filter((p) => !said.has(p.path)));
  }
  problems.push(
    ...platformProblems(loc, raw),
    ...hostProblems(loc, raw),
    ...selectorProblems(loc, raw),
    ...formProblems(loc, raw),
  );
  return { loc, raw, data: result.success ? result.data : undefined, problems };
}

/**
 * C0 controls other than tab, line feed and carriage return, DEL and the C1 controls: YAML's
 * double-quoted escapes (`"\0"`, `"\x07"`, `"\u0085"`) let a catalog write them, and none
 * belongs in a name, an address or a note: the store would keep a NUL as U+FFFD
 * (src/store/no-nul.ts) and a page would show the rest as nothing or as boxes.
 */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/** Text quoted as JSON writes it, with DEL and the C1 controls escaped too: one printable line. */
function printable(text: string): string {
  return escapeControls(JSON.stringify(text));
}

/** Every string scalar (key or value) holding a control character, where it is written. */
function controlCharacters(doc: Document.Parsed, loc: Located): CatalogProblem[] {
  const found: CatalogProblem[] = [];
  visit(doc, {
    Scalar(_key, node, ancestors) {
      if (typeof node.value !== "string") return;
      const m = CONTROL.exec(node.value);
      if (m === null) return;
      // The field path, from the ancestors: a list's index, a map entry's key.
      const path: PathKey[] = [...loc.frame.prefix];
      let keyName: string | undefined;
      for (let i = 0; i < ancestors.length; i++) {
        const parent = ancestors[i];
        const child = ancestors[i + 1] ?? node;
        if (isSeq(parent)) path.push(parent.items.indexOf(child as never));
        else if (isPair(parent) && isScalar(parent.key)) {
          if (child === parent.value) path.push(String(parent.key.value));
          else keyName = String(parent.key.value);
        }
      }
      // A CSV download's field separator may be any one character (a unit separator too).
      if (keyName === undefined && path.at(-1) === "delimiter") return;
      const code = (m[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0");
      found.push(
        loc.problem(
          path,
          `a control character (U+${code}) in ${printable(node.value.slice(0, 60))}: catalog text must be printable`,
          keyName,
        ),
      );
    },
  });
  return found;
}

/** Where the first alias without an anchor before it is written. */
function unresolvedAlias(
  doc: Document.Parsed,
  loc: Located,
): { line: number; col: number } | undefined {
  let at: { line: number; col: number } | undefined;
  visit(doc, {
    Alias(_key, node) {
      if (node.resolve(doc) !== undefined || !node.range) return undefined;
      at = loc.pos(node.range[0]);
      return visit.BREAK;
    },
  });
  return at;
}

/**
 * The alias whose resolution threw (yaml's "Excessive alias count", a billion laughs): the
 * document made into values again, each alias watched as it is resolved. The innermost alias
 * being resolved when the error passes is the one yaml stopped at.
 */
function aliasThatThrew(
  doc: Document.Parsed,
  loc: Located,
): { line: number; col: number } | undefined {
  const aliases: Alias[] = [];
  visit(doc, {
    Alias(_key, node) {
      aliases.push(node);
    },
  });
  let threw: Alias | undefined;
  for (const alias of aliases) {
    const resolve = alias.resolve;
    alias.resolve = function (this: Alias, ...args: Parameters<Alias["resolve"]>) {
      try {
        return resolve.apply(this, args);
      } catch (e) {
        threw ??= alias;
        throw e;
      }
    };
  }
  try {
    doc.toJS();
  } catch {
    // The error said already; only where it is was wanted.
  } finally {
    for (const alias of aliases) delete (alias as { resolve?: unknown }).resolve;
  }
  return threw?.range ? loc.pos(threw.range[0]) : undefined;
}

/**
 * Completes validated entries: each way gets its access where the catalog left it out
 * (inferAccess, P4) and its government's `timezone` (when the government names one) so its
 * readers read the page's zone-less times there. `zones` spans every file: a source may name
 * a government from another file (CatalogIndex.zones). Zod leaves absent optional keys
 * absent, so the result fits the Catalog's exact types.
 */
export function completePart(data: RawPart, zones: ReadonlyMap<string, string>): CatalogPart {
  const platformAccess = (name: string) => presetAccess(name);
  return {
    governments: data.governments,
    sources: data.sources.map((s) => {
      const zone = zones.get(s.government);
      const fill = <T extends Parameters<typeof inferAccess>[0]>(w: T) => ({
        ...w,
        access: w.access ?? inferAccess(w, platformAccess),
        ...(zone !== undefined ? { timezone: zone } : {}),
      });
      return { ...fill(s), alternates: s.alternates.map(fill) };
    }),
    leads: data.leads,
  } as unknown as CatalogPart;
}

/** Whether the key at `path` is absent from the parsed YAML (its parent has no such key). */
function isAbsent(raw: unknown, path: readonly PathKey[]): boolean {
  let node: unknown = raw;
  for (const k of path.slice(0, -1)) {
    if (node === null || typeof node !== "object") return false;
    node = (node as Record<PathKey, unknown>)[k];
  }
  const key = path.at(-1);
  return (
    key !== undefined &&
    node !== null &&
    typeof node === "object" &&
    !Array.isArray(node) &&
    !Object.hasOwn(node, key)
  );
}

/** What a file whose top level is no mapping is told. */
function topLevel(raw: unknown): string {
  const is = Array.isArray(raw)
    ? "a list"
    : typeof raw === "string"
      ? "a text"
      : typeof raw === "number" || typeof raw === "boolean"
        ? `a ${typeof raw}`
        : "not a mapping";
  const sections = SECTIONS.map((s) => `\`${s}:\``).join(", ");
  return `the file's top level is ${is}; expected a mapping of the sections ${sections}, each a list of entries (a list of sources goes under \`sources:\`; see docs/catalog.md)`;
}

function fromIssue(loc: Located, raw: unknown, issue: z.core.$ZodIssue): CatalogProblem[] {
  const path = issue.path.filter((k): k is PathKey => typeof k !== "symbol");
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((k) =>
      loc.problem(path, "unknown key (check the spelling; see docs/catalog.md)", k),
    );
  }
  // A required key left out is "missing", whatever the field's type (zod words an absent
  // enum as "Invalid option", an absent union as "Invalid input").
  if (isAbsent(raw, path)) {
    const key = path.at(-1);
    const parent = path.slice(0, -1);
    const p = loc.problem(parent, `missing required field \`${String(key)}\``);
    const suffix = typeof key === "number" ? `[${key}]` : `.${String(key)}`;
    return [{ ...p, path: p.path ? `${p.path}${suffix}` : String(key) }];
  }
  // The file's top level is no mapping (a list of entries, a lone value): say what it is and
  // what a catalog's top level is, not zod's "expected object".
  if (path.length === 0 && issue.code === "invalid_type") return [loc.problem([], topLevel(raw))];
  if (issue.code === "invalid_value" && issue.values.length > 1) {
    return [loc.problem(path, `must be one of ${issue.values.map((v) => String(v)).join(", ")}`)];
  }
  return [loc.problem(path, issue.message)];
}

type RawItem = {
  extract?: unknown;
  form?: unknown;
  id?: unknown;
  government?: unknown;
  platform?: unknown;
  alternates?: unknown;
  url?: unknown;
  website?: unknown;
};

function rawList(raw: unknown, key: Section): RawItem[] {
  const v = (raw as Record<string, unknown> | null)?.[key];
  return Array.isArray(v) ? (v as RawItem[]) : [];
}

/** Platform names must name a preset (the night treats an unknown one as broken config). */
function platformProblems(loc: Located, raw: unknown): CatalogProblem[] {
  const out: CatalogProblem[] = [];
  rawList(raw, "sources").forEach((s, i) => {
    const ways: [RawItem, PathKey[]][] = [[s, ["sources", i]]];
    if (Array.isArray(s?.alternates)) {
      (s.alternates as RawItem[]).forEach((w, j) => {
        ways.push([w, ["sources", i, "alternates", j]]);
      });
    }
    for (const [w, path] of ways) {
      if (typeof w?.platform === "string" && presetAccess(w.platform) === undefined) {
        const known = presetNames.join(", ");
        out.push(
          loc.problem([...path, "platform"], `unknown platform "${w.platform}" (known: ${known})`),
        );
      }
    }
  });
  return out;
}

/**
 * The hosts of the addresses a night requests (a way's `url`) or shows (a government's
 * `website`) must be names DNS could resolve, by the rule `nor log --site` reads a host with
 * (policy/site.ts): the URL parser keeps `x..gov` and `-x.gov`, and a night would take each
 * for a site of its own. Checked here, not in the schema, as the rule loads the Public Suffix
 * List, which the schema's other users (the web server, the night's readers) do without.
 */
function hostProblems(loc: Located, raw: unknown): CatalogProblem[] {
  const out: CatalogProblem[] = [];
  const check = (value: unknown, path: PathKey[]) => {
    // Not a URL, not http(s) or too long: the schema says so.
    if (typeof value !== "string" || value.length > MAX_URL_LENGTH || !URL.canParse(value)) return;
    const u = new URL(value);
    if (u.protocol !== "http:" && u.protocol !== "https:") return;
    // Not written as it is fetched (a backslash, a scheme without its //, a space, a port of
    // 0): the schema says so.
    if (
      urlSpellingProblem(value, u.href) !== undefined ||
      urlRewriteProblem(value, u) !== undefined
    )
      return;
    // Its scheme and authority as written, read as an operator's site is (readSite): also
    // refused, an IPv4 address the URL parser reads otherwise than it is written (`127.0.0.054`
    // is 127.0.0.44 to it, 127.0.0.54 to a person: the night would ask the one while every page
    // showed the other), and a name it maps to another (full-width `ｋｅｎｔ.gov` is kent.gov).
    const authority = /^https?:\/\/[^/?#]*/i.exec(value)?.[0] ?? "";
    const read = readSite(`${authority}/`);
    if (!read.ok) out.push(loc.problem(path, `host ${read.reason}`));
  };
  rawList(raw, "governments").forEach((g, i) => {
    check(g?.website, ["governments", i, "website"]);
  });
  eachWay(raw, (w, path) => check(w?.url, [...path, "url"]));
  return out;
}

/** Each way in of each source (the source itself, then its alternates), with its path. */
function eachWay(raw: unknown, fn: (w: RawItem | undefined, path: PathKey[]) => void): void {
  rawList(raw, "sources").forEach((s, i) => {
    fn(s, ["sources", i]);
    if (Array.isArray(s?.alternates)) {
      (s.alternates as RawItem[]).forEach((w, j) => {
        fn(w, ["sources", i, "alternates", j]);
      });
    }
  });
}

/**
 * Every selector a way gives (its page recipe's fields, its form's `selector`) must be one the
 * reader can use: parsed and compiled as cheerio does (extract/selector-check.ts), each
 * distinct selector once a process, so a bad one is this catalog's problem at its field, not
 * every night's `extract-error` after robots.txt and the page were fetched.
 */
function selectorProblems(loc: Located, raw: unknown): CatalogProblem[] {
  const out: CatalogProblem[] = [];
  const check = (w: RawItem | undefined, path: PathKey[]) => {
    for (const p of recipeSelectorProblems(w?.extract))
      out.push(loc.problem([...path, "extract", p.field], p.message));
    for (const p of formSelectorProblems(w?.form))
      out.push(loc.problem([...path, "form", p.field], p.message));
  };
  eachWay(raw, check);
  return out;
}

/**
 * A search form's date templates and format (P5) must be ones the form filler
 * (extract/form-dates.ts) fills, checked by its own reading of them: a `{tody}` or a
 * `{today-3x}` in a field, or a `dateFormat` of `QQ/YY`, would otherwise be sent to the site as
 * written, every night. A field's value without a template-like `{…}` is sent as written.
 */
function formProblems(loc: Located, raw: unknown): CatalogProblem[] {
  const out: CatalogProblem[] = [];
  const check = (w: RawItem | undefined, path: PathKey[]) => {
    const form = w?.form as { fields?: unknown; dateFormat?: unknown } | null | undefined;
    if (form === null || typeof form !== "object") return;
    const { fields, dateFormat } = form;
    if (fields !== null && typeof fields === "object" && !Array.isArray(fields)) {
      for (const [name, value] of Object.entries(fields)) {
        const problem = typeof value === "string" ? dateTemplateProblem(value) : undefined;
        if (problem !== undefined)
          out.push(loc.problem([...path, "form", "fields", name], problem));
      }
    }
    const problem = typeof dateFormat === "string" ? dateFormatProblem(dateFormat) : undefined;
    if (problem !== undefined) out.push(loc.problem([...path, "form", "dateFormat"], problem));
  };
  eachWay(raw, check);
  return out;
}

/**
 * Checks across pieces and files, as they pass: ids unique per kind (naming the first
 * place), sources and leads naming a government some file defines (checked at the end, as
 * a government may come in a later file). Keeps ids and places, never entries.
 */
class CrossCheck {
  readonly governments = new Map<string, string>();
  readonly sources = new Map<string, string>();
  readonly zones = new Map<string, string>();
  leads = 0;
  private readonly pending: { government: string; fileIndex: number; problem: CatalogProblem }[] =
    [];
  private readonly problems = new Map<number, CatalogProblem[]>();
  /** A file could not be read to its end: what it names past there is not known. */
  private partial = false;

  private of(fileIndex: number): CatalogProblem[] {
    const list = this.problems.get(fileIndex) ?? [];
    this.problems.set(fileIndex, list);
    return list;
  }

  add(fileIndex: number, piece: Piece): void {
    const out = this.of(fileIndex);
    out.push(...piece.problems);
    const { loc, raw } = piece;
    rawList(raw, "governments").forEach((g, i) => {
      if (typeof g?.id !== "string") return;
      const zone = (g as { timezone?: unknown }).timezone;
      if (typeof zone === "string" && !this.governments.has(g.id)) this.zones.set(g.id, zone);
      const first = this.governments.get(g.id);
      const path = ["governments", i, "id"];
      if (first)
        out.push(loc.problem(path, `duplicate government id "${g.id}" (first at ${first})`));
      else this.governments.set(g.id, where(loc, path));
    });
    const refer = (list: Section, x: RawItem, i: number) => {
      if (typeof x?.government !== "string" || this.governments.has(x.government)) return;
      const problem = loc.problem([list, i, "government"], `unknown government "${x.government}"`);
      this.pending.push({ government: x.government, fileIndex, problem });
    };
    rawList(raw, "sources").forEach((s, i) => {
      if (typeof s?.id === "string") {
        const first = this.sources.get(s.id);
        const path = ["sources", i, "id"];
        if (first) out.push(loc.problem(path, `duplicate source id "${s.id}" (first at ${first})`));
        else this.sources.set(s.id, where(loc, path));
      }
      refer("sources", s, i);
    });
    rawList(raw, "leads").forEach((l, i) => {
      this.leads++;
      refer("leads", l, i);
    });
  }

  /**
   * A file that could not be read (not UTF-8, a NUL, a read error), said at its place; the
   * other files are still read and checked, so every problem that can be known is said at once.
   */
  unreadable(fileIndex: number, problems: readonly CatalogProblem[]): void {
    this.of(fileIndex).push(...problems);
    this.partial = true;
  }

  /**
   * Every problem, file by file in the order given, each file's by line and column. A
   * government named but not found is a problem only when every file was read to its end (else
   * it may be in the part not read, and the file's own problem is said instead).
   */
  finish(): CatalogProblem[] {
    for (const { government, fileIndex, problem } of this.pending) {
      if (!this.governments.has(government) && !this.partial) this.of(fileIndex).push(problem);
    }
    return [...this.problems.entries()]
      .sort(([a], [b]) => a - b)
      .flatMap(([, list]) => list.sort((a, b) => a.line - b.line || a.col - b.col));
  }
}

function where(loc: Located, path: PathKey[]): string {
  const { line, col } = loc.at(path);
  return `${loc.file}:${line}:${col}`;
}

function cannotRead(file: string, cause: unknown): CatalogError {
  return new CatalogError([unreadable(file, cause)]);
}

/**
 * A file that cannot be read: said of the file as a whole, with no line or column (line 0),
 * or at its first byte that is not a catalog's text (read.ts).
 */
function unreadable(file: string, cause: unknown): CatalogProblem {
  if (cause instanceof CatalogBytesError) {
    return { file, line: cause.line, col: cause.col, path: "", message: cause.message };
  }
  const code = (cause as NodeJS.ErrnoException).code ?? String(cause);
  const message =
    code === "ENOENT"
      ? "no such file"
      : code === "EISDIR"
        ? "is a directory, not a catalog file"
        : code === "EACCES" || code === "EPERM"
          ? `cannot be read: permission denied (${code})`
          : `cannot read the file (${code})`;
  return { file, line: 0, col: 0, path: "", message };
}

/**
 * Every named file that is not there, is a directory, a device or FIFO (which would be read
 * forever), or is too large to be a catalog, all said at once, before any is read.
 */
function missingFiles(inputs: readonly CatalogInput[]): CatalogProblem[] {
  const out: CatalogProblem[] = [];
  // One file named twice (the same path, or a link to it) would list each of its ids twice,
  // said as duplicates of themselves: said as what it is instead.
  const seen = new Map<string, string>();
  for (const { file, text } of inputs) {
    if (text !== undefined) continue;
    let key: string;
    try {
      const st = statSync(file);
      key = `${st.dev}:${st.ino}`;
    } catch {
      continue; // said below
    }
    const first = seen.get(key);
    if (first === undefined) seen.set(key, file);
    else
      out.push({
        file,
        line: 0,
        col: 0,
        path: "",
        message: `the same file as ${first}, named twice: name each catalog file once`,
      });
  }
  for (const { file, text } of inputs) {
    if (text !== undefined) continue;
    try {
      const s = statSync(file);
      const problem = s.isDirectory() ? { code: "EISDIR" } : statsProblem(s);
      if (problem) out.push(unreadable(file, problem));
    } catch (cause) {
      out.push(unreadable(file, cause));
    }
  }
  return out;
}

interface ReadOptions {
  /** Read the file whole (it is not in the plain block shape). */
  whole: boolean;
  perPiece: number;
  /** Only these sections are parsed (the others are skipped by their lines). */
  sections?: ReadonlySet<Section>;
}

/** The lines, with a failure to read them said the catalog's way. */
function* guarded(file: string, lines: Iterator<string>): Generator<string> {
  try {
    for (;;) {
      let r: IteratorResult<string>;
      try {
        r = lines.next();
      } catch (cause) {
        throw cannotRead(file, cause);
      }
      if (r.done) return;
      yield r.value;
    }
  } finally {
    // Left before the end (a file read whole instead): the file is closed now, not at GC.
    lines.return?.();
  }
}

/** The pieces of one file, parsed and validated each on its own. Throws NotBlockShaped. */
function* pieces(input: CatalogInput, opts: ReadOptions): Generator<Piece> {
  const { file } = input;
  if (opts.whole) {
    // Read as the pieces are (fileLines), so its bytes are checked the same way.
    const text = input.text ?? [...guarded(file, fileLines(file))].join("");
    yield parsePiece(text, file, WHOLE);
    return;
  }
  const lines = guarded(file, input.text === undefined ? fileLines(file) : textLines(input.text));
  let any = false;
  for (const c of blockChunks(lines, opts.perPiece)) {
    any = true;
    if (opts.sections && !opts.sections.has(c.section)) continue;
    const frame = { prefix: [c.section], lineOffset: c.firstLine - 1, indexOffset: c.firstIndex };
    yield parsePiece(c.text, file, frame);
  }
  // No piece at all (an empty file, only comments): read whole, which says what it is.
  if (!any && opts.sections === undefined) throw new NotBlockShaped("no pieces");
}

/** What a successful check knows: every id and where it is, and which files are read whole. */
export interface CatalogIndex {
  inputs: readonly CatalogInput[];
  governments: ReadonlyMap<string, string>;
  sources: ReadonlyMap<string, string>;
  leads: number;
  /** Each government that names a `timezone`: its zone, for its sources' ways. */
  zones: ReadonlyMap<string, string>;
  /** Indexes into `inputs` of the files read whole. */
  whole: ReadonlySet<number>;
  perPiece: number;
}

export interface CheckOptions {
  /** List items per piece (tests cut finer to cross more piece boundaries). */
  perPiece?: number;
  /** Read every file whole, as one YAML document (tests compare the two reads). */
  whole?: boolean;
}

/**
 * Validates the files together, piece by piece, handing each valid piece's entries (as
 * validated: complete them with `completePart` and the index's zones once the check is done)
 * to `sink`, made afresh if a file has to be read again whole. Throws CatalogError with every
 * problem.
 */
export function checkCatalog<S>(
  inputs: readonly CatalogInput[],
  makeSink: () => S & { part?(data: RawPart, file: string): void },
  opts: CheckOptions = {},
): { index: CatalogIndex; sink: S } {
  const missing = missingFiles(inputs);
  if (missing.length > 0) throw new CatalogError(missing);
  const perPiece = opts.perPiece ?? ITEMS_PER_PIECE;
  const whole = new Set<number>(opts.whole ? inputs.keys() : []);
  for (;;) {
    const sink = makeSink();
    const check = new CrossCheck();
    let restart = false;
    for (const [i, input] of inputs.entries()) {
      try {
        for (const piece of pieces(input, { whole: whole.has(i), perPiece })) {
          check.add(i, piece);
          if (piece.data && piece.problems.length === 0) sink.part?.(piece.data, input.file);
        }
      } catch (e) {
        // A file that cannot be read hides no other file's problems (docs/catalog.md).
        if (e instanceof CatalogError) {
          check.unreadable(i, e.problems);
          continue;
        }
        if (!(e instanceof NotBlockShaped)) throw e;
        whole.add(i);
        restart = true;
        break;
      }
    }
    if (restart) continue;
    const problems = check.finish();
    if (problems.length > 0) throw new CatalogError(problems);
    const index: CatalogIndex = {
      inputs,
      governments: check.governments,
      sources: check.sources,
      leads: check.leads,
      zones: check.zones,
      whole,
      perPiece,
    };
    return { index, sink };
  }
}

/** Which file each government and source came from (kept by `nor catalog import`). */
export interface CatalogOrigins {
  governments: Map<string, string>;
  sources: Map<string, string>;
}

function collect(inputs: CatalogInput[]): { catalog: Catalog; origins: CatalogOrigins } {
  const { sink, index } = checkCatalog(inputs, () => {
    const parts: [RawPart, string][] = [];
    return { parts, part: (data: RawPart, file: string) => void parts.push([data, file]) };
  });
  // Completed once every government's zone is known (a source may come before its
  // government, in another file), a piece at a time.
  const catalog: Catalog = { governments: [], sources: [], leads: [] };
  const origins: CatalogOrigins = { governments: new Map(), sources: new Map() };
  // Each raw piece is let go as it is completed, so the two are never both held whole.
  for (let next = sink.parts.shift(); next !== undefined; next = sink.parts.shift()) {
    const [data, file] = next;
    const p = completePart(data, index.zones);
    for (const g of p.governments) {
      catalog.governments.push(g);
      origins.governments.set(g.id, file);
    }
    for (const s of p.sources) {
      catalog.sources.push(s);
      origins.sources.set(s.id, file);
    }
    catalog.leads.push(...p.leads);
  }
  return { catalog, origins };
}

/** Parses one catalog file's text; `file` names it in messages. Throws CatalogError. */
export function parseCatalog(text: string, file: string): Catalog {
  return collect([{ file, text }]).catalog;
}

/** Reads and validates catalog files together (ids and references span the files). */
export function loadCatalog(files: string[]): Catalog {
  return loadCatalogWithFiles(files).catalog;
}

export function loadCatalogWithFiles(files: string[]): {
  catalog: Catalog;
  origins: CatalogOrigins;
} {
  return collect(files.map((file) => ({ file })));
}

export { SECTIONS, type Section };
