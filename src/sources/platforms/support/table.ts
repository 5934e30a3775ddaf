/**
 * Tables and lists read by what they say about themselves, never by where things happen to
 * be (P6: the records come from the list itself, so it must be the right list, read the
 * right way). Columns are found by their header text, so a government whose table puts its
 * columns in another order reads the same; a cell is the one under its column (colspans
 * counted); a table's rows are its own, not a nested table's; and a group name is the section
 * heading the list sits under.
 */
import type { Cheerio, CheerioAPI } from "cheerio";
import type { AnyNode, Element } from "domhandler";
import { cleanText } from "../../record-id.js";

/** The table's own rows (through thead/tbody/tfoot), not those of tables nested in its cells. */
export function ownRows($: CheerioAPI, table: Element): Element[] {
  return $(table)
    .children("tr, thead, tbody, tfoot")
    .toArray()
    .flatMap((c) => (c.tagName === "tr" ? [c] : $(c).children("tr").toArray()));
}

function span(el: Element): number {
  const n = Number(el.attribs["colspan"] ?? 1);
  return Number.isInteger(n) && n > 0 ? Math.min(n, 100) : 1;
}

/** Each column's header text, lower-cased and cleaned; undefined for a table without one. */
export function headerNames($: CheerioAPI, table: Element): string[] | undefined {
  const rows = ownRows($, table);
  // The header row: the last row of <thead>, else the first own row made of <th> cells only.
  const head =
    $(table).children("thead").children("tr").last().get(0) ??
    rows.find((tr) => {
      const cells = $(tr).children("th, td");
      return cells.length > 0 && cells.filter("th").length === cells.length;
    });
  if (!head) return undefined;
  const names: string[] = [];
  for (const th of $(head).children("th, td").toArray()) {
    // "Meeting Date:" names the same column as "Meeting Date".
    const text = cleanText($(th).text()).toLowerCase().replace(/\s*:$/, "");
    for (let i = 0; i < span(th); i++) names.push(text);
  }
  return names.some((n) => n !== "") ? names : undefined;
}

/**
 * The column whose header matches, trying the patterns in order (the most exact first); a
 * pattern that matches two columns cannot tell which is meant and is skipped.
 */
export function findColumn(names: readonly string[], ...patterns: RegExp[]): number | undefined {
  for (const p of patterns) {
    const hits = names.flatMap((n, i) => (p.test(n) ? [i] : []));
    // A colspan header repeats its name: one header, several columns, the first is its start.
    const first = hits[0];
    if (first !== undefined && hits.every((h, k) => h === first + k && names[h] === names[first]))
      return first;
  }
  return undefined;
}

/** The cell of `tr` under column `index` (colspans counted), or an empty selection. */
export function cellAt($: CheerioAPI, tr: Element, index: number | undefined): Cheerio<Element> {
  if (index === undefined) return $([]);
  let col = 0;
  for (const td of $(tr).children("th, td").toArray()) {
    const w = span(td);
    if (index < col + w) return $(td);
    col += w;
  }
  return $([]);
}

const HEADING = "h1, h2, h3, h4, h5, h6, [role='heading']";

/**
 * The heading of the section `el` sits under: the nearest heading before it at its own
 * level or any level above (a heading wrapped in a div counts; one inside an earlier table,
 * such as a row's own date heading, does not). Undefined when nothing comes before it.
 */
export function sectionHeading($: CheerioAPI, el: AnyNode): Cheerio<Element> | undefined {
  for (let node = $(el); node.length > 0 && !node.is("body, html"); node = node.parent()) {
    for (const sib of node.prevAll().toArray()) {
      const s = $(sib);
      if (s.is(HEADING)) return s;
      if (s.is("table, script, style, template")) continue;
      const inside = s.find(HEADING).filter((_, h) => $(h).parentsUntil(s, "table").length === 0);
      if (inside.length > 0) return inside.last();
    }
  }
  return undefined;
}
