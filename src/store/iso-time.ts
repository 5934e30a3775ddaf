import { NorError } from "../errors.js";

/**
 * The store keeps times as ISO 8601 UTC text with milliseconds (`toISOString`): fixed width,
 * so text order is time order on SQLite and PostgreSQL alike. The API speaks epoch ms.
 */
export function toIso(ms: number): string {
  if (!Number.isFinite(ms)) throw new NorError("E_INTERNAL", `not a time: ${String(ms)}`);
  return new Date(ms).toISOString();
}

export function fromIso(text: string, where: string): number {
  const ms = Date.parse(text);
  if (Number.isNaN(ms)) throw new NorError("E_STORE", `${where}: unreadable time "${text}"`);
  return ms;
}
