/**
 * P4: the way-in choice stored as JSON text beside a night's outcome (night_sources.way),
 * read back defensively, since an operator may have a store written by an older build.
 */
import type { WayChoice, WaySkipped, WayUsed } from "../night/types.js";

/** Reads the stored JSON back; a missing or unreadable value is "not recorded". */
export function parseWayChoice(text: string | null): WayChoice | undefined {
  if (text === null || text === "") return undefined;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof v !== "object" || v === null) return undefined;
  const o = v as { used?: unknown; skipped?: unknown };
  const choice: WayChoice = { skipped: [] };
  if (isUsed(o.used)) choice.used = o.used;
  if (Array.isArray(o.skipped)) choice.skipped = o.skipped.filter(isSkipped);
  return choice;
}

function isUsed(v: unknown): v is WayUsed {
  if (typeof v !== "object" || v === null) return false;
  const o = v as Record<string, unknown>;
  return (
    typeof o["access"] === "string" &&
    typeof o["url"] === "string" &&
    (o["platform"] === undefined || typeof o["platform"] === "string") &&
    (o["asked"] === undefined || typeof o["asked"] === "string")
  );
}

function isSkipped(v: unknown): v is WaySkipped {
  if (typeof v !== "object" || v === null) return false;
  const o = v as Record<string, unknown>;
  return (
    typeof o["access"] === "string" && typeof o["url"] === "string" && typeof o["why"] === "string"
  );
}
