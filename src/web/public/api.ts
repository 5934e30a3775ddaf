/**
 * The JSON API (`/api/…`): the same data as the pages, with stable field names documented in
 * docs/api.md. Times are ISO 8601 UTC; absent values are null, never missing keys, so a
 * client can rely on the shape. Every URL in an answer is http(s) or null: a `javascript:` or
 * `data:` URL a crawled page carried is never passed on (the pages refuse to link it too).
 */
import type { Outcome, ReadStatus } from "./state.js";

/** An http(s) URL, or null for anything else. */
export const httpUrl = (u: string | null | undefined): string | null => httpHref(u) ?? null;

import type {
  GovernmentSummary,
  LeadSummary,
  RecordItem,
  SourceSummary,
} from "../../store/read/directory.js";
import type { NewCounts, NewRecord } from "../../store/read/new-records.js";
import type { Filter } from "./filters.js";
import { evidenceParts, httpHref } from "./format.js";
import type { SourceLine } from "./pages/governments.js";
import type { SourcePageData } from "./pages/source.js";
import { type Retired, retiredApi, retiredPage } from "./retired.js";

export function governmentJson(g: GovernmentSummary) {
  return {
    id: g.id,
    name: g.name,
    kind: g.kind,
    county: g.county,
    website: httpUrl(g.website),
    sourceCount: g.sources,
    retiredAt: g.retiredAt,
  };
}

export function statusJson(s: ReadStatus) {
  return s.reading
    ? { reading: true, reason: null, since: s.since ?? null }
    : { reading: false, reason: s.reason, since: s.since };
}

export function outcomeJson(o: Outcome) {
  return {
    night: o.night,
    outcome: o.outcome,
    reason: o.reason ?? null,
    evidence: o.evidence
      ? {
          provider: o.evidence.provider,
          verdict: o.evidence.verdict,
          reference: o.evidence.reference ?? null,
          marker: o.evidence.marker ?? null,
        }
      : null,
    httpStatus: o.status ?? null,
    url: httpUrl(o.url),
    way: o.way
      ? {
          used: o.way.used
            ? {
                access: o.way.used.access,
                platform: o.way.used.platform ?? null,
                url: httpUrl(o.way.used.url),
                asked: o.way.used.asked ? httpUrl(o.way.used.asked) : null,
              }
            : null,
          skipped: o.way.skipped.map((s) => ({
            access: s.access,
            url: httpUrl(s.url),
            why: s.why,
          })),
        }
      : null,
    recordsFound: o.recordsFound,
    newRecords: o.newRecords,
    checkedAt: o.endedAt,
  };
}

export function sourceJson(s: SourceSummary) {
  return {
    id: s.id,
    governmentId: s.governmentId,
    name: s.name,
    records: s.records,
    url: httpUrl(s.url),
    access: s.access,
    platform: s.platform,
    retiredAt: s.retiredAt,
    renamedTo: s.renamedTo,
  };
}

export function recordJson(r: RecordItem) {
  return {
    sourceId: r.sourceId,
    recordId: r.recordId,
    title: r.title,
    date: r.date,
    url: httpUrl(r.url),
    kind: r.kind,
    firstSeenNight: r.firstSeenNight,
    firstSeenAt: r.firstSeenAt,
    alreadyListed: r.alreadyListed,
  };
}

/** A script's scheme: never passed on, not even as text (the catalog refuses it too). */
const SCRIPT_SCHEME = /^\s*(?:javascript|data|vbscript):/i;

/**
 * A lead: a record page seen, not confirmed, never read; its address as seen (it may lack a
 * scheme or be a template) and, when it is one, as a URL.
 */
export function leadJson(l: LeadSummary) {
  return {
    records: l.records,
    confirmed: false,
    address: SCRIPT_SCHEME.test(l.url) ? null : l.url,
    url: httpUrl(l.url),
    platform: l.platform,
    why: l.why,
    evidence: evidenceParts(l.evidence)
      .filter((p) => !SCRIPT_SCHEME.test(p.text))
      .map((p) => ({ text: p.text, url: p.href ?? null })),
    listedSince: l.firstSeenAt,
  };
}

export function governmentDetailJson(
  g: GovernmentSummary,
  lines: readonly SourceLine[],
  leads: readonly LeadSummary[] = [],
) {
  return {
    ...governmentJson(g),
    sources: lines.map((l) => ({
      ...sourceJson(l.source),
      status: statusJson(l.status),
      lastOutcome: l.last ? outcomeJson(l.last) : null,
    })),
    leads: leads.map(leadJson),
  };
}

export function sourceDetailJson(d: SourcePageData) {
  return {
    ...sourceJson(d.source),
    government: d.government ? governmentJson(d.government) : null,
    status: statusJson(d.status),
    lastOutcome: d.last ? outcomeJson(d.last) : null,
    nights: d.nights.map((n) => ({
      night: n.night,
      state: n.state,
      outcome: n.state === "checked" ? outcomeJson(n.outcome) : null,
    })),
    newestRecords: d.records.map(recordJson),
  };
}

export function filterJson(f: Filter) {
  return {
    county: f.county ?? null,
    kind: f.kind ?? null,
    records: f.records ?? null,
    government: f.government ?? null,
    source: f.source ?? null,
  };
}

export function newRecordJson(r: NewRecord) {
  return {
    ...recordJson(r),
    sourceName: r.sourceName,
    sourceRecords: r.sourceRecords,
    governmentId: r.governmentId,
    governmentName: r.governmentName,
    governmentKind: r.governmentKind,
    county: r.county,
  };
}

export function countsJson(c: NewCounts) {
  return {
    total: c.total,
    alreadyListed: c.alreadyListed,
    byCounty: c.byCounty.map((x) => ({ county: x.county, count: x.count })),
    byRecords: c.byRecords.map((x) => ({ records: x.records, count: x.count })),
  };
}

/**
 * A filter that names a record page or government that left the catalog (retired.tsx): what
 * left, when, and the page that keeps its records (a path on this directory) with its JSON
 * twin; null when the filter names none.
 */
export function retiredJson(r: Retired | undefined) {
  return r
    ? {
        what: r.what,
        id: r.id,
        retiredAt: r.retiredAt,
        renamedTo: r.renamedTo ?? null,
        page: retiredPage(r),
        api: retiredApi(r),
      }
    : null;
}
