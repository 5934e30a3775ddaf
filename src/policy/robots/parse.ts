import { decodeRobotsBody } from "./decode.js";
import { lexLine, splitLines } from "./lines.js";
import { normalisePattern } from "./match.js";

export interface RobotsRule {
  allow: boolean;
  /** Normalised (match.ts normalisePattern); never empty. */
  pattern: string;
}

export interface RobotsGroup {
  /**
   * The group's product tokens, as policy.ts compares them: `*`, or the value's leading
   * `[A-Za-z_-]` run in lower case (`Foobot/2.1` → `foobot`, as Google reads it). A value
   * with no such run is kept as "" and matches no one.
   */
  agents: string[];
  rules: RobotsRule[];
  crawlDelaySeconds?: number;
}

export interface ParsedRobots {
  groups: RobotsGroup[];
  sitemaps: string[];
}

/**
 * Parses a robots.txt body (RFC 9309 §2.2, P17). Never throws and runs in linear time on any
 * input; lines.ts reads a single line.
 *
 * Bytes are a file as served or saved: decode.ts decodes them (BOM, 500 KiB limit, bytes
 * that are not UTF-8). A string is text decode.ts already produced, such as the robots
 * cache's copy, and is parsed as it is: never decoded, BOM-stripped or cut a second time, so
 * the night and `nor robots check` read the same bytes the same way (P16–P18).
 *
 * Grouping (§2.1, §2.2): consecutive user-agent lines open one group, blank lines never end
 * it, and only a user-agent line that comes after a rule starts the next one. Sitemap,
 * Crawl-delay and unknown lines change nothing about grouping (§2.2.4 "MUST NOT terminate a
 * group"). Rules before the first user-agent line are ignored (§2.2.2). An empty Allow or
 * Disallow matches nothing and is dropped, but still closes the user-agent list.
 */
export function parseRobots(input: Uint8Array | string): ParsedRobots {
  const text = typeof input === "string" ? input : decodeRobotsBody(input).text;
  const groups: RobotsGroup[] = [];
  const sitemaps: string[] = [];
  let group: RobotsGroup | undefined;
  let inRules = false;

  for (const raw of splitLines(text)) {
    for (const { key, value } of lexLine(raw)) {
      switch (key) {
        case "user-agent":
          if (group === undefined || inRules) {
            group = { agents: [], rules: [] };
            groups.push(group);
            inRules = false;
          }
          group.agents.push(agentToken(value));
          break;
        case "allow":
        case "disallow":
          if (group === undefined) break;
          inRules = true;
          if (value.length > 0) {
            group.rules.push({ allow: key === "allow", pattern: normalisePattern(value) });
          }
          break;
        case "crawl-delay": {
          const seconds = parseCrawlDelay(value);
          if (group !== undefined && seconds !== undefined) {
            group.crawlDelaySeconds = Math.max(group.crawlDelaySeconds ?? 0, seconds);
          }
          break;
        }
        case "sitemap":
          if (value.length > 0) sitemaps.push(value);
          break;
      }
    }
  }
  return { groups, sitemaps };
}

const TOKEN_HEAD = /^[A-Za-z_-]*/;
/** `*` alone, or followed by a blank and more (Google reads `* bots` as the global group). */
const GLOBAL = /^\*(?:$|[ \t\v\f])/;

/**
 * §2.2.1: the product token is letters, `_` and `-`. `*` is the global group, and so is `*`
 * followed by a blank (`* bots`), as Google reads it. Any other value starting with `*`
 * (`*bot`, or `*` then `/1.0`) names some other agent and has no token we answer to: merged
 * into the `*` group, its `Allow: /` would tie a `Disallow: /` there and win the tie (P16).
 */
export function agentToken(value: string): string {
  if (GLOBAL.test(value)) return "*";
  return (TOKEN_HEAD.exec(value)?.[0] ?? "").toLowerCase();
}

const DECIMAL = /^(?:\d+(?:\.\d*)?|\.\d+)$/;

/**
 * Crawl-delay is not in the RFC (an "other record", §2.2.4). We take a non-negative finite
 * decimal number of seconds and ignore anything else (`""`, `-1`, `10s`, `0x10`, `1e3`).
 */
export function parseCrawlDelay(value: string): number | undefined {
  if (!DECIMAL.test(value)) return undefined;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
}
