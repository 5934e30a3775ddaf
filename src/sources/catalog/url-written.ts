/**
 * P3: the address fetched, stored and shown is the one written. The URL parser rewrites more
 * than a backslash or a scheme without its `//` (schema.ts, urlSpellingProblem): it sends a
 * space as `%20`, drops a tab or a line break, resolves `/../`, drops an empty port and reads
 * `:0080` as the default port. An http(s) address the catalog fetches (a source's `url`, its
 * alternates', a government's `website`) must be written as the parser writes it, but for what
 * does not change the address: the case of the scheme and host, a `/` after a bare origin, the
 * scheme's default port written out (`:443`), and characters beyond ASCII, which no URL can
 * send and the parser sends percent-encoded in UTF-8 (`é` is `%C3%A9`). Its host is judged by
 * the rule `nor site` reads one with (policy/site.ts readSite, in load.ts), and user-info, even
 * empty, is a credential (credentials.ts). No imports: `nor discover` uses it too.
 */

/** Controls the catalog refuses in any text (load.ts says so, with their code point). */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/** Characters beyond ASCII percent-encoded in UTF-8, upper-case, as the URL parser sends them. */
function encodeBeyondAscii(text: string): string {
  const utf8 = new TextEncoder();
  return text.replace(/[^\u0000-\u007f]+/gu, (run) =>
    [...utf8.encode(run)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join(""),
  );
}

/** `U+00A0`. */
function codePoint(c: string): string {
  return `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * Why an http(s) address (`s`, which `u` is the parse of, starting with `http://` or
 * `https://` and holding no backslash) is not sent as it is written, or undefined. A port of
 * 0, which no server listens on, is said here too: the parser takes it.
 */
export function urlRewriteProblem(s: string, u: URL): string | undefined {
  const m = /^(https?):\/\/([^/?#]*)(.*)$/is.exec(s);
  // Not an http(s) address as written, or a control character (said in its own words).
  if (m === null || CONTROL.test(s)) return undefined;
  const scheme = (m[1] ?? "").toLowerCase();
  const authority = m[2] ?? "";
  const rest = m[3] ?? "";
  const as = ` (the URL parser reads it as ${u.href})`;
  if (/[\t\n\r]/.test(s))
    return `URL contains a tab or a line break, which the URL parser drops${as}: write none (or %09, %0A, %0D for one meant)`;
  if (s.includes(" "))
    return `URL contains a space, which is not sent as written${as}: write %20 for a space meant, or none`;
  const space = /\s/u.exec(s)?.[0];
  if (space !== undefined)
    return `URL contains a white-space character (${codePoint(space)}), shown as a space but sent as ${encodeBeyondAscii(space)}${as}: write ${encodeBeyondAscii(space)} if it is meant`;
  // User-info (`:@`, even empty) is refused as a credential, P3 (credentials.ts).
  if (authority.includes("@")) return undefined;

  const port = /^(?:\[[^\]]*\]|[^:[\]]*):(.*)$/s.exec(authority)?.[1];
  if (port !== undefined) {
    if (/^[0-9]+$/.test(port) && Number(port) === 0)
      return `URL's port ${port} cannot be: no server listens on port 0 (ports are 1 to 65535)`;
    const standard = scheme === "https" ? "443" : "80";
    if (port === "")
      return `URL has a : after its host with no port${as}: write the host without it`;
    if (port !== u.port && !(u.port === "" && port === standard))
      return `URL's port ${port} is not written as the URL parser writes it${as}: write ${u.port === "" ? `${standard}, or none` : u.port}`;
  }

  // Host and port as the parser writes them; the host itself is judged in load.ts (readSite).
  const origin = `${u.protocol}//${u.host}`;
  if (!u.href.startsWith(origin)) return undefined;
  const sent = u.href.slice(origin.length);
  const written = rest.startsWith("/") ? encodeBeyondAscii(rest) : `/${encodeBeyondAscii(rest)}`;
  if (sent === written) return undefined;
  if (/(?:^|\/)(?:\.|%2e){1,2}(?:[/?#]|$)/i.test(rest.split(/[?#]/, 1)[0] ?? ""))
    return `URL's path has a . or .. segment, which the URL parser resolves${as}: write the path it means`;
  const count = (text: string, c: string) => text.split(c).length - 1;
  const encoded = [...new Set(written)].filter(
    (c) => c !== "%" && count(written, c) > count(sent, c),
  );
  if (encoded.length > 0)
    return `URL contains ${encoded.join(" ")}, which the URL parser sends percent-encoded${as}: write ${encoded.map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0")}`).join(" ")}`;
  return `URL is not written as the URL parser writes it${as}: write it so`;
}
