/**
 * `--resolve host:port:address` pins (curl's convention), parsed by one function for every
 * place that reads them: the CLI checks them before a command opens anything
 * (src/cli/net-options.ts), and the transport and the fetcher's options use the same parse,
 * so what the command accepted is what the night connects to.
 */
import { isIP } from "node:net";
import { ConfigError } from "../errors.js";

export type Pins = ReadonlyMap<string, string>;

/** A host name as a URL holds one: labels of letters, digits, `-` and `_`, split by dots. */
const HOST = /^[a-z0-9_-]+(?:\.[a-z0-9_-]+)*$/i;

/**
 * Parses `host:port:address` pins: a host name, a port from 1 to 65535 and an IP address (an
 * IPv6 one with or without brackets). A bad pin is broken configuration, named in the error.
 */
export function parsePins(resolve: readonly string[] = []): Pins {
  const pins = new Map<string, string>();
  for (const pin of resolve) {
    const bad = (why: string) =>
      new ConfigError(`--resolve "${pin}": ${why} (expected host:port:address)`);
    const first = pin.indexOf(":");
    const second = first < 0 ? -1 : pin.indexOf(":", first + 1);
    if (second < 0) throw bad("not three parts");
    const host = pin.slice(0, first);
    const port = pin.slice(first + 1, second);
    const raw = pin.slice(second + 1);
    if (!HOST.test(host)) throw bad(`"${host}" is not a host name`);
    const n = Number(port);
    if (!/^\d{1,5}$/.test(port) || n < 1 || n > 65_535)
      throw bad(`the port "${port}" is not a number from 1 to 65535`);
    const address = raw.replace(/^\[(.*)\]$/, "$1");
    if (address === "" || isIP(address) === 0) throw bad(`"${raw}" is not an IP address`);
    pins.set(`${host.toLowerCase()}:${n}`, address);
  }
  return pins;
}
