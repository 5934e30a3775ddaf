/**
 * The three files of undici that the transport imports by path (transport-undici.ts says
 * why): their types are those undici's index gives the same values.
 */
declare module "undici/lib/dispatcher/agent.js" {
  import type { Agent } from "undici";

  const agent: typeof Agent;
  export default agent;
}

declare module "undici/lib/core/connect.js" {
  import type { buildConnector } from "undici";

  const connector: typeof buildConnector;
  export default connector;
}

declare module "undici/lib/core/util.js" {
  /** undici's own: raw header pairs as an object of lower-case names (set-cookie an array). */
  export function parseHeaders(
    headers: (Buffer | string)[],
    obj?: Record<string, string | string[]>,
  ): Record<string, string | string[]>;
  const util: { parseHeaders: typeof parseHeaders };
  export default util;
}
