import type { Insertable, Selectable } from "kysely";
import { NorError } from "../errors.js";
import type {
  Method,
  Purpose,
  RefusalEvidence,
  RequestLogEntry,
  Validators,
} from "../net/types.js";
import { fromIso, toIso } from "./iso-time.js";
import type { RequestLogRow } from "./schema/log.js";

/** The columns written for one attempt (the id is the table's). */
export type NewRequestLogRow = Omit<Insertable<RequestLogRow>, "id">;

/** RequestLogEntry (ms numbers) → row (ISO text, JSON text, nulls for absent fields). */
export function toRow(e: RequestLogEntry): NewRequestLogRow {
  return {
    started_at: toIso(e.startedAt),
    ended_at: e.endedAt === null ? null : toIso(e.endedAt),
    method: e.method,
    url: e.url,
    status: e.status,
    outcome: e.outcome,
    failure: e.failure ?? null,
    bytes: e.bytes,
    site: e.site,
    origin: e.origin,
    source: e.source ?? null,
    purpose: e.purpose,
    attempt: e.attempt,
    night: e.night ?? null,
    validators_sent: json(e.validatorsSent),
    validators_received: json(e.validatorsReceived),
    evidence: json(e.evidence),
  };
}

/** Row → RequestLogEntry; optional fields appear only when the row has them. */
export function fromRow(r: Selectable<RequestLogRow>): RequestLogEntry {
  const where = `request_log row ${r.id}`;
  const e: RequestLogEntry = {
    startedAt: fromIso(r.started_at, where),
    endedAt: r.ended_at === null ? null : fromIso(r.ended_at, where),
    method: r.method as Method,
    url: r.url,
    status: r.status === null ? null : Number(r.status),
    outcome: r.outcome,
    bytes: Number(r.bytes),
    site: r.site,
    origin: r.origin,
    purpose: r.purpose as Purpose,
    attempt: Number(r.attempt),
  };
  if (r.failure !== null) e.failure = r.failure;
  if (r.source !== null) e.source = r.source;
  if (r.night !== null) e.night = r.night;
  const sent = parse<Validators>(r.validators_sent, where);
  if (sent) e.validatorsSent = sent;
  const received = parse<Validators>(r.validators_received, where);
  if (received) e.validatorsReceived = received;
  const evidence = parse<RefusalEvidence>(r.evidence, where);
  if (evidence) e.evidence = evidence;
  return e;
}

function json(v: object | undefined): string | null {
  return v === undefined ? null : JSON.stringify(v);
}

function parse<T>(text: string | null, where: string): T | undefined {
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch (cause) {
    throw new NorError("E_STORE", `${where}: unreadable JSON ${JSON.stringify(text)}`, { cause });
  }
}
