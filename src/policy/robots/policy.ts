import { compilePattern, normalisePath } from "./match.js";
import { agentToken, type ParsedRobots, type RobotsGroup, type RobotsRule } from "./parse.js";

/** The rules that apply to one agent on one origin (P16). */
export interface RobotsPolicy {
  /** Sorted by policyFor: longest pattern first, Allow before Disallow at equal length. */
  rules: RobotsRule[];
  crawlDelaySeconds?: number;
}

/** Per parsed file, the policy per agent token: the fetcher asks for the same pair often. */
const policyCache = new WeakMap<ParsedRobots, Map<string, RobotsPolicy>>();

/**
 * Chooses the rules for `agent` (RFC 9309 §2.2.1, P16). `agent` may be the product token or a
 * whole User-Agent header; its leading `[A-Za-z_-]` run is the token. A group applies when
 * one of its tokens equals ours ignoring case (whole-token equality, never a prefix). All
 * groups naming us merge; only when none does do the `*` groups apply (merged too). A group
 * naming us replaces `*` entirely, even when it has no rules (then everything is allowed).
 * Crawl-delay is the largest any selected group sets.
 */
export function policyFor(parsed: ParsedRobots, agent: string): RobotsPolicy {
  const token = agentToken(agent.trim());
  // A `*…` agent string is not a product token: it must not claim the global group as "ours".
  const ours = token === "*" ? "" : token;
  let byAgent = policyCache.get(parsed);
  if (byAgent === undefined) {
    byAgent = new Map();
    policyCache.set(parsed, byAgent);
  }
  const cached = byAgent.get(ours);
  if (cached !== undefined) return cached;

  let selected = ours === "" ? [] : parsed.groups.filter((g) => g.agents.includes(ours));
  if (selected.length === 0) selected = parsed.groups.filter((g) => g.agents.includes("*"));
  const policy = mergeGroups(selected);
  byAgent.set(ours, policy);
  return policy;
}

/** Longest pattern first; at equal length Allow first (RFC 9309 §2.2.2: Allow wins ties). */
function bySpecificity(a: RobotsRule, b: RobotsRule): number {
  return b.pattern.length - a.pattern.length || Number(b.allow) - Number(a.allow);
}

function mergeGroups(groups: RobotsGroup[]): RobotsPolicy {
  const seen = new Set<string>();
  const rules: RobotsRule[] = [];
  let delay: number | undefined;
  for (const g of groups) {
    for (const r of g.rules) {
      // §2.2.2 "MAY be deduplicated": same pattern and kind is the same rule.
      const id = `${r.allow ? "A" : "D"}${r.pattern}`;
      if (seen.has(id)) continue;
      seen.add(id);
      rules.push(r);
    }
    if (g.crawlDelaySeconds !== undefined) delay = Math.max(delay ?? 0, g.crawlDelaySeconds);
  }
  rules.sort(bySpecificity);
  return delay === undefined ? { rules } : { rules, crawlDelaySeconds: delay };
}

/** A policy's rules, compiled and sorted once; keyed by the rules array. */
interface CompiledRules {
  count: number;
  rules: { allow: boolean; test: (path: string) => boolean }[];
}
const compiledCache = new WeakMap<RobotsRule[], CompiledRules>();

function compiled(rules: RobotsRule[]): CompiledRules {
  const hit = compiledCache.get(rules);
  // Policies are meant to be immutable; the count check at least catches an appended rule.
  if (hit !== undefined && hit.count === rules.length) return hit;
  const sorted = rules.filter((r) => r.pattern.length > 0).sort(bySpecificity);
  const c: CompiledRules = {
    count: rules.length,
    rules: sorted.map((r) => ({ allow: r.allow, test: compilePattern(r.pattern) })),
  };
  compiledCache.set(rules, c);
  return c;
}

/**
 * May `pathAndQuery` be requested under `policy`? (RFC 9309 §2.2.2, P17, P18.)
 * The most specific rule wins, measured as the normalised pattern's length (so `Allow: /*`
 * loses to `Disallow: /ab` on `/abc`); Allow wins a tie; no matching rule means allowed;
 * `/robots.txt` itself is always allowed. Rules are tried longest first, Allow first at
 * equal length, so the first match decides.
 */
export function isAllowed(policy: RobotsPolicy, pathAndQuery: string): boolean {
  const path = normalisePath(pathAndQuery);
  if (path === "/robots.txt") return true;
  for (const rule of compiled(policy.rules).rules) {
    if (rule.test(path)) return rule.allow;
  }
  return true;
}
