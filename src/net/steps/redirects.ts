import { MAX_REDIRECTS } from "../../policy/constants.js";
import { type Call, final, type Reply, type Step } from "../pipeline.js";
import { nextHop } from "../redirects.js";

/**
 * P19: follows a redirect that a step below answered with, at most five in a row. Each hop is
 * a new request through every step below (closed site, robots.txt of the hop's origin,
 * validators, headers, retries, the hop's site gate, …), so a hop to another origin reads
 * that origin's robots.txt first. `nextHop` checks the Location as the URL check does (P3)
 * and says which method and body the hop carries (RFC 9110 §15.4). A robots.txt request follows its redirects here too (RFC 9309 §2.3.1.2);
 * classify ends its sixth hop as unreachable (P20), and its hops stay "robots" in the log.
 */
export const redirects: () => Step = () => (next) => async (first) => {
  let call = first;
  const chain: string[] = [];
  for (let hops = 0; hops <= MAX_REDIRECTS; hops++) {
    const reply = await next(call);
    if (reply.kind !== "redirect") return reply;
    chain.push(call.url);
    const stop = (reason: string): Reply => ({
      kind: "final",
      outcome: { kind: "error", url: call.url, status: reply.status, reason },
      got: reply.got,
    });
    if (hops === MAX_REDIRECTS) return stop("too many redirects");
    const to = nextHop(call, reply.status, reply.location);
    if (!to.ok) return stop(to.reason);
    const { body: _body, contentType: _type, ...rest } = call;
    call = {
      ...rest,
      ...to.hop,
      chain: [...chain],
      purpose: call.robotsFor !== undefined ? "robots" : "redirect",
      headers: {},
    } satisfies Call;
  }
  // Unreachable: the loop returns on its last round.
  return final({ kind: "error", url: call.url, status: null, reason: "too many redirects" });
};
