#!/usr/bin/env node
/**
 * Builds catalog/ohio.yaml from the seed data (ohio-governments.csv, ohio-record-pages.csv,
 * see their README). Run by hand when the seed changes; the output is committed, so the
 * project never needs the seed at run time:
 *
 *   node scripts/build-ohio-catalog.mjs SEED_DATA_DIR catalog/ohio.yaml
 *
 * Every source is `confirmed: false` (nothing was checked against the live sites) and keeps
 * its evidence. A record page becomes a source only when the checker can read it: a platform
 * preset, or one of the recipes below (written against saved copies of those pages, see
 * test/sources/extract/page.test.ts). The rest are listed as comments with the reason, so the
 * operator can add recipes later.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { stringify } from "yaml";

const [dataDir, out = "catalog/ohio.yaml"] = process.argv.slice(2);
if (dataDir === undefined) {
  process.stderr.write("usage: node scripts/build-ohio-catalog.mjs SEED_DATA_DIR [OUT.yaml]\n");
  process.exit(2);
}
const read = (f) => parse(readFileSync(join(dataDir, f), "utf8"), { columns: true, skip_empty_lines: true });

/** Seed platform value → preset name and the access it is. */
const PRESETS = {
  boarddocs: { platform: "boarddocs", access: "api" },
  "civicplus-agendacenter": { platform: "civicplus-agendacenter", access: "page" },
  "legistar-html": { platform: "legistar-html", access: "form" },
  "onbase-agendaonline": { platform: "onbase-agendaonline", access: "page" },
};

/** OpenCities calendar endpoints ("other" in the seed) have a preset. */
const OCAPI = /\/ocapi\/calendars\/getcalendaritems$/;

/** Recipes for "html" pages whose saved copies are in test/fixtures/platforms (same URL). */
const RECIPES = {
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
  "https://www.neorsd.org/document-library/?PAGE=2&BUDGETCENTER_ID=NULL&CONTENT_TYPE_ID=NULL&LibraryItem=agenda&Active=1&Archive=1&Search=Submit": {
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

/** A bare host as seen in the seed ("www.westerville.org"): https:// is added only for these. */
const BARE_HOST = /^[a-z0-9-]+(\.[a-z0-9-]+)+$/i;

const skipped = [];
const fixedWebsites = [];

const governments = read("ohio-governments.csv").map((g) => {
  const entry = { id: g.id, name: g.name, kind: g.kind };
  if (g.county) entry.county = g.county;
  let website = g.website.trim();
  if (website && !/^https?:\/\//i.test(website)) {
    if (BARE_HOST.test(website)) {
      fixedWebsites.push(`${g.id}: ${website} -> https://${website}/`);
      website = `https://${website}/`;
    } else {
      skipped.push(`government ${g.id} website ${website}: no scheme`);
      website = "";
    }
  }
  if (website) entry.website = website;
  if (g.website_evidence) entry.evidence = g.website_evidence;
  if (g.notes) entry.notes = g.notes;
  return entry;
});

const ids = new Map();
function sourceId(gov, records) {
  const base = `${gov}-${records}`;
  const n = (ids.get(base) ?? 0) + 1;
  ids.set(base, n);
  return n === 1 ? base : `${base}-${n}`;
}

const sources = [];
for (const r of read("ohio-record-pages.csv")) {
  const url = r.url.trim();
  const why = (reason) => skipped.push(`${r.government_id} ${r.records} ${url} (${r.platform}): ${reason}`);
  if (!/^https?:\/\//i.test(url)) {
    why("no scheme; a source URL is fetched, so none is guessed");
    continue;
  }
  if (url.includes("{}")) {
    why("URL is a template ({} = dates) that no preset fills in");
    continue;
  }
  let way;
  if (PRESETS[r.platform]) way = { ...PRESETS[r.platform] };
  else if (r.platform === "other" && OCAPI.test(url)) way = { platform: "granicus-opencities", access: "api" };
  else if (r.platform === "html" && RECIPES[url]) way = { access: "page", extract: RECIPES[url] };
  else {
    why(r.platform === "html" ? "needs a page recipe" : "no preset for this kind of site");
    continue;
  }
  const s = { id: sourceId(r.government_id, r.records), government: r.government_id, records: r.records, url };
  s.access = way.access;
  if (way.platform) s.platform = way.platform;
  if (way.extract) s.extract = way.extract;
  s.confirmed = false;
  if (r.evidence) s.evidence = r.evidence;
  if (r.notes) s.notes = r.notes;
  sources.push(s);
}

const comment = (lines) => lines.map((l) => `#   ${l}`).join("\n");
const text = `# New on Record: Ohio starter catalog. GENERATED by scripts/build-ohio-catalog.mjs from the
# seed data (ohio-governments.csv, ohio-record-pages.csv); edit the script or add a new file,
# not this one. Format: docs/catalog.md. Nothing here was checked against the live sites:
# every source is confirmed: false until a person has seen records there.
#
# Websites given https:// because the seed wrote a bare host name:
${comment(fixedWebsites)}
${stringify({ governments }, { lineWidth: 0 })}
${stringify({ sources }, { lineWidth: 0 })}
# Record pages not listed as sources yet (${skipped.length}), with the reason:
${comment(skipped)}
`;
writeFileSync(out, text);
process.stdout.write(`wrote ${out}: ${governments.length} governments, ${sources.length} sources, ${skipped.length} skipped\n`);
