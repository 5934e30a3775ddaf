/**
 * P3: the catalog refuses any source that asks for credentials — URL user-info, credential
 * query parameters, and header-like keys (Authorization, Cookie, …) anywhere in the file,
 * whatever key they sit under. This pass reads the YAML tree itself, so a credential is
 * refused even where the schema would only say "unknown key".
 */
import type { Node } from "yaml";
import { isCredentialParam, matrixEntries, queryEntries } from "../../policy/credentials.js";
import { isMap, isPair, isScalar, isSeq } from "../../yaml.js";
import type { CatalogProblem, Located, PathKey } from "./problems.js";

/** Keys that mean "send a header" or "sign in" (P3 never sends them). */
const CREDENTIAL_KEY =
  /^(authorization|proxy-authorization|cookies?|set-cookie|headers?|x-api-key|api[-_]?key|(access|auth|bearer)[-_]?token|token|bearer|secret|client[-_]?secret|username|login)$|pass(word|wd)/i;

const AUTH_VALUE = /^\s*(bearer|basic|digest|token)\s+\S{8,}/i;

/**
 * Why a URL-looking string is refused, or undefined when it is fine. Its credential query
 * parameters are the one rule's (policy/credentials.ts `isCredentialParam`), the one the fetch
 * pipeline holds every request to whatever built it; the catalog is stricter with what is
 * written in it: such a parameter is refused there even with no value.
 */
export function urlCredentialProblem(value: string): string | undefined {
  const s = value.trim();
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(s) && !s.startsWith("//")) return undefined;
  let u: URL;
  try {
    u = new URL(s, "https://placeholder.invalid/");
  } catch {
    return undefined; // not a URL: the schema says so where a URL is expected
  }
  if (u.username || u.password)
    return "URL carries user-info (user:password@); the checker never signs in (P3)";
  // An empty one (`http://:@host/`, `http://@host/`) the parser drops, so the address used would
  // not be the one written: it is user-info still, refused the same way.
  const authority =
    s
      .replace(/^[a-z][a-z0-9+.-]*:/i, "")
      .slice(2)
      .split(/[/?#\\]/, 1)[0] ?? "";
  const at = authority.lastIndexOf("@");
  if (at >= 0)
    return `URL carries user-info (${JSON.stringify(authority.slice(0, at + 1))}, empty, which the URL parser drops); the checker never signs in (P3)`;
  for (const [name] of queryEntries(u.search)) {
    if (isCredentialParam(name))
      return `URL carries the credential query parameter "${name}"; the checker never sends keys or tokens (P3)`;
  }
  for (const [name] of matrixEntries(u.pathname)) {
    if (isCredentialParam(name))
      return `URL carries the credential parameter "${name}" in its path; the checker never sends keys or tokens (P3)`;
  }
  return undefined;
}

export function findCredentials(loc: Located): CatalogProblem[] {
  const out: CatalogProblem[] = [];
  const walk = (node: unknown, path: PathKey[]): void => {
    if (isMap(node)) {
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const key = isScalar(pair.key) ? String(pair.key.value) : undefined;
        if (key !== undefined && CREDENTIAL_KEY.test(key)) {
          out.push(
            loc.problem(
              path,
              `"${key}" is a credential or header; the catalog lists public pages only and the checker never sends credentials, cookies or custom headers (P3)`,
              key,
            ),
          );
          continue;
        }
        walk(pair.value, key === undefined ? path : [...path, key]);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => {
        walk(item, [...path, i]);
      });
    } else if (isScalar(node) && typeof node.value === "string") {
      const why = urlCredentialProblem(node.value);
      if (why) out.push(loc.problem(path, why));
      else if (AUTH_VALUE.test(node.value))
        out.push(
          loc.problem(path, "looks like an Authorization value; the checker never sends one (P3)"),
        );
    }
  };
  walk((loc.doc as { contents: Node | null }).contents, [...loc.frame.prefix]);
  return out;
}
