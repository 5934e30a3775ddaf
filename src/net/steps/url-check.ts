import { siteOf } from "../../policy/site.js";
import { final, type Step } from "../pipeline.js";
import { checkUrl } from "../redirects.js";

/**
 * P3: only plain public http(s) URLs, in their one normal form (what robots.txt judges, the
 * request line carries and the log records, P18, P27); a URL with user-info is refused, never
 * sent stripped. A body goes only with POST (P5). This request's site is the one its source's
 * cookies go back to (P22). Redirect hops get the same check from `resolveLocation`. The
 * address guard is not here: it runs in the transport's connector (transport-undici.ts), the
 * one place that sees the address actually connected to.
 */
export const urlCheck: () => Step = () => (next) => async (call) => {
  const checked = checkUrl(call.url);
  if (!checked.ok)
    return final({ kind: "error", url: call.url, status: null, reason: checked.reason });
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
