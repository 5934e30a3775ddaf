/**
 * A GET asked with the stored validators of its URL (and of each redirect hop's URL, P12),
 * whose 304 is answered from the copy we hold (P8). When that copy is gone or unreadable the
 * page is asked for once more in full and stored anew. Validators are sent only when the store
 * can give a copy back; otherwise a 304 could not be filled in.
 */
import type { Fetcher, FetchOutcome, FetchRequest } from "../net/types.js";
import { keptAs, type ValidatorStore } from "./reader.js";

export type PageOrCopy =
  | {
      kind: "read";
      body: Uint8Array;
      url: string;
      contentType?: string;
      /** The site's answer it stands for (a 200, or a 304 read from the copy): P11 its redirects. */
      answer: FetchOutcome;
    }
  | { kind: "failed"; outcome: Exclude<FetchOutcome, { kind: "ok" }> };

export async function fetchOrCopy(
  fetcher: Fetcher,
  validators: ValidatorStore | undefined,
  req: FetchRequest,
): Promise<PageOrCopy> {
  const storedCopy = validators?.storedCopy?.bind(validators);
  const asked: FetchRequest = { ...req };
  if (validators && storedCopy) {
    const v = await validators.get(keptAs(req.url));
    if (v && (v.etag || v.lastModified)) asked.validators = v;
    asked.validatorsFor = (url) => validators.get(url);
  }
  let o = await fetcher.fetch(asked);
  if (o.kind === "not-modified" && storedCopy) {
    // The 304 is about the URL that answered it (after any redirect); its copy is there.
    const copy = await storedCopy(o.url);
    if (copy && !("lost" in copy)) return read(copy.body, copy.url, copy.contentType, o);
    o = await fetcher.fetch(req);
  }
  return o.kind === "ok"
    ? read(o.body, o.url, o.headers["content-type"], o)
    : { kind: "failed", outcome: o };
}

/** The page, with the Content-Type its bytes are read by (their charset). */
function read(
  body: Uint8Array,
  url: string,
  contentType: string | undefined,
  answer: FetchOutcome,
): PageOrCopy {
  return contentType === undefined
    ? { kind: "read", body, url, answer }
    : { kind: "read", body, url, contentType, answer };
}
