import type { Step } from "../pipeline.js";
import type { Validators } from "../types.js";

/**
 * P12: conditional requests. The first request sends the validators its caller has (the
 * archive's index, or the cached robots.txt's); a GET redirect hop asks for its own URL's (a
 * page that moved keeps its copy under its new URL); nothing else sends any. Identity turns
 * them into If-None-Match / If-Modified-Since; the journal logs what was sent.
 */
export const validators: () => Step = () => (next) => async (call) => {
  const v =
    call.chain.length === 0
      ? call.validators
      : call.method === "GET"
        ? await call.validatorsFor?.(call.url)
        : undefined;
  const sent = validatorsSent(v);
  return next(sent ? { ...call, validatorsSent: sent } : call);
};

/** What is actually sent as conditionals (empty values are not). */
export function validatorsSent(v: Validators | undefined): Validators | undefined {
  if (!v?.etag && !v?.lastModified) return undefined;
  return {
    ...(v.etag ? { etag: v.etag } : {}),
    ...(v.lastModified ? { lastModified: v.lastModified } : {}),
  };
}
