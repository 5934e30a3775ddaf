/**
 * P25: a source a person marked not read gets one request to its page on recheck nights (and on
 * the next night that runs after one whose recheck was not reached, P13: run-night.ts), only
 * if robots.txt allows it (the fetcher's gate), keeping no body and taking no records. If it
 * answers (2xx and not a challenge: the fetcher's `ok`), a person is told (answers-again).
 * P11: its page is asked where it moved permanently, as a night asks it (moves.ts): that
 * origin's robots.txt (P18, P19) and its site's gap (P10) as for any request, its validators;
 * never the catalog URL and its redirect again. Its answer changes the move as a night's does.
 */
import type { Clock } from "../clock.js";
import { checkUrl } from "../net/redirects.js";
import type { Fetcher } from "../net/types.js";
import type { Source } from "../sources/catalog/types.js";
import { moveChange, movedFrom, movesLeftBehind } from "./moves.js";
import {
  failureOutcome,
  isSiteClosedReason,
  recheckHopReason,
  recheckRetryOutcome,
} from "./outcome.js";
import { keptAs, type ValidatorStore, waysInOrder } from "./reader.js";
import type { MoveChange, Moved, NightOutcome, SourceResult } from "./types.js";
import { wayUsed } from "./way-choice.js";

export async function recheckSource(
  fetcher: Fetcher,
  clock: Clock,
  source: Source,
  validators?: ValidatorStore,
  moved?: readonly Moved[],
): Promise<SourceResult> {
  const startedAt = clock.now();
  // P11: where its page moved permanently, if it did (the store's word, read before asking).
  const move = movedFrom(moved, source.url);
  const url = move?.to ?? source.url;
  // P12: the page's stored validators go with it; a 304 is an answer as good as a 200.
  const sent = await validators?.get(keptAs(url));
  const o = await fetcher.fetch({
    url,
    purpose: "recheck",
    source: source.id,
    keepBody: false,
    ...(sent && (sent.etag || sent.lastModified) ? { validators: sent } : {}),
  });
  let outcome: NightOutcome;
  const flags: SourceResult["flags"] = [];
  let failed: NightOutcome | undefined;
  // A 304 the recheck did not ask for (no validators: an error to a night's read) is an
  // answer all the same: the site answers again (P25), which is what a recheck asks.
  if (o.kind === "ok" || o.kind === "not-modified" || (o.kind === "error" && o.status === 304)) {
    outcome = { kind: "recheck-answers", status: o.status, url: o.url };
    flags.push({ kind: "answers-again", detail: `answered ${o.status} on recheck` });
  } else {
    failed = failureOutcome(o);
    // P25, P13: its page was asked and answered (a redirect), and the request that had to
    // follow was not sent (its target's site down tonight, the time limit): reached, cut short.
    // Said as that, not `unreached`: a recheck not reached is owed the next night, and this
    // one would be owed every night its target's site stays down, its page asked each time.
    // (The URL as asked is in its one normal form, url-check.ts: the catalog's may not be.)
    const first = checkUrl(url);
    const asked = first.ok ? first.url.href : url;
    const hop = (o.kind === "site-down" || o.kind === "deadline") && o.url !== asked;
    // P25, P15: its page itself answered (a 503, say), and its retry was not sent: its site was
    // found down meanwhile by other traffic to it (another lane's page, after its retries).
    // Reached, cut short, as a redirect's hop not sent is; else owed every night that lasts.
    const retry = !hop && o.kind === "site-down" && o.answered !== undefined;
    // Not asked, so no word on the no: the deadline came first, its site was down tonight (a
    // 5xx after a request's retries), its site's owner asked not to be read (P26), or its site
    // (where it moved: another than its lane's) said no earlier tonight (P21), as a source of a
    // site closed tonight is said.
    if (hop)
      outcome = {
        kind: "cut-short",
        reason: recheckHopReason(url, o.url, failed.reason ?? failed.kind),
        url: o.url,
      };
    else if (retry)
      outcome = recheckRetryOutcome(
        url,
        o.url,
        o.answered?.status ?? null,
        failed.reason ?? failed.kind,
      );
    else if (
      o.kind === "deadline" ||
      o.kind === "site-down" ||
      failed.kind === "left-alone" ||
      (failed.kind === "refused" && isSiteClosedReason(failed.reason))
    )
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
  // P11: a target gone (or refused, disallowed, redirecting elsewhere) is forgotten, as a night
  // forgets it: the next asking goes to the catalog URL (never both tonight); a permanent move
  // found tonight is remembered (and told, P24); a move kept for a URL the catalog no longer
  // lists is forgotten.
  const moves: MoveChange[] = [];
  const change = moveChange(source.url, move, failed, o);
  if (change) moves.push(change);
  moves.push(
    ...movesLeftBehind(
      moved,
      waysInOrder(source).map((w) => w.url),
      moves,
    ),
  );
  // P25: the recheck asks the source's own page, never an alternate.
  const used = wayUsed(source);
  if (move) used.asked = move.to;
  const result: SourceResult = {
    sourceId: source.id,
    outcome,
    records: [],
    validators: [],
    way: { used, skipped: [] },
    flags,
    startedAt,
    endedAt: clock.now(),
  };
  if (moves.length > 0) result.moves = moves;
  return result;
}
