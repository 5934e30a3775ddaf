/**
 * Catalog problems, each pinned to file:line:column and the field path, so the operator can
 * fix every one in a single pass (all are reported, not just the first).
 */
import { type Document, isMap, isScalar, isSeq, type LineCounter, type Node } from "yaml";
import { NorError } from "../../errors.js";

export interface CatalogProblem {
  file: string;
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
  return `${p.file}:${p.line}:${p.col}: ${p.path ? `${p.path}: ` : ""}${p.message}`;
}

export type PathKey = string | number;

export function formatPath(path: readonly PathKey[]): string {
  let out = "";
  for (const k of path) out += typeof k === "number" ? `[${k}]` : out ? `.${k}` : k;
  return out;
}

/** One parsed file: its document, for mapping paths back to where they were written. */
export class Located {
  constructor(
    readonly file: string,
    readonly doc: Document.Parsed,
    readonly lines: LineCounter,
  ) {}

  /** Position of the node at `path`, else of its nearest written ancestor. */
  at(path: readonly PathKey[], keyName?: string): { line: number; col: number } {
    for (let n = path.length; n >= 0; n--) {
      const node = this.doc.getIn(path.slice(0, n), true) as Node | undefined;
      if (node === undefined || node === null) continue;
      if (keyName !== undefined && n === path.length && isMap(node)) {
        const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === keyName);
        if (pair && isScalar(pair.key) && pair.key.range) return this.pos(pair.key.range[0]);
      }
      if ((isScalar(node) || isMap(node) || isSeq(node)) && node.range)
        return this.pos(node.range[0]);
    }
    return { line: 1, col: 1 };
  }

  pos(offset: number): { line: number; col: number } {
    return this.lines.linePos(offset);
  }

  problem(path: readonly PathKey[], message: string, keyName?: string): CatalogProblem {
    const { line, col } = this.at(path, keyName);
    const full = keyName !== undefined ? [...path, keyName] : path;
    return { file: this.file, line, col, path: formatPath(full), message };
  }
}
