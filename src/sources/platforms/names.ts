/**
 * The presets' names and the way each reads (its access), without loading the presets and
 * their HTML parsers: checking, counting and importing a catalog need only this, and keep
 * the parsers out of memory (docs/benchmarks.md "The catalog import's memory").
 * test/sources/platform-names.test.ts holds it equal to the presets themselves
 * (src/sources/platforms/index.ts), so the two never drift.
 */
import type { Access } from "../catalog/types.js";

export const PRESET_ACCESS: Readonly<Record<string, Access>> = {
  "civicplus-agendacenter": "page",
  "civicplus-rss": "feed",
  "legistar-api": "api",
  "legistar-html": "form",
  boarddocs: "api",
  granicus: "feed",
  "granicus-opencities": "api",
  primegov: "api",
  civicclerk: "api",
  "onbase-agendaonline": "page",
  icompass: "api",
  escribe: "api",
  "municode-meetings": "page",
  novusagenda: "page",
  "civicplus-bids": "page",
  iworq: "page",
};

/** The preset's access, or undefined when no preset has this name (matched as getPlatform does). */
export function presetAccess(name: string): Access | undefined {
  const key = name.trim().toLowerCase();
  return Object.hasOwn(PRESET_ACCESS, key) ? PRESET_ACCESS[key] : undefined;
}

export const presetNames: readonly string[] = Object.keys(PRESET_ACCESS);
