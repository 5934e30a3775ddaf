/**
 * Builds the bundled catalog (catalog/ohio.yaml) from the seed data: the governments, the
 * record pages and the single-meeting links (three CSV files with a README that says where
 * every row was seen). Run by hand when the seed changes; the output is committed, so the
 * project never needs the seed at run time:
 *
 *   npm run catalog:build                  # = the two lines below
 *   npx tsc -p tsconfig.scripts.json
 *   node dist-scripts/scripts/build-catalog.js SEED_DIR catalog/ohio.yaml
 *
 * Every government and every record page is written, each with its evidence:
 * - a record page the checker can read (a platform preset that takes its address as seen,
 *   or one of the recipes below, written against saved copies of those pages) becomes a
 *   source, `confirmed: false`: nothing here was checked against the live sites, and only a
 *   person who has seen records there confirms it (P24);
 * - any other becomes a lead (docs/catalog.md), with the reason, never fetched: a page that
 *   needs a recipe, an address without a scheme or with a template in it, a platform no
 *   preset reads at that address, one meeting's page instead of a list (P6) (a single-meeting
 *   link, or a record-page row whose notes say so: NOT_A_LIST), the same list a source before it
 *   already reads (two addresses a preset asks alike, such as a BoardDocs tenant's `Public` page
 *   and its `XML-ActiveMeetings` feed: one source, so no meeting is fetched or listed twice).
 * No address is made up or completed, except that a government's website written as a bare
 * host name is given https://, and one that is the site's sitemap (the seed took some websites
 * from robots.txt's Sitemap line: an XML file no person reads) is given as its site's front page,
 * the same scheme and host (both listed in the header). Ids are those of the earlier builds:
 * `<government>-<records>`, numbered `-2`, `-3` in the order of the seed's rows.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { stringify } from "yaml";
import { parseCatalog } from "../src/sources/catalog/load.js";
import type { PageRecipe } from "../src/sources/catalog/types.js";
import { getPlatform } from "../src/sources/platforms/index.js";
import { presetAccess } from "../src/sources/platforms/names.js";

type Row = Record<string, string>;

/** Seed platform value → the preset that reads that platform, where one does. */
const PRESETS: Record<string, string> = {
  boarddocs: "boarddocs",
  "civicplus-agendacenter": "civicplus-agendacenter",
  "legistar-html": "legistar-html",
  "onbase-agendaonline": "onbase-agendaonline",
  granicus: "granicus",
  primegov: "primegov",
  civicclerk: "civicclerk",
};

/**
 * Where a preset reads only some addresses of its platform: the address seen must be one of
 * them, since none is made up. CivicClerk's preset reads the tenant's API host; PrimeGov's
 * the tenant's own host; Granicus's a `ViewPublisher.php` page (or its feed).
 */
const PRESET_ADDRESS: Record<string, [RegExp, string]> = {
  civicclerk: [
    /^https:\/\/[a-z0-9-]+\.api\.civicclerk\.com\//i,
    "the civicclerk preset reads the tenant's API host (<tenant>.api.civicclerk.com); only the portal was seen",
  ],
  primegov: [/^https:\/\/[a-z0-9-]+\.primegov\.com\/?$/i, "not the tenant's PrimeGov host"],
  granicus: [/\/ViewPublisher(RSS)?\.php\?/i, "not a Granicus ViewPublisher page or its feed"],
};

/**
 * The address a preset reads, where the row's notes name it ("registry also names API host
 * fairfieldoh.api.civicclerk.com/v1/Events/ (written without scheme)"): it was seen, so the
 * lead says so rather than "only the portal was seen". It stays a lead: the row's address is
 * the portal, and one named without a scheme is not completed, since a source's address is
 * fetched and none is guessed (the seed's README: "No URL was constructed").
 */
const PRESET_HOST_IN_NOTES: Record<string, RegExp> = {
  civicclerk: /(?<![\w.:/-])(?:https?:\/\/)?[a-z0-9-]+\.api\.civicclerk\.com(?:\/[^\s;,)]*)?/i,
};

function presetAddressInNotes(preset: string, notes: string): string | undefined {
  const seen = PRESET_HOST_IN_NOTES[preset]?.exec(notes)?.[0];
  if (seen === undefined) return undefined;
  return HAS_SCHEME.test(seen)
    ? `the ${preset} preset reads the tenant's API host; the evidence names it (${seen}) only in its notes, not as this row's address`
    : `the ${preset} preset reads the tenant's API host; the evidence names it only without a scheme (${seen}), and a source's address is fetched, so none is guessed`;
}

/** OpenCities calendar endpoints ("other" in the seed) have a preset. */
const OCAPI = /\/ocapi\/calendars\/getcalendaritems$/;

/** Recipes for "html" pages whose saved copies are in test/fixtures/platforms (same URL). */
const RECIPES: Record<string, PageRecipe> = {
  "https://planning.clevelandohio.gov/landmark/agenda.php": {
    items: "a[href*='/landmark/agenda/'][href$='.pdf']",
  },
  "https://planning.clevelandohio.gov/designreview/schedule.php": {
    items: "a[href*='/designreview/drcagenda/'][href$='.pdf']",
  },
  "https://cuyahogacounty.gov/boards-and-commissions/board-details/internal/board-of-control": {
    items: "table.table-striped tbody tr",
    title: "td:nth-child(2)",
    link: "td:nth-child(2) a",
    date: "td:first-child",
  },
  "https://www.neorsd.org/document-library/?PAGE=2&BUDGETCENTER_ID=NULL&CONTENT_TYPE_ID=NULL&LibraryItem=agenda&Active=1&Archive=1&Search=Submit":
    {
      items: "#fileList tr:has(> td > a[href*='I_Library.php'])",
      title: "td:first-child a",
      link: "td:first-child a",
      date: "td:first-child",
      kind: "td:nth-child(3)",
      next: "#fileList a:contains('Next')",
    },
  "https://www.akronmetro.org/metro-board-meetings.aspx": {
    items: "table.table-purple tbody tr",
    title: "td:first-child",
    date: "td:first-child",
    link: "td:nth-child(2) a",
  },
  "https://co.summitoh.net/index.php/offices/boards-agencies-a-commissions/board-of-control": {
    items: "a[href*='/BOC/']",
    date: ":scope",
  },
};

const ONE_MEETING = "one meeting's page, not a list (P6): the list page is still to find";

/**
 * Record-page rows whose own notes say they are no list of records (one meeting's page, one
 * document, a registration link): a recipe would not make them one, so they are leads saying
 * so, with the row's words. Keyed by the address as seen.
 */
const NOT_A_LIST: Record<string, string> = {
  // "board meeting page (one meeting; board pages follow this path pattern)"
  "https://www.clevelandmetroparks.com/about/cleveland-metroparks-organization/board-of-park-commissioners/11-20-2025":
    ONE_MEETING,
  // "WebEx registration link for board meetings (Documenters listing)"
  "https://www.clevelandmetroparks.com/boardstream":
    "not a page of records: a WebEx registration link for the board's meetings, as its evidence says; the list page is still to find",
  // "example council meeting agenda page; listing page not seen"
  "https://dublinohiousa.gov/council/dublin-city-council-meeting-monday-november-14-2022/":
    ONE_MEETING,
  // "Laserfiche WebLink repository (example: 10-20-2025 Council minutes)"
  "https://weblink.dublin.oh.us/WebLinkPublic/DocView.aspx?dbid=0&id=2782807&repo=Dublin-Images":
    "one document (one meeting's minutes), not a list (P6): the repository's folder is still to find",
  // "Swagit video archive (example meeting video)"
  "https://dublinoh.new.swagit.com/videos/314481": ONE_MEETING,
  // "example council minutes page (pattern /minutes-M-D-YY); listing page not seen"
  "https://www.ketteringoh.org/minutes-9-23-25": ONE_MEETING,
};

/**
 * What the checker asks for a source read this way: two sources asking the same are one list
 * (BoardDocs reads `Board.nsf/Public` and `Board.nsf/XML-ActiveMeetings` of a tenant alike).
 */
function firstAsk(way: Way, url: string): { key: string; url: string } {
  if (!way.platform) return { key: `GET ${url}`, url };
  const platform = getPlatform(way.platform);
  if (!platform) throw new Error(`no preset named ${way.platform}`);
  const req = platform.firstRequest(url, 0);
  return { key: `${req.method} ${req.url} ${req.body ?? ""}`, url: req.url };
}

/** A bare host as seen in the seed ("www.westerville.org"): https:// is added only for these. */
const BARE_HOST = /^[a-z0-9-]+(\.[a-z0-9-]+)+$/i;
const HAS_SCHEME = /^https?:\/\//i;

/** A path segment that names a sitemap (`sitemap.xml`, `wp-sitemap.xml`, `sitemap_index.xml`, `sitemap/`). */
const SITEMAP_SEGMENT = /^(?:wp-)?sitemap(?:[_-]?index)?(?:\.xml(?:\.gz)?)?$/i;

/** The front page of the site whose sitemap `website` is, or undefined when it is not one. */
export function sitemapFront(website: string): string | undefined {
  let url: URL;
  try {
    url = new URL(website);
  } catch {
    return undefined;
  }
  const segments = url.pathname.split("/").filter(Boolean);
  if (!segments.some((s) => SITEMAP_SEGMENT.test(s))) return undefined;
  return `${url.protocol}//${url.host}/`;
}

interface Way {
  access: "api" | "download" | "feed" | "page" | "form";
  platform?: string;
  extract?: PageRecipe;
}

/** How the checker reads a record page, or why it cannot yet. */
export function wayFor(url: string, platform: string, notes = ""): Way | { why: string } {
  if (!HAS_SCHEME.test(url))
    return { why: "the address has no scheme; a source's address is fetched, so none is guessed" };
  if (url.includes("{}"))
    return { why: "the address is a template ({} = dates) no preset fills in" };
  const preset =
    PRESETS[platform] ??
    (platform === "other" && OCAPI.test(url) ? "granicus-opencities" : undefined);
  if (preset) {
    const rule = PRESET_ADDRESS[preset];
    if (rule && !rule[0].test(url)) return { why: presetAddressInNotes(preset, notes) ?? rule[1] };
    const access = presetAccess(preset);
    if (!access) throw new Error(`no preset named ${preset}`);
    return { access, platform: preset };
  }
  const recipe = RECIPES[url];
  if (platform === "html" && recipe) return { access: "page", extract: recipe };
  return {
    why:
      platform === "html"
        ? "needs a page recipe"
        : `no preset reads this platform${platform === "other" ? "" : ` (${platform})`} at this address`,
  };
}

export interface Built {
  text: string;
  governments: number;
  sources: number;
  leads: number;
}

export function buildCatalog(dataDir: string): Built {
  const read = (f: string): Row[] =>
    parse(readFileSync(join(dataDir, f), "utf8"), { columns: true, skip_empty_lines: true });

  const fixedWebsites: string[] = [];
  const governments = read("ohio-governments.csv").map((g) => {
    const entry: Record<string, string> = { id: g.id!, name: g.name!, kind: g.kind! };
    if (g.county) entry.county = g.county;
    let website = (g.website ?? "").trim();
    if (website && !HAS_SCHEME.test(website)) {
      if (!BARE_HOST.test(website)) throw new Error(`${g.id}: website ${website} has no scheme`);
      fixedWebsites.push(`${g.id}: ${website} -> https://${website}/`);
      website = `https://${website}/`;
    }
    const front = sitemapFront(website);
    if (front !== undefined) {
      fixedWebsites.push(`${g.id}: ${website} -> ${front} (a sitemap, not a page)`);
      website = front;
    }
    if (website) entry.website = website;
    if (g.website_evidence) entry.evidence = g.website_evidence;
    const facts = [g.fips ? `FIPS ${g.fips}` : "", g.seat ? `seat ${g.seat}` : ""].filter(Boolean);
    const notes = [facts.join(", "), g.notes ?? ""].filter(Boolean).join("; ");
    if (notes) entry.notes = notes;
    return entry;
  });

  const taken = new Map<string, number>();
  const sourceId = (gov: string, records: string) => {
    const base = `${gov}-${records}`;
    const n = (taken.get(base) ?? 0) + 1;
    taken.set(base, n);
    return n === 1 ? base : `${base}-${n}`;
  };

  const sources: Record<string, unknown>[] = [];
  const leads: Record<string, unknown>[] = [];
  const lead = (r: Row, why: string) => {
    const l: Record<string, unknown> = {
      government: r.government_id,
      records: r.records,
      url: (r.url ?? "").trim(),
    };
    if (r.platform) l.platform = r.platform;
    l.why = why;
    if (r.evidence) l.evidence = r.evidence;
    if (r.notes) l.notes = r.notes;
    leads.push(l);
  };
  const asked = new Map<string, string>();
  for (const r of read("ohio-record-pages.csv")) {
    const url = (r.url ?? "").trim();
    const notAList = NOT_A_LIST[url];
    if (notAList) {
      lead(r, notAList);
      continue;
    }
    const way = wayFor(url, r.platform ?? "", r.notes ?? "");
    if ("why" in way) {
      lead(r, way.why);
      continue;
    }
    const ask = firstAsk(way, url);
    const same = asked.get(ask.key);
    if (same) {
      lead(
        r,
        way.platform
          ? `the same list as source ${same}: the ${way.platform} preset asks ${ask.url} for both`
          : `the same page as source ${same}`,
      );
      continue;
    }
    const s: Record<string, unknown> = {
      id: sourceId(r.government_id!, r.records!),
      government: r.government_id,
      records: r.records,
      url,
      access: way.access,
    };
    asked.set(ask.key, s.id as string);
    if (way.platform) s.platform = way.platform;
    if (way.extract) s.extract = way.extract;
    s.confirmed = false;
    if (r.evidence) s.evidence = r.evidence;
    if (r.notes) s.notes = r.notes;
    sources.push(s);
  }
  for (const r of read("ohio-single-meeting-links.csv"))
    lead(
      r,
      "one meeting's page, not a list (P6): it shows the platform; the list page is still to find",
    );

  const comment = (lines: string[]) => lines.map((l) => `#   ${l}`).join("\n");
  const body = [
    stringify({ governments }, { lineWidth: 0 }),
    stringify({ sources }, { lineWidth: 0 }),
    stringify({ leads }, { lineWidth: 0 }),
  ].join("\n");
  const text = `# yaml-language-server: $schema=../docs/catalog.schema.json
# New on Record: the Ohio catalog. GENERATED by scripts/build-catalog.ts from the seed data
# (ohio-governments.csv, ohio-record-pages.csv, ohio-single-meeting-links.csv); change the
# script or add another file, not this one. Format: docs/catalog.md.
#
# ${governments.length} governments, ${sources.length} sources, ${leads.length} leads. Every entry keeps the evidence of
# where it was seen. Nothing here was checked against the live sites: every source is
# confirmed: false until a person has seen records there. Leads are record pages the
# checker cannot read yet (each says why); they are never fetched.
#
# Websites given https:// because the seed wrote a bare host name, and websites that were the
# site's sitemap given as its front page:
${comment(fixedWebsites)}

${body}`;
  // The output must pass the checker's own validation (throws CatalogError otherwise).
  const check = parseCatalog(text, "catalog/ohio.yaml");
  if (check.sources.length !== sources.length) throw new Error("validation lost sources");
  return { text, governments: governments.length, sources: sources.length, leads: leads.length };
}

if (process.argv[1]?.endsWith("build-catalog.js")) {
  const [dataDir, out = "catalog/ohio.yaml"] = process.argv.slice(2);
  if (!dataDir) {
    process.stderr.write("usage: node dist-scripts/scripts/build-catalog.js SEED_DIR [OUT]\n");
    process.exit(2);
  }
  const built = buildCatalog(dataDir);
  writeFileSync(out, built.text);
  process.stdout.write(
    `wrote ${out}: ${built.governments} governments, ${built.sources} sources, ${built.leads} leads\n`,
  );
}
