import type { Handler } from "../pipeline.js";
import type { Transport } from "../types.js";

/**
 * The innermost handler: one HTTP request, exactly as the steps above made it (method, the
 * normal-form URL, exactly our headers, the form body), nothing followed, nothing decoded.
 * The default transport is undici with the address guard in its connector (P3, P22).
 */
export function send(transport: Transport): Handler {
  return async (call) => {
    const result = await transport({
      method: call.method,
      url: call.url,
      headers: call.headers,
      ...(call.body !== undefined ? { body: call.body } : {}),
      ...(call.signal ? { signal: call.signal } : {}),
    });
    // Cut off by the caller's stop before any answer came: not the site's answer, so nothing
    // above judges it (the journal step records the attempt as interrupted). An answer whose
    // head came goes up: what its head says (a 503's Retry-After, a 403) is the site's word and
    // is journaled (head-wait.ts); its body, cut by the stop, is said by limits.ts.
    if (result.kind !== "response") call.signal?.throwIfAborted();
    return { kind: "raw", result };
  };
}
