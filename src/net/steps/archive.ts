import type { BodyRead } from "../body-reader.js";
import type { StoredAnswer } from "../journal.js";
import { type AttemptResult, type Call, NotKept, type Step } from "../pipeline.js";
import type { ArchiveExchange, ArchivePort, Validators } from "../types.js";

/**
 * P8: every answer read in full (2xx, 4xx, 5xx; robots.txt too) goes to the private copy
 * before its row is completed; rechecks (keepBody false) keep nothing (P25). And the other
 * way: an answer received in full earlier tonight is rebuilt from the copy instead of asked
 * again (the site gate found it in the journal), its body read back from the archive.
 */
export const archive =
  (deps: {
    archive?: ArchivePort;
    /**
     * The night this fetcher runs in, if any. A copy names the night whose request saved it only
     * then (P8, migration 038): outside a night (`nor discover`) the journal names its requests
     * by the day's date, and the night of that name must not take such a copy for its own.
     */
    night?: string;
  }): Step =>
  (next) =>
  async (call) => {
    const t = call.ticket;
    if (t?.kind === "replay") {
      const answer = await replay(deps.archive, call, t.stored);
      if (!answer) return { kind: "unreplayable" };
      const archived = t.stored.kind === "response" && t.stored.archived;
      return { kind: "answer", got: { answer, archived, replayed: true } };
    }
    const reply = await next(call);
    if (reply.kind !== "answer") return reply;
    try {
      const kept = await keep(deps.archive, call, reply.got.answer, deps.night !== undefined);
      if (kept === false) return { kind: "answer", got: { ...reply.got, archived: false } };
      if (kept === true) return { kind: "answer", got: { ...reply.got, archived: true } };
      return { kind: "answer", got: { ...reply.got, archived: true, indexed: kept.indexed } };
    } catch (err) {
      // The answer came but could not be kept (a full disk): the journal records its end, and
      // the caller hears it as the archive's failure (the night stops on it).
      return { kind: "answer", got: { ...reply.got, failed: new NotKept(err) } };
    }
  };

/**
 * False when nothing is kept; true once kept; `indexed` when the records are durable and the
 * index row is queued to commit with the journal's completion (ArchivePort.writeQueued).
 */
async function keep(
  archive: ArchivePort | undefined,
  call: Call,
  r: AttemptResult,
  inNight: boolean,
): Promise<boolean | { indexed: Promise<void> }> {
  if (!archive || !call.keepBody || r.kind !== "response") return false;
  if (r.read.kind !== "complete" || (r.status >= 100 && r.status < 200)) return false;
  // A 304 carries no page (the copy kept is still the one) and a redirect only where the page
  // went: their status and headers are the request log's (P8, P27; docs/promises.md).
  if (r.status >= 300 && r.status < 400) return false;
  const exchange: ArchiveExchange = {
    request: {
      method: call.method,
      url: call.url,
      headers: call.headers,
      ...(call.body !== undefined ? { body: call.body } : {}),
    },
    response: {
      status: r.status,
      headers: r.headers,
      url: call.url,
      body: r.read.body,
      chain: [call.url],
    },
    fetchedAt: r.startedAt,
    purpose: call.purpose,
    ...(call.source !== undefined ? { source: call.source } : {}),
    ...(inNight && call.ticket?.kind === "send" ? { night: call.ticket.night } : {}),
  };
  if (archive.writeQueued !== undefined) {
    const kept = await archive.writeQueued(exchange);
    // Awaited by the journal step; a rejection is never left unheard when a step between
    // throws first (the journal then records the end as interrupted).
    kept.indexed.catch(() => {});
    return kept;
  }
  await archive.write(exchange);
  return true;
}

/**
 * An answer received in full earlier tonight, rebuilt without asking (P8). Undefined when the
 * copy is not there to rebuild it from, or when a partial body mattered (a robots.txt over
 * its limit whose first bytes were not kept with its answer): then the request is asked again.
 */
async function replay(
  archive: ArchivePort | undefined,
  call: Call,
  a: StoredAnswer,
): Promise<AttemptResult | undefined> {
  if (a.kind === "failure") {
    return {
      kind: "failure",
      failure: a.failure,
      message: a.message,
      ...(a.address !== undefined ? { address: a.address } : {}),
      startedAt: a.startedAt,
      endedAt: a.endedAt,
    };
  }
  // A 304 said "your copy is current" about the copy those validators named: it answers a
  // request with other validators (or none) nothing, so that one is asked (P12).
  if (a.status === 304 && !sameValidators(a.validatorsSent, call.validatorsSent)) return undefined;
  let read: BodyRead;
  if (a.read === "complete") {
    const noBody =
      a.status === 304 ||
      (a.status >= 100 && a.status < 200) ||
      (a.status >= 300 && a.status < 400);
    // An error's body only matters to tell a challenge page (P21), and a no has closed the
    // site already: a 4xx/5xx is replayed without its copy when the copy is not there.
    const bodyOptional = noBody || a.status >= 400 || !call.keepBody;
    let body: Uint8Array | undefined;
    if (a.archived && call.keepBody) {
      body = await archive?.bodyOf?.({
        url: call.url,
        method: call.method,
        fetchedAt: a.startedAt,
      });
    }
    // P16, P11: a robots.txt read's body also kept with its answer (journal step): replayed from
    // there where this process's archive has no copy (another machine's read tonight).
    if (!body && a.robotsBody !== undefined && call.keepBody) body = robotsBytes(a.robotsBody);
    if (!body && !bodyOptional) return undefined;
    read = { kind: "complete", body: body ?? new Uint8Array(0), bytes: a.bytes };
  } else if (a.read === "too-large") {
    // A robots.txt over its limit is parsed from its first bytes (P17): replayed only with
    // them, kept with its answer (journal step); else it is asked again.
    if (call.robotsFor !== undefined) {
      if (a.robotsBody === undefined) return undefined;
      read = { kind: "too-large", body: robotsBytes(a.robotsBody), bytes: a.bytes };
    } else {
      // P14: one read at the robots limit (a robots.txt's redirect into this page, its first
      // bytes kept with it) says nothing of the page's 20 MiB: asked again as a page.
      if (a.robotsBody !== undefined) return undefined;
      read = { kind: "too-large", body: new Uint8Array(0), bytes: a.bytes };
    }
  } else if (a.read === "failed") {
    read = {
      kind: "failed",
      failure: a.failure ?? "other",
      message: a.message ?? "",
      bytes: a.bytes,
    };
  } else {
    read = { kind: "bad-encoding", message: a.message ?? "", bytes: a.bytes };
  }
  return {
    kind: "response",
    status: a.status,
    headers: a.headers,
    // P22: a cookie the site set goes back only within that source's check.
    setCookies: a.source === call.source ? (a.setCookies ?? []) : [],
    read,
    ...(a.severalLocations ? { severalLocations: true as const } : {}),
    startedAt: a.startedAt,
    endedAt: a.endedAt,
  };
}

function sameValidators(a: Validators | undefined, b: Validators | undefined): boolean {
  return (
    (a?.etag ?? null) === (b?.etag ?? null) &&
    (a?.lastModified ?? null) === (b?.lastModified ?? null)
  );
}

/** A robots.txt read's bytes as the journal step kept them with its answer (base64). */
function robotsBytes(kept: string): Uint8Array {
  return new Uint8Array(Buffer.from(kept, "base64"));
}
