import { escapeControls } from "./problems.js";

/**
 * Ohio's 88 counties, as the catalog writes a government's `county`: the name alone, without
 * the word "County", spelt and capitalised as Ohio writes it (catalog/ohio.yaml names each).
 * A county outside the list would stand in the public directory as a county of its own.
 */
export const OHIO_COUNTIES: readonly string[] = [
  "Adams",
  "Allen",
  "Ashland",
  "Ashtabula",
  "Athens",
  "Auglaize",
  "Belmont",
  "Brown",
  "Butler",
  "Carroll",
  "Champaign",
  "Clark",
  "Clermont",
  "Clinton",
  "Columbiana",
  "Coshocton",
  "Crawford",
  "Cuyahoga",
  "Darke",
  "Defiance",
  "Delaware",
  "Erie",
  "Fairfield",
  "Fayette",
  "Franklin",
  "Fulton",
  "Gallia",
  "Geauga",
  "Greene",
  "Guernsey",
  "Hamilton",
  "Hancock",
  "Hardin",
  "Harrison",
  "Henry",
  "Highland",
  "Hocking",
  "Holmes",
  "Huron",
  "Jackson",
  "Jefferson",
  "Knox",
  "Lake",
  "Lawrence",
  "Licking",
  "Logan",
  "Lorain",
  "Lucas",
  "Madison",
  "Mahoning",
  "Marion",
  "Medina",
  "Meigs",
  "Mercer",
  "Miami",
  "Monroe",
  "Montgomery",
  "Morgan",
  "Morrow",
  "Muskingum",
  "Noble",
  "Ottawa",
  "Paulding",
  "Perry",
  "Pickaway",
  "Pike",
  "Portage",
  "Preble",
  "Putnam",
  "Richland",
  "Ross",
  "Sandusky",
  "Scioto",
  "Seneca",
  "Shelby",
  "Stark",
  "Summit",
  "Trumbull",
  "Tuscarawas",
  "Union",
  "Van Wert",
  "Vinton",
  "Warren",
  "Washington",
  "Wayne",
  "Williams",
  "Wood",
  "Wyandot",
];

const KNOWN: ReadonlySet<string> = new Set(OHIO_COUNTIES);

/**
 * Edit distance with adjacent transpositions (optimal string alignment): insertions,
 * deletions, substitutions and swaps of two neighbours count one each. Short strings only.
 */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => d[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i++) {
    const row = d[i] as number[];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, at(i - 2, j - 2) + 1);
      row[j] = best;
    }
  }
  return at(a.length, b.length);
}

/** The county `written` most likely means: one a few letters off, case and "County" aside. */
export function nearestCounty(written: string): string | undefined {
  const name = written
    .trim()
    .replace(/\s+county$/i, "")
    .replace(/\s+/g, " ")
    .toLowerCase();
  if (name.length > 40) return undefined;
  let best: { county: string; d: number } | undefined;
  for (const county of OHIO_COUNTIES) {
    const d = distance(name, county.toLowerCase());
    if (best === undefined || d < best.d) best = { county, d };
  }
  const allowed = Math.max(1, Math.floor(name.length / 4));
  return best !== undefined && best.d <= allowed ? best.county : undefined;
}

/** `text` quoted on one printable line (controls escaped), cut at 60 characters. */
function quoted(text: string): string {
  return escapeControls(JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text));
}

/** Why `written` is not a county the catalog may name, or undefined when it is one. */
export function countyProblem(written: string): string | undefined {
  if (KNOWN.has(written)) return undefined;
  const near = nearestCounty(written);
  return near !== undefined
    ? `unknown county ${quoted(written)}: did you mean "${near}"? (one of Ohio's 88 counties, written without the word "County")`
    : `unknown county ${quoted(written)}: not one of Ohio's 88 counties, written as Ohio writes them without the word "County" (e.g. "Summit", "Van Wert")`;
}
