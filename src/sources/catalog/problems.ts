/**
 * Catalog problems, each pinned to file:line:column and the field path, so the operator can
 * fix every one in a single pass (all are reported, not just the first).
 */
import type { Document, LineCounter, Node } from "yaml";
import { NorError } from "../../errors.js";
import { isAlias, isMap, isScalar, isSeq } from "../../yaml.js";

export interface CatalogProblem {
  file: string;
  /** 1-based; 0 (with col 0) for the file as a whole (it cannot be read), said with no position. */
  line: number;
  col: number;
  /** Field path as written: `sources[2].extract.items`. */
  path: string;
  message: string;
}

/** NorError("E_CATALOG") that also carries the problems, for tests and the CLI. */
export class CatalogError extends NorError {
  override name = "CatalogError";
  readonly problems: CatalogProblem[];
  constructor(problems: CatalogProblem[]) {
    const lines = problems.map(formatProblem);
    const head = problems.length === 1 ? "1 problem" : `${problems.length} problems`;
    super("E_CATALOG", `catalog has ${head}:\n${lines.join("\n")}`);
    this.problems = problems;
  }
}

export function formatProblem(p: CatalogProblem): string {
  const at = p.line > 0 ? `${p.file}:${p.line}:${p.col}` : p.file;
  return `${at}: ${p.path ? `${p.path}: ` : ""}${p.message}`;
}

export type PathKey = string | number;

/** `text` with its C0 and C1 controls and DEL as `\uXXXX`: one line a terminal shows as is. */
export function escapeControls(text: string): string {
  return text.replace(
    /[\u0000-\u001f\u007f-\u009f]/g,
    (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * `sources[3].url`. A key written with a control character in it (a quoted YAML key can hold
 * one) is said with the character escaped, so a problem stays one line a terminal shows as is.
 */
export function formatPath(path: readonly PathKey[]): string {
  let out = "";
  for (const k of path) {
    if (typeof k === "number") out += `[${k}]`;
    else out += out ? `.${escapeControls(k)}` : escapeControls(k);
  }
  return out;
}

/**
 * Where a parsed document sits in its file. A whole file is at its start; a piece of a file
 * (chunks.ts) holds only list items of one section, so its paths lack the section key and
 * count items from the piece's first, and its lines start further down.
 */
export interface Frame {
  /** The section the document's top-level list is (`["sources"]`), or [] for a whole file. */
  prefix: readonly PathKey[];
  /** Added to every line: the file line of the document's line 1, less one. */
  lineOffset: number;
  /** Added to the list index right after the prefix. */
  indexOffset: number;
}

const WHOLE: Frame = { prefix: [], lineOffset: 0, indexOffset: 0 };

/** One parsed file, or piece of a file: its document, for mapping paths back to where they were written. */
export class Located {
  constructor(
    readonly file: string,
    readonly doc: Document.Parsed,
    readonly lines: LineCounter,
    readonly frame: Frame = WHOLE,
  ) {}

  /** Position of the node at `path` (a path in the file), else of its nearest written ancestor. */
  at(path: readonly PathKey[], keyName?: string): { line: number; col: number } {
    const docPath = this.docPath(path);
    for (let n = docPath.length; n >= 0; n--) {
      const node = this.doc.getIn(docPath.slice(0, n), true) as Node | undefined;
      if (node === undefined || node === null) continue;
      if (keyName !== undefined && n === docPath.length && isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === keyName);
        if (pair && isScalar(pair.key) && pair.key.range) return this.pos(pair.key.range[0]);
      }
      // An alias (`- *a`) is where the entry is written, not the anchor it repeats.
      if ((isScalar(node) || isMap(node) || isSeq(node) || isAlias(node)) && node.range)
        return this.pos(node.range[0]);
    }
    return { line: 1 + this.frame.lineOffset, col: 1 };
  }

  /** The path within this document of a path within the piece's section (local indexes). */
  private docPath(path: readonly PathKey[]): readonly PathKey[] {
    const { prefix } = this.frame;
    if (prefix.length === 0) return path;
    const inside = prefix.every((k, i) => path[i] === k);
    return inside ? path.slice(prefix.length) : [];
  }

  pos(offset: number): { line: number; col: number } {
    const { line, col } = this.lines.linePos(offset);
    return { line: line + this.frame.lineOffset, col };
  }

  /** A problem at `path` (the section key first, list indexes local to this document). */
  problem(path: readonly PathKey[], message: string, keyName?: string): CatalogProblem {
    const { line, col } = this.at(path, keyName);
    const full = keyName !== undefined ? [...path, keyName] : [...path];
    const { prefix, indexOffset } = this.frame;
    const i = prefix.length;
    const local = full[i];
    if (indexOffset !== 0 && typeof local === "number") full[i] = local + indexOffset;
    return { file: this.file, line, col, path: formatPath(full), message };
  }
}
