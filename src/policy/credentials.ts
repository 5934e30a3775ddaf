/**
 * P3: the one rule for what counts as a credential in a request, shared by the catalog (which
 * refuses a source that asks for one), the form builder (which refuses to submit a form that
 * would send one) and the fetch pipeline's URL check (which never sends one, whatever built the
 * request: the catalog, a redirect, a next link, a form, a robots.txt redirect, a recheck).
 * Pure: names and values in, the reason out. A reason names the parameter, never its value.
 */

/**
 * Which parameter names carry a secret, compared as `credentialName` folds them (case, `-`, `_`,
 * `.` and white space aside: `API_KEY`, `api-key` and `apiKey` are one name; of a bracketed or
 * ASP.NET name, `auth[token]`, `ctl00$Main$api_key`, the last part). A folded name is a
 * credential's when it ends in one of these words:
 *
 * - SECRET_WORDS (`secret`, `password`, `credential`, `signature`, …), whatever comes before
 *   them: `client_secret`, `oauth_token_secret`, `txtPassword`, `X-Amz-Credential`,
 *   `X-Amz-Signature`, `oauth_signature`. No public parameter ends so.
 * - KEY_WORDS (`key`, `token`, `sig`, `pass`, `pw`, …) alone, or after nothing but QUALIFIERS
 *   (`api`, `app`, `access`, `auth`, `user`, `subscription`, `private`, `session`, `security`,
 *   gateway prefixes like `x`, `amz`, `ocp`, `apim`, …): `api_key`, `subscription-key`,
 *   `user_key`, `app_key`, `x-api-key`, `access_key`, `private_token`, `oauth_token`,
 *   `X-Amz-Security-Token`, `Ocp-Apim-Subscription-Key`. A key or token under any other word is
 *   a public one: a page's or a list's (`pageToken`, `nextPageToken`, OAI-PMH's
 *   `resumptionToken`, `sortKey`), a form's anti-forgery field (`csrf_token`,
 *   `authenticity_token`, `__RequestVerificationToken`), a public identifier
 *   (`oauth_consumer_key`, as `client_id`; an assessor's `AccountKey`, a parcel's number), or
 *   no key at all (`monkey`, `keyword`, `tokens`).
 * - Or it is one of NAMES (`bearer`, `authorization`, `jwt`, `accesskeyid`, …).
 */
const SECRET_WORDS = [
  "secret",
  "password",
  "passwd",
  "passphrase",
  "credential",
  "credentials",
  "signature",
];

const KEY_WORDS = ["key", "token", "sig", "pass", "pwd", "pw", "passcode", "jwt", "bearer"];

const QUALIFIERS = [
  "x",
  "amz",
  "goog",
  "ms",
  "ocp",
  "apim",
  "api",
  "app",
  "application",
  "access",
  "auth",
  "user",
  "subscription",
  "private",
  "personal",
  "developer",
  "dev",
  "service",
  "master",
  "admin",
  "license",
  "oauth",
  "session",
  "security",
  "refresh",
  "id",
  "bearer",
  "secret",
  "shared",
  "signing",
];

const NAMES = ["bearer", "authorization", "accesskeyid", "awsaccesskeyid"];

/** The words of the rule and its exact names, as written in the catalog's documentation. */
export const CREDENTIAL_PARAMS: ReadonlySet<string> = new Set([
  ...SECRET_WORDS,
  ...KEY_WORDS,
  ...NAMES,
]);

/**
 * A parameter name folded for comparison: lower case, its last bracketed or `$`/`:`-separated
 * part that is no list index (`api_key[0]` is api_key's), without `-`, `_`, `.` and white space
 * (PHP reads `api key` and `api.key` as `api_key`; a query's `+` is a space).
 */
function credentialName(name: string): string {
  const parts = name.toLowerCase().split(/[$:[\]]/);
  let last = "";
  // A list's index (`api_key[0]`, `auth[token][1]`) names no member: PHP reads it as api_key's.
  for (const part of parts) if (part.trim() !== "" && !/^\s*\d+\s*$/.test(part)) last = part;
  return last.replace(/[-_.\s]/g, "");
}

/** Whether `prefix` is nothing but QUALIFIERS, one after another (empty included). */
function onlyQualifiers(prefix: string): boolean {
  // Each step consumes at least one character, so the walk is bounded by the prefix's length.
  const reach = new Array<boolean>(prefix.length + 1).fill(false);
  reach[0] = true;
  for (let at = 0; at < prefix.length; at++) {
    if (!reach[at]) continue;
    for (const q of QUALIFIERS) if (prefix.startsWith(q, at)) reach[at + q.length] = true;
  }
  return reach[prefix.length] === true;
}

/** Whether a query or form parameter of this name carries a secret (P3). */
export function isCredentialParam(name: string): boolean {
  const folded = credentialName(name);
  if (NAMES.includes(folded)) return true;
  if (SECRET_WORDS.some((w) => folded.endsWith(w))) return true;
  return KEY_WORDS.some(
    (w) => folded.endsWith(w) && onlyQualifiers(folded.slice(0, folded.length - w.length)),
  );
}

/**
 * Names a form's POST body carries as its anti-forgery token (folded: Laravel's `_token`, a bare
 * `token`), not a credential: the site hands the same field to every visitor of the public page,
 * and a browser sends it back with the search (P5). Others (`__RequestVerificationToken`,
 * `csrf_token`, `authenticity_token`) are no credential's name to begin with. In a URL's query,
 * where it would be logged and archived, and in a JSON body, `token` stays a credential.
 */
const ANTI_FORGERY = new Set(["token"]);

/**
 * The first parameter that would send a credential: its name is a credential's and it carries
 * a value (an empty `token=` sends no secret). Undefined when none does. In a form's POST body
 * (urlencoded, `formBody`), the form's anti-forgery token is none (see ANTI_FORGERY).
 */
export function credentialEntry(
  entries: Iterable<[string, string]>,
  opts: { formBody?: boolean } = {},
): string | undefined {
  for (const [name, value] of entries)
    if (
      value !== "" &&
      isCredentialParam(name) &&
      !(opts.formBody === true && ANTI_FORGERY.has(credentialName(name)))
    )
      return name;
  return undefined;
}

/**
 * A query's entries as any server may read them: `&` and also `;` between them (Perl's CGI.pm,
 * Python before 3.9.2 and others split on both), so `?from=1;api_key=…` is read for its api_key.
 */
export function queryEntries(search: string): Iterable<[string, string]> {
  return new URLSearchParams(search.replace(/;/g, "&"));
}

/** A path's matrix parameters (`/feed;api_key=…`, which Java servers read), every segment's. */
export function* matrixEntries(pathname: string): Generator<[string, string]> {
  for (const segment of pathname.split("/")) {
    const at = segment.indexOf(";");
    if (at >= 0) yield* new URLSearchParams(segment.slice(at + 1).replace(/;/g, "&"));
  }
}

const FORM_URLENCODED = /^application\/x-www-form-urlencoded\s*(;|$)/i;
const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i;

/**
 * The names and values of a JSON body's members, at any depth (scalars as text). A list's
 * scalars are its member's values (`{"api_key": ["…"]}` sends an api_key), at any depth of lists.
 */
function* jsonEntries(value: unknown, member?: string): Generator<[string, string]> {
  if (Array.isArray(value)) {
    for (const v of value) yield* jsonEntries(v, member);
  } else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) yield* jsonEntries(v, k);
  } else if (member !== undefined) {
    yield [member, value === null || value === undefined ? "" : String(value)];
  }
}

/**
 * Why a request must not be sent because it carries a credential (P3), or undefined when it
 * carries none: user-info in its URL, a credential parameter with a value in its query (split on
 * `&` or `;`) or among its path's matrix parameters (`;api_key=…`), or in
 * its body (a form's, urlencoded, its anti-forgery token aside; an API preset's, JSON). A body the checker cannot read for
 * credentials (another content type, JSON that does not parse) is not sent either: when in
 * doubt, nothing leaves. Words a log or an outcome can carry: the parameter's name, never its
 * value.
 */
export function requestCredentialProblem(
  url: URL,
  body?: string,
  contentType?: string,
): string | undefined {
  if (url.username !== "" || url.password !== "")
    return `URL carries user-info (credentials are never sent, P3): ${url.host}`;
  const inQuery = credentialEntry(queryEntries(url.search));
  if (inQuery !== undefined)
    return `URL carries the credential query parameter ${JSON.stringify(inQuery)} (keys, tokens and passwords are never sent, P3): not asked`;
  const inPath = credentialEntry(matrixEntries(url.pathname));
  if (inPath !== undefined)
    return `URL carries the credential parameter ${JSON.stringify(inPath)} in its path (keys, tokens and passwords are never sent, P3): not asked`;
  if (body === undefined || body === "") return undefined;
  let inBody: string | undefined;
  if (contentType === undefined || FORM_URLENCODED.test(contentType)) {
    inBody = credentialEntry(queryEntries(body), { formBody: true });
  } else if (JSON_TYPE.test(contentType)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return "its JSON body does not parse, so it cannot be read for credentials (P3): not sent";
    }
    inBody = credentialEntry(jsonEntries(parsed));
  } else {
    return `its body is ${contentType}, which the checker cannot read for credentials (P3): not sent`;
  }
  return inBody === undefined
    ? undefined
    : `its body carries the credential field ${JSON.stringify(inBody)} (keys, tokens and passwords are never sent, P3): not sent`;
}
