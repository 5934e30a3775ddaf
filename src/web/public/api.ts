/**
 * The JSON API (`/api/…`): the same data as the pages, with stable field names documented in
 * docs/api.md. Times are ISO 8601 UTC; absent values are null, never missing keys, so a
 * client can rely on the shape.
 */
import type { GovernmentSummary, RecordItem, SourceSummary } from "./data/directory.js";
import type { NewOnRecord } from "./data/new-records.js";
import type { Outcome, ReadStatus } from "./data/source-state.js";
import type { Filter } from "./filters.js";
import type { SourceLine } from "./pages/governments.js";
import type { SourcePageData } from "./pages/source.js";

export function governmentJson(g: GovernmentSummary) {
  return {
    id: g.id,
    name: g.name,
    kind: g.kind,
    county: g.county,
    website: g.website,
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
    url: o.url ?? null,
    way: o.way
      ? {
          used: o.way.used
            ? {
                access: o.way.used.access,
                platform: o.way.used.platform ?? null,
                url: o.way.used.url,
              }
            : null,
          skipped: o.way.skipped.map((s) => ({ access: s.access, url: s.url, why: s.why })),
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
    url: s.url,
    access: s.access,
    platform: s.platform,
    retiredAt: s.retiredAt,
  };
}

export function recordJson(r: RecordItem) {
  return {
    sourceId: r.sourceId,
    recordId: r.recordId,
    title: r.title,
    date: r.date,
    url: r.url,
    kind: r.kind,
    firstSeenNight: r.firstSeenNight,
    firstSeenAt: r.firstSeenAt,
  };
}

export function governmentDetailJson(g: GovernmentSummary, lines: readonly SourceLine[]) {
  return {
    ...governmentJson(g),
    sources: lines.map((l) => ({
      ...sourceJson(l.source),
      status: statusJson(l.status),
      lastOutcome: l.last ? outcomeJson(l.last) : null,
    })),
  };
}

export function sourceDetailJson(d: SourcePageData) {
  return {
    ...sourceJson(d.source),
    government: d.government ? governmentJson(d.government) : null,
    status: statusJson(d.status),
    nights: d.nights.map((n) => ({
      night: n.night,
      outcome: n.outcome ? outcomeJson(n.outcome) : null,
    })),
    newestRecords: d.records.map(recordJson),
  };
}

export function filterJson(f: Filter) {
  return { county: f.county ?? null, kind: f.kind ?? null, records: f.records ?? null };
}

export function newJson(d: NewOnRecord, f: Filter) {
  return {
    night: d.night?.night ?? null,
    nightStartedAt: d.night?.startedAt ?? null,
    nightFinishedAt: d.night?.finishedAt ?? null,
    filter: filterJson(f),
    capped: d.capped,
    items: d.items.map((r) => ({
      ...recordJson(r),
      sourceName: r.sourceName,
      sourceRecords: r.sourceRecords,
      governmentId: r.governmentId,
      governmentName: r.governmentName,
      governmentKind: r.governmentKind,
      county: r.county,
    })),
  };
}
