/**
 * The loopback test fleet, for any test that needs to watch the checker from the server's
 * side: `startFleet()` for servers on 127.0.0.x, `routes` for scripted behaviour, `gaps` for
 * the timing a site owner would read off their log, `harness()` to wire fetchers to it.
 */
export {
  type Fleet,
  type FleetServer,
  type Handler,
  notFound,
  type SeenRequest,
  startFleet,
  TLS_HOST,
} from "./fleet.js";
export { describe as describeRequests, gaps, minGap, neverOverlapped } from "./gaps.js";
export { type Harness, type HarnessOptions, harness } from "./harness.js";
export * as routes from "./routes.js";
