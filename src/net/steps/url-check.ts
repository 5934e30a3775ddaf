import { MAX_REQUEST_BODY_BYTES } from "../../policy/constants.js";
import { requestCredentialProblem } from "../../policy/credentials.js";
import { siteOf } from "../../policy/site.js";
import { final, type Step } from "../pipeline.js";
import { checkUrl } from "../redirects.js";

/**
 * P3: only plain public http(s) URLs, in their one normal form (what robots.txt judges, the
 * request line carries and the log records, P18, P27); a URL with user-info or a credential
 * parameter in its query is refused, never sent stripped, and so is a body that carries a
 * credential field (a form's hidden api_key, a password; policy/credentials.ts, the catalog's
 * rule) or that cannot be read for one. Whatever built the request (the catalog, a next link, a
 * form, a recheck), nothing leaves without this check: refused here, it is never admitted, so
 * it has no row in the request log and is no request sent; its outcome says why, naming the
 * parameter, never its value. A body goes only with POST (P5). This request's site is the one its source's
 * cookies go back to (P22). Redirect hops get the same check from `resolveLocation`. The
 * address guard is not here: it runs in the transport's connector (transport-undici.ts), the
 * one place that sees the address actually connected to.
 *
 * P5, P14: nor does a body longer than MAX_REQUEST_BODY_BYTES leave (a form page's hidden state
 * posted back as given: a 19.7 MB __VIEWSTATE would be a 20 MB POST to a government site). It
 * is refused here, before admission, as a credential is: no row, nothing sent, the outcome naming
 * the URL and the body's size. Checked first, so nothing reads such a body for credentials.
 */
export const urlCheck: () => Step = () => (next) => async (call) => {
  const checked = checkUrl(call.url);
  if (!checked.ok)
    return final({ kind: "error", url: call.url, status: null, reason: checked.reason });
  const tooLong = call.body === undefined ? undefined : bodyTooLong(checked.url.href, call.body);
  if (tooLong !== undefined)
    return final({ kind: "error", url: call.url, status: null, reason: tooLong });
  const credential =
    call.body !== undefined
      ? requestCredentialProblem(checked.url, call.body, call.contentType)
      : undefined;
  if (credential !== undefined)
    return final({ kind: "error", url: call.url, status: null, reason: credential });
  if (call.body !== undefined && call.method !== "POST") {
    return final({
      kind: "error",
      url: call.url,
      status: null,
      reason: "a body is only sent with POST",
    });
  }
  const url = checked.url.href;
  return next({ ...call, url, homeSite: siteOf(url) });
};

/** Why a body is too long to send (its size in bytes as sent, UTF-8), or undefined. */
function bodyTooLong(url: string, body: string): string | undefined {
  // A string of n UTF-16 units is at most 3n bytes in UTF-8: only a long one is counted.
  if (body.length * 3 <= MAX_REQUEST_BODY_BYTES) return undefined;
  const bytes = Buffer.byteLength(body, "utf8");
  if (bytes <= MAX_REQUEST_BODY_BYTES) return undefined;
  return `the request to ${url} would send a body of ${bytes.toLocaleString("en-US")} bytes, more than the ${MAX_REQUEST_BODY_BYTES.toLocaleString("en-US")} (2 MiB) the checker sends (a form page's hidden state, posted back as the page gave it): not sent (P5, P14)`;
}
