/** Shared by the preset tests: real fixture bytes, run through a preset, summarised. */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { loadCatalog } from "../../../src/sources/catalog/load.js";
import type { Source } from "../../../src/sources/catalog/types.js";
import { getPlatform } from "../../../src/sources/platforms/index.js";
import type { Platform } from "../../../src/sources/platforms/types.js";
import type { ExtractedRecord, Extraction } from "../../../src/sources/record.js";

export const FIXTURES = fileURLToPath(new URL("../../fixtures/platforms/", import.meta.url));

export function fixture(rel: string): Uint8Array {
  return new Uint8Array(readFileSync(`${FIXTURES}${rel}`));
}

/**
 * The fixtures' governments and one source per fixture (fixtures/platforms/catalog.yaml),
 * loaded as the night loads a catalog: each source carries its government's `timezone`.
 */
let fixtureCatalog: Map<string, Source> | undefined;

/** The catalog source of a fixture (`folder/file`): its preset, address and zone. */
export function fixtureSource(rel: string): Source {
  fixtureCatalog ??= new Map(
    loadCatalog([`${FIXTURES}catalog.yaml`]).sources.map((s) => [s.evidence ?? s.id, s]),
  );
  const s = fixtureCatalog.get(rel);
  if (!s) throw new Error(`${rel} has no source in test/fixtures/platforms/catalog.yaml`);
  return s;
}

export function preset(name: string): Platform {
  const p = getPlatform(name);
  if (!p) throw new Error(`no preset ${name}`);
  return p;
}

export interface Run extends Extraction {
  body: Uint8Array;
  /** Distinct meetings: a record id is `MEETING` or `MEETING#doc`. */
  meetings: string[];
}

/** A fixture read by a preset as the night reads it: in its government's zone. */
export function run(name: string, rel: string, url: string): Run {
  const body = fixture(rel);
  const x = preset(name).extract(body, url, { zone: fixtureSource(rel).timezone });
  const meetings = [...new Set(x.records.map((r) => r.id.split("#")[0]!))];
  return { ...x, body, meetings };
}

export function byId(records: ExtractedRecord[], id: string): ExtractedRecord {
  const r = records.find((x) => x.id === id);
  if (!r) throw new Error(`no record ${id} among ${records.length}`);
  return r;
}

/** P6: every link is absolute http(s) — a thing to note, never a relative path to resolve later. */
export function allAbsolute(records: ExtractedRecord[]): boolean {
  return records.every((r) => r.url === undefined || /^https?:\/\/[^/]+\//.test(r.url));
}

/** ISO 8601 date or date-time with an explicit offset (never a bare local time). */
export const ISO = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}:\d{2}(\.\d{3})?(Z|[+-]\d{2}:\d{2}))?$/;
