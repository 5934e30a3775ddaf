/**
 * A store that looks like a month of real use, for screenshots: invented governments in real
 * Ohio counties (`.example` addresses, nothing real is named or linked), thirty nights written
 * through the night's own store (SqlNightStore) as `nor night` writes them, one night the
 * checker did not run, sites that said no with a vendor's evidence, a source a person marked
 * not read, and the last night's requests in the log. Deterministic: the same store each run.
 */
import { stringify } from "yaml";
import type { RequestLogEntry } from "../src/net/types.js";
import { rng } from "../src/night/simulate.js";
import type { NightOutcome, SourceResult } from "../src/night/types.js";
import { addDays } from "../src/policy/night-date.js";
import { parseCatalog } from "../src/sources/catalog/load.js";
import { importCatalog } from "../src/sources/catalog-import.js";
import type { ExtractedRecord } from "../src/sources/record.js";
import { markSource } from "../src/store/admin.js";
import type { Db } from "../src/store/db.js";
import { SqlNightStore } from "../src/store/night-store.js";
import { SqlRequestLog } from "../src/store/request-log.js";

/** "Now" for the pages: the afternoon after the last night. */
export const SHOWCASE_NOW = Date.parse("2026-11-05T19:00:00.000Z");
export const LAST_NIGHT = "2026-11-05";
const NIGHTS = 30;
/** A night the checker did not run (the strip says "checker offline"). */
const SKIPPED_NIGHT = "2026-10-24";

interface Gov {
  id: string;
  name: string;
  kind: string;
  county: string;
}
interface Src {
  id: string;
  government: string;
  records: "bids" | "agendas" | "minutes" | "permits" | "notices";
  name: string;
}

const GOVERNMENTS: Gov[] = [
  { id: "eastfield-township", name: "Eastfield Township", kind: "township", county: "Licking" },
  {
    id: "village-of-stonebridge",
    name: "Village of Stonebridge",
    kind: "village",
    county: "Licking",
  },
  { id: "city-of-harbor-falls", name: "City of Harbor Falls", kind: "city", county: "Licking" },
  {
    id: "stonebridge-schools",
    name: "Stonebridge Local Schools",
    kind: "school-district",
    county: "Licking",
  },
  {
    id: "licking-valley-water",
    name: "Licking Valley Water District",
    kind: "special-district",
    county: "Licking",
  },
  { id: "city-of-riverbend", name: "City of Riverbend", kind: "city", county: "Franklin" },
  {
    id: "village-of-oak-hollow",
    name: "Village of Oak Hollow",
    kind: "village",
    county: "Franklin",
  },
  { id: "village-of-millbrook", name: "Village of Millbrook", kind: "village", county: "Delaware" },
  {
    id: "millbrook-schools",
    name: "Millbrook City Schools",
    kind: "school-district",
    county: "Delaware",
  },
  { id: "city-of-changeville", name: "City of Changeville", kind: "city", county: "Summit" },
  { id: "copper-township", name: "Copper Township", kind: "township", county: "Summit" },
  { id: "village-of-slowwater", name: "Village of Slowwater", kind: "village", county: "Ross" },
];

const SOURCES: Src[] = [
  {
    id: "eastfield-bids",
    government: "eastfield-township",
    records: "bids",
    name: "Bids and quotes",
  },
  {
    id: "eastfield-minutes",
    government: "eastfield-township",
    records: "minutes",
    name: "Trustee meeting minutes",
  },
  {
    id: "eastfield-notices",
    government: "eastfield-township",
    records: "notices",
    name: "Legal notices",
  },
  {
    id: "stonebridge-agendas",
    government: "village-of-stonebridge",
    records: "agendas",
    name: "Council agendas",
  },
  {
    id: "stonebridge-bids",
    government: "village-of-stonebridge",
    records: "bids",
    name: "Bid opportunities",
  },
  {
    id: "harbor-falls-bids",
    government: "city-of-harbor-falls",
    records: "bids",
    name: "Purchasing: open bids",
  },
  {
    id: "harbor-falls-agendas",
    government: "city-of-harbor-falls",
    records: "agendas",
    name: "City Council meetings",
  },
  {
    id: "harbor-falls-permits",
    government: "city-of-harbor-falls",
    records: "permits",
    name: "Building permits issued",
  },
  {
    id: "stonebridge-schools-agendas",
    government: "stonebridge-schools",
    records: "agendas",
    name: "Board of Education meetings",
  },
  {
    id: "licking-water-notices",
    government: "licking-valley-water",
    records: "notices",
    name: "Board notices",
  },
  {
    id: "riverbend-agendas",
    government: "city-of-riverbend",
    records: "agendas",
    name: "City Council meetings",
  },
  {
    id: "riverbend-permits",
    government: "city-of-riverbend",
    records: "permits",
    name: "Permits (search form)",
  },
  { id: "riverbend-bids", government: "city-of-riverbend", records: "bids", name: "Bids and RFPs" },
  {
    id: "oak-hollow-minutes",
    government: "village-of-oak-hollow",
    records: "minutes",
    name: "Council minutes",
  },
  {
    id: "millbrook-agendas",
    government: "village-of-millbrook",
    records: "agendas",
    name: "Village Council agendas and minutes",
  },
  {
    id: "millbrook-schools-agendas",
    government: "millbrook-schools",
    records: "agendas",
    name: "Board of Education meetings",
  },
  {
    id: "changeville-minutes",
    government: "city-of-changeville",
    records: "minutes",
    name: "Council minutes",
  },
  {
    id: "changeville-notices",
    government: "city-of-changeville",
    records: "notices",
    name: "Public notices (RSS)",
  },
  {
    id: "copper-minutes",
    government: "copper-township",
    records: "minutes",
    name: "Trustee minutes",
  },
  {
    id: "slowwater-bids",
    government: "village-of-slowwater",
    records: "bids",
    name: "Bids and RFPs",
  },
];

const host = (gov: string) => `${gov}.example`;
const urlOf = (s: Src) => `https://www.${host(s.government)}/${s.records}`;
const siteOf = (s: Src) => host(s.government);

const ROADS = [
  "Township Road 112",
  "Granville Road",
  "Mill Street",
  "Cherry Valley Road",
  "Main Street",
];
const STREETS = ["14 Elm St", "220 W Broad St", "9 Orchard Ln", "1802 River Rd", "61 Church St"];
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

function titleFor(s: Src, n: number, date: string, r: () => number): string {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  const [, m, d] = date.split("-");
  const day = `${MONTHS[Number(m) - 1]} ${Number(d)}`;
  switch (s.records) {
    case "bids":
      return `${pick([
        `Bid: Road resurfacing, ${pick(ROADS)}`,
        "Request for proposals: salt storage building",
        `Invitation to bid: water main replacement, phase ${1 + (n % 4)}`,
        "Bid: park restroom renovation",
        "Request for qualifications: engineering services",
        "Bid: two plow trucks with spreaders",
        "Request for proposals: audit services",
      ])} (No. 26-${String(n).padStart(3, "0")})`;
    case "agendas":
      return pick([
        `Regular meeting agenda, ${day}`,
        `Special meeting agenda, ${day}`,
        `Finance committee agenda, ${day}`,
        `Planning commission agenda, ${day}`,
      ]);
    case "minutes":
      return `Minutes of the regular meeting, ${day}`;
    case "permits":
      return `Building permit B-2026-${String(400 + n).padStart(4, "0")}: ${pick(STREETS)}`;
    case "notices":
      return pick([
        `Public hearing: zoning amendment ${2026}-${10 + (n % 20)}`,
        `Legal notice: budget hearing, ${day}`,
        `Notice of road closure: ${pick(ROADS)}`,
        `Notice of election of officers, ${day}`,
      ]);
  }
}

const CLOUDFLARE = {
  provider: "cloudflare",
  verdict: "challenge" as const,
  reference: "8e1f2c3d4b5a6978-CMH",
};

/** The outcome a source had on the i-th night (0 = oldest), before records are drawn. */
function outcomeOf(s: Src, i: number, r: () => number): NightOutcome {
  const url = urlOf(s);
  const last = i === NIGHTS - 1;
  if (s.id === "riverbend-permits" && (last || i === NIGHTS - 3 || i === NIGHTS - 2)) {
    return {
      kind: "refused",
      reason: "Cloudflare challenge page (403)",
      status: 403,
      url,
      evidence: CLOUDFLARE,
    };
  }
  if (s.id === "slowwater-bids" && (i === 11 || i === 20 || last)) {
    return { kind: "timed-out", reason: "no response headers within 30 s", url };
  }
  if (s.id === "changeville-minutes" && i === 16) {
    return { kind: "unreachable", reason: "connection refused (ECONNREFUSED)", url };
  }
  if (s.id === "copper-minutes" && i >= NIGHTS - 8) {
    return { kind: "refused", reason: "HTTP 403 Forbidden", status: 403, url };
  }
  if (s.id === "oak-hollow-minutes" && i === 8) {
    return { kind: "unreached", reason: "the night's time limit passed" };
  }
  return { kind: r() < 0.3 ? "unchanged" : "ok", url };
}

/** Writes the month into an empty store; returns the sources' ids. */
export async function seedShowcase(db: Db): Promise<{ sources: string[] }> {
  const text = stringify({
    governments: GOVERNMENTS.map((g) => ({ ...g, website: `https://www.${host(g.id)}/` })),
    sources: SOURCES.map((s) => ({
      id: s.id,
      government: s.government,
      records: s.records,
      access: "feed",
      url: urlOf(s),
      name: s.name,
    })),
  });
  const catalog = parseCatalog(text, "showcase.yaml");
  const first = addDays(LAST_NIGHT, -(NIGHTS - 1));
  await importCatalog(
    db,
    catalog,
    {
      governments: new Map(catalog.governments.map((g) => [g.id, "showcase.yaml"])),
      sources: new Map(catalog.sources.map((s) => [s.id, "showcase.yaml"])),
    },
    Date.parse(`${first}T00:00:00.000Z`),
  );

  const store = new SqlNightStore(db);
  const rows = SOURCES.map((s) => ({
    id: s.id,
    government: s.government,
    url: urlOf(s),
    site: siteOf(s),
  }));
  const r = rng(20261105);
  let n = 0;
  const log: RequestLogEntry[] = [];
  for (let i = 0; i < NIGHTS; i++) {
    const night = addDays(first, i);
    // 01:00 in Ohio (05:00Z while daylight time lasts, to Nov 1), a six-hour limit (P13).
    const startedAt = Date.parse(`${night}T${night <= "2026-11-01" ? "05" : "06"}:00:00.000Z`);
    if (night === SKIPPED_NIGHT) continue;
    await store.openNight(night, startedAt, startedAt + 6 * 3_600_000);
    await store.syncSources(rows, startedAt);
    let at = startedAt;
    for (const [k, s] of SOURCES.entries()) {
      const outcome = outcomeOf(s, i, r);
      // The sources of one night end over about three quarters of an hour.
      at += 60_000 + Math.floor(r() * 120_000);
      const records: ExtractedRecord[] = [];
      if (outcome.kind === "ok") {
        const count = 1 + Math.floor(r() * 2);
        for (let j = 0; j < count; j++) {
          n++;
          // Agendas often name a meeting still to come; the rest are dated the day before.
          const date = addDays(night, s.records === "agendas" ? Math.floor(r() * 12) - 2 : -1 - j);
          records.push({
            id: `${s.id}/${n}`,
            title: titleFor(s, n, date, r),
            date,
            url: `https://www.${host(s.government)}/docs/${n}.pdf`,
          });
        }
      }
      const end = outcome.kind === "unreached" ? startedAt + 6 * 3_600_000 : at;
      const result: SourceResult = {
        sourceId: s.id,
        outcome,
        records,
        validators: [],
        flags:
          s.id === "riverbend-permits" && i === NIGHTS - 1
            ? [{ kind: "no-three-nights", detail: "refused on 3 nights running" }]
            : [],
        startedAt: end - 1500,
        endedAt: end,
        ...(outcome.kind === "unreached"
          ? {}
          : { way: { used: { access: "feed" as const, url: urlOf(s) }, skipped: [] } }),
      };
      await store.commit(night, result);
      if (i === NIGHTS - 1 && outcome.kind !== "unreached") {
        const base = {
          method: "GET" as const,
          site: siteOf(s),
          origin: `https://www.${host(s.government)}`,
          source: s.id,
          attempt: 1,
          night,
        };
        if (k % 2 === 0) {
          log.push({
            ...base,
            startedAt: end - 4000,
            endedAt: end - 3800,
            url: `https://www.${host(s.government)}/robots.txt`,
            status: 200,
            outcome: "ok",
            bytes: 180,
            purpose: "robots",
          });
        }
        log.push({
          ...base,
          startedAt: end - 1500,
          endedAt: end,
          url: urlOf(s),
          status: outcome.status ?? (outcome.kind === "unchanged" ? 304 : 200),
          outcome:
            outcome.kind === "refused"
              ? "refused"
              : outcome.kind === "unchanged"
                ? "not-modified"
                : outcome.kind === "timed-out"
                  ? "timed-out"
                  : "ok",
          bytes: outcome.kind === "ok" ? 18_000 + Math.floor(r() * 40_000) : 0,
          purpose: "page",
        });
      }
    }
    await store.finishNight(night, at + 30_000);
  }
  await new SqlRequestLog(db).appendMany(log);
  // P24: a person's decision, with its reason, after a week of nos.
  await markSource(db, {
    source: "copper-minutes",
    reading: false,
    reason: "The township asked by email that we pause while its new website is built",
    by: "operator",
    at: Date.parse(`${LAST_NIGHT}T15:30:00.000Z`),
    night: LAST_NIGHT,
  });
  return { sources: SOURCES.map((s) => s.id) };
}
