/**
 * The options `nor serve` and `nor start` share for the directory they serve: the public origin
 * its feeds, calendar, robots.txt and sitemap link to (never the request's Host header), and,
 * behind a reverse proxy, the header that names the client for the console's sign-in limit.
 */
import type { Command } from "commander";
import type { Context } from "hono";
import { UsageError } from "../errors.js";
import { headerAddress } from "../web/console/auth.js";

export interface WebCliOptions {
  origin?: string;
  clientAddressHeader?: string;
}

export function addWebOptions(cmd: Command): Command {
  return cmd
    .option(
      "--client-address-header <name>",
      "behind a reverse proxy: the header it sets to the client's address (e.g. X-Real-IP; of a list, the last entry), for the console's sign-in limit",
    )
    .option(
      "--origin <url>",
      "the public origin (e.g. https://newonrecord.com): links in feeds, calendars and the sitemap, and the console's CSRF check; default: the address listened on",
    );
}

/** The checked options; a bad one is a usage error before anything is opened or written. */
export function webOptions(opts: WebCliOptions): {
  origin?: string;
  clientAddress?: (c: Context) => string;
} {
  return {
    ...(opts.origin !== undefined ? { origin: originOption(opts.origin) } : {}),
    ...(opts.clientAddressHeader !== undefined
      ? { clientAddress: clientAddressHeader(opts.clientAddressHeader) }
      : {}),
  };
}

/**
 * The client's address as the operator's own proxy reports it (the last entry of the header:
 * src/web/console/auth.ts). Only for a server reached through that proxy: anyone can write the
 * header otherwise.
 */
function clientAddressHeader(name: string): (c: Context) => string {
  if (!/^[A-Za-z0-9-]+$/.test(name))
    throw new UsageError(`--client-address-header: "${name}" is not a header name`);
  return headerAddress(name);
}

function originOption(text: string): string {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new UsageError(`--origin must be a URL such as https://newonrecord.com, not "${text}"`);
  }
  if (u.protocol !== "https:" && u.protocol !== "http:")
    throw new UsageError(`--origin must be an http(s) origin, not "${text}"`);
  // The directory answers at the root of its origin: a path, a query or a user name would be
  // dropped without a word, and every feed, calendar and sitemap link would miss it.
  const extra = [
    u.username || u.password ? "a user name" : "",
    u.pathname !== "/" ? `the path ${u.pathname}` : "",
    u.search ? "a query" : "",
    u.hash ? "a fragment" : "",
  ].filter((x) => x !== "");
  if (extra.length > 0) {
    // A password is not written back to the terminal, nor to the journal that keeps stderr.
    const shown = u.password
      ? `${u.protocol}//${u.username}:…@${u.host}${u.pathname}${u.search}${u.hash}`
      : text;
    throw new UsageError(
      `--origin is the public origin alone, scheme, host and port (e.g. https://newonrecord.com): "${shown}" has ${extra.join(", ")}, which no link of the directory would carry (it answers at the root of its origin)`,
    );
  }
  return u.origin;
}

/** `http://127.0.0.1:8080`, with brackets for an IPv6 host: where we listen, until we know. */
export function listeningOrigin(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}
