/**
 * What a person typed for a site that no URL can be made of, said for what it is rather than
 * as "no host name can be read from it": a port no URL may have (more than 65535, as the
 * catalog says it), or an IPv6 address written without the brackets a URL puts it in.
 */
import { isIP } from "node:net";

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/** Why `text` names no site when it is one of those, else undefined (the caller's reason holds). */
export function siteInputProblem(text: string): string | undefined {
  const t = text.trim();
  const rest = t.replace(SCHEME, "");
  const authority = rest.split(/[/?#\\]/, 1)[0] ?? "";
  const host = authority.slice(authority.lastIndexOf("@") + 1);
  if (isIP(host) === 6 || (!SCHEME.test(t) && isIP(rest) === 6))
    return `an IPv6 address is written in brackets: type ${bracketed(isIP(host) === 6 ? host : rest)}`;
  const port = /^(?:\[[^\]]*\]|[^:[\]]*):(.*)$/.exec(host)?.[1];
  if (port === undefined || port === "") return undefined;
  if (!/^[0-9]+$/.test(port)) return `its port "${port}" is not a number`;
  return Number(port) > 65535
    ? `its port ${port} is impossible: more than 65535, the largest there is`
    : undefined;
}

/** The address as a URL writes it: in brackets, lower-case and compressed where it can be. */
function bracketed(address: string): string {
  try {
    return new URL(`http://[${address}]/`).hostname;
  } catch {
    return `[${address}]`; // a zone (fe80::1%eth0), which URLs do not take
  }
}
