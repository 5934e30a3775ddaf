/**
 * P11, P4: where a night first asks each way in of a source, before anything is sent: the one
 * decision of it, the night's (check-source.ts firstRequestOf) and the directory's word on
 * whether a site owner's request leaves the page unread (left-alone.ts, P26).
 */
import type { Purpose } from "../net/types.js";
import type { WayIn } from "../sources/catalog/types.js";
import { movedFrom } from "./moves.js";
import { isGenericForm, keptAs, type WayReader } from "./reader.js";
import type { MoveChange, Moved, PageRequest } from "./types.js";

/**
 * A way's first request as a night asks it (firstRequestOf). `plain`: a GET of the way's own
 * first page, whose answer says whether it moved (moves.ts moveChange, once read); `move`: where
 * it is asked instead of its catalog URL (P11); `change`: what a form page's answer, read at
 * the opening, changed of that move.
 */
export interface Opened {
  req: PageRequest;
  purpose: Purpose;
  plain: boolean;
  move?: Moved;
  change?: MoveChange;
}

/**
 * What a night asks first of a way (firstRequestOf), before anything is sent: a generic form's
 * page (`form`, at `url`), else the reader's first request. P11: a way's own first page (a plain
 * GET of the catalog's URL: a page, a feed, the page of a search form) that answered a permanent
 * redirect on an earlier night is asked where it moved (its robots.txt, validators and gap as for
 * any URL). The one decision of where a way is first asked: the night's, and the directory's
 * word on whether a site owner's request leaves the page unread (left-alone.ts, P26).
 */
export function firstAsk(
  reader: Pick<WayReader, "firstRequest">,
  way: WayIn,
  moved: readonly Moved[] | undefined,
  now: number,
): ({ kind: "request" } & Opened) | { kind: "form"; url: string; move?: Moved } {
  const move = movedFrom(moved, way.url);
  if (isGenericForm(way))
    return { kind: "form", url: move?.to ?? way.url, ...(move ? { move } : {}) };
  const req = reader.firstRequest(way, now);
  // The catalog's URL as it is sent (a platform's first request writes it in its normal form).
  const plain =
    (req.method ?? "GET") === "GET" &&
    req.body === undefined &&
    (req.url === way.url || keptAs(req.url) === keptAs(way.url));
  if (!plain) return { kind: "request", req, purpose: "page", plain };
  return move
    ? { kind: "request", req: { ...req, url: move.to }, purpose: "page", plain, move }
    : { kind: "request", req, purpose: "page", plain };
}

/** The address a night first asks of a way (firstAsk): its form's page, or its first request. */
export function firstAskedUrl(
  reader: Pick<WayReader, "firstRequest">,
  way: WayIn,
  moved: readonly Moved[] | undefined,
  now: number,
): string {
  const first = firstAsk(reader, way, moved, now);
  return first.kind === "form" ? first.url : first.req.url;
}
