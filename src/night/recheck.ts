/**
 * P25: a source a person marked not read gets one request to its page on recheck nights, only
 * if robots.txt allows it (the fetcher's gate), keeping no body and taking no records. If it
 * answers (2xx and not a challenge: the fetcher's `ok`), a person is told (answers-again).
 */
import type { Clock } from "../clock.js";
import type { Fetcher } from "../net/types.js";
import type { Source } from "../sources/catalog/types.js";
import { failureOutcome } from "./outcome.js";
import { keptAs, type ValidatorStore } from "./reader.js";
import type { NightOutcome, SourceResult } from "./types.js";
import { wayUsed } from "./way-choice.js";

export async function recheckSource(
  fetcher: Fetcher,
  clock: Clock,
  source: Source,
  validators?: ValidatorStore,
): Promise<SourceResult> {
  const startedAt = clock.now();
  // P12: the page's stored validators go with it; a 304 is an answer as good as a 200.
  const sent = await validators?.get(keptAs(source.url));
  const o = await fetcher.fetch({
    url: source.url,
    purpose: "recheck",
    source: source.id,
    keepBody: false,
    ...(sent && (sent.etag || sent.lastModified) ? { validators: sent } : {}),
  });
  let outcome: NightOutcome;
  const flags: SourceResult["flags"] = [];
  // A 304 the recheck did not ask for (no validators: an error to a night's read) is an
  // answer all the same: the site answers again (P25), which is what a recheck asks.
  if (o.kind === "ok" || o.kind === "not-modified" || (o.kind === "error" && o.status === 304)) {
    outcome = { kind: "recheck-answers", status: o.status, url: o.url };
    flags.push({ kind: "answers-again", detail: `answered ${o.status} on recheck` });
  } else {
    const failed = failureOutcome(o);
    // Not asked, so no word on the no: the deadline came first, its site was down tonight (a
    // 5xx after a request's retries), or its site's owner asked not to be read (P26).
    if (o.kind === "deadline" || o.kind === "site-down" || failed.kind === "left-alone")
      outcome = failed;
    else {
      outcome = {
        kind: "recheck-still-no",
        reason: `${failed.kind}${failed.reason ? `: ${failed.reason}` : ""}`,
        url: o.url,
      };
      if (failed.evidence) outcome.evidence = failed.evidence;
      if (failed.status !== undefined) outcome.status = failed.status;
    }
  }
  return {
    sourceId: source.id,
    outcome,
    records: [],
    validators: [],
    // P25: the recheck asks the source's own page, never an alternate.
    way: { used: wayUsed(source), skipped: [] },
    flags,
    startedAt,
    endedAt: clock.now(),
  };
}
