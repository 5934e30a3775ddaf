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

declare module "undici/lib/api/api-request.js" {
  import type { Dispatcher } from "undici";

  const request: (
    this: Dispatcher,
    opts: Dispatcher.RequestOptions,
  ) => Promise<Dispatcher.ResponseData>;
  export default request;
}
