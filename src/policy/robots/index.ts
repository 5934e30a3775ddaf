/** robots.txt for public-records-check: RFC 9309 plus P16, P17 and P20. Pure, no I/O. */
export { parsedBodiesCached, parseRobotsCached } from "./body-cache.js";
export {
  robotsCopyServes,
  robotsCopyServesUntil,
  type StoredRobotsAnswer,
  unreachableHolds,
} from "./copy-age.js";
export { type DecodedRobots, decodeRobotsBody, ROBOTS_READ_BYTES } from "./decode.js";
export {
  classifyRobotsAnswer,
  pathAndQueryOf,
  type RobotsFetchResult,
  type RobotsVerdict,
  robotsUrlFor,
  robotsVerdict,
} from "./fetch-state.js";
export { type RobotsKey, recogniseKey } from "./keys.js";
export { compilePattern, normalisePath, normalisePattern, patternMatches } from "./match.js";
export {
  agentToken,
  type ParsedRobots,
  parseCrawlDelay,
  parseRobots,
  type RobotsGroup,
  type RobotsRule,
} from "./parse.js";
export { isAllowed, policyFor, type RobotsPolicy } from "./policy.js";
