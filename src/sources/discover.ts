/**
 * `nor discover`: from a homepage that was already fetched (with robots.txt, through the
 * same pipeline), find the ways in it advertises or links to: feeds announced with
 * <link rel="alternate">, and the paths of platforms we have presets for. Pure: the page
 * is given, nothing is fetched here, and no link is followed (P6).
 */

import type { CheerioAPI } from "cheerio";
import { urlCredentialProblem } from "./catalog/credentials.js";
import { urlRewriteProblem } from "./catalog/url-written.js";
import { load } from "./extract/cheerio-load.js";
import { isTooCostlyToParse } from "./extract/nesting.js";
import { presetAccess } from "./platforms/names.js";
import { absoluteUrl } from "./record-id.js";

export interface Candidate {
  url: string;
  access: "api" | "download" | "feed" | "page" | "form";
  platform?: string;
  /** How we found it: "advertised feed", "link on the homepage". */
  found: string;
  /** The link text or feed title, when there is one. */
  label?: string;
}

/** A preset's pages by their address; its way in is the preset's own (platforms/names.ts). */
interface PlatformPattern {
  platform: string;
  test: (u: URL) => boolean;
}

const lower = (u: URL) => `${u.hostname}${u.pathname}`.toLowerCase();

/** Known platform paths, most specific first. */
const patterns: PlatformPattern[] = [
  { platform: "civicplus-rss", test: (u) => /\/rssfeed\.aspx$/.test(lower(u)) },
  {
    platform: "civicplus-agendacenter",
    test: (u) => /\/agendacenter\/?$/.test(lower(u)),
  },
  { platform: "civicplus-bids", test: (u) => /\/bids\.aspx$/.test(lower(u)) },
  {
    platform: "legistar-html",
    test: (u) => /\.legistar\.com$/.test(u.hostname.toLowerCase()),
  },
  {
    platform: "boarddocs",
    test: (u) =>
      /(^|\.)boarddocs\.com$/.test(u.hostname.toLowerCase()) &&
      /\/board\.nsf/.test(u.pathname.toLowerCase()),
  },
  {
    platform: "granicus",
    test: (u) =>
      /\.granicus\.com$/.test(u.hostname.toLowerCase()) &&
      /viewpublisher/.test(u.pathname.toLowerCase()),
  },
  {
    platform: "primegov",
    test: (u) => /\.primegov\.com$/.test(u.hostname.toLowerCase()),
  },
  {
    platform: "civicclerk",
    test: (u) => /\.civicclerk\.com$/.test(u.hostname.toLowerCase()),
  },
  {
    platform: "onbase-agendaonline",
    test: (u) => /onbaseagendaonline/.test(lower(u)),
  },
  {
    platform: "icompass",
    test: (u) => /\.civicweb\.net$/.test(u.hostname.toLowerCase()),
  },
  {
    platform: "escribe",
    test: (u) => /escribemeetings\.com$/.test(u.hostname.toLowerCase()),
  },
  {
    platform: "municode-meetings",
    test: (u) => /municodemeetings\.com$/.test(u.hostname.toLowerCase()),
  },
  {
    platform: "novusagenda",
    test: (u) => /novusagenda\.com$/.test(u.hostname.toLowerCase()),
  },
];

const feedTypes = new Set([
  "application/rss+xml",
  "application/atom+xml",
  "application/rdf+xml",
  "application/feed+json",
  "application/json",
]);

/** Finds candidate ways in on a homepage. Never throws on any HTML. */
export function discoverCandidates(html: string, pageUrl: string): Candidate[] {
  let $: CheerioAPI;
  try {
    $ = load(html);
  } catch (err) {
    // A homepage nested too deeply to read in good time (cheerio-load.ts): nothing found on it.
    if (isTooCostlyToParse(err)) return [];
    throw err;
  }
  const out = new Map<string, Candidate>();
  const add = (c: Candidate) => {
    // P3: an address carrying user-info or a key the catalog refuses is no way in for the
    // checker, whatever the homepage links to: never offered.
    if (urlCredentialProblem(c.url) !== undefined) return;
    // Nor one the catalog refuses as not sent as written (a port of 0, which no server listens
    // on): a way offered is one the catalog takes as it is printed.
    if (urlRewriteProblem(c.url, new URL(c.url)) !== undefined) return;
    if (!out.has(c.url)) out.set(c.url, c);
  };

  $('link[rel~="alternate"][href]').each((_, el) => {
    const type = ($(el).attr("type") ?? "").toLowerCase().split(";")[0]?.trim() ?? "";
    if (!feedTypes.has(type)) return;
    const url = absoluteUrl($(el).attr("href"), pageUrl);
    if (!url) return;
    // One line, as a link's text is: the site writes it, and it is printed in a comment.
    const title = $(el).attr("title")?.replace(/\s+/g, " ").trim().slice(0, 120);
    add({ url, access: "feed", found: "advertised feed", ...(title ? { label: title } : {}) });
  });

  $("a[href]").each((_, el) => {
    const url = absoluteUrl($(el).attr("href"), pageUrl);
    if (!url) return;
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return;
    }
    const hit = patterns.find((p) => p.test(parsed));
    if (!hit) return;
    const label = $(el).text().replace(/\s+/g, " ").trim().slice(0, 120);
    add({
      url,
      // The preset's own way in (a form, a feed, an api), as the catalog infers it from the
      // platform: the entry printed says what the night will do (P4's order, P27's reason).
      access: presetAccess(hit.platform) ?? "page",
      platform: hit.platform,
      found: "link on the homepage",
      ...(label ? { label } : {}),
    });
  });

  return [...out.values()];
}
