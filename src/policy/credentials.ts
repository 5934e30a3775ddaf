/**
 * P3: the one rule for what counts as a credential in a request, shared by the catalog (which
 * refuses a source that asks for one), the form builder (which refuses to submit a form that
 * would send one) and the fetch pipeline's URL check (which never sends one, whatever built the
 * request: the catalog, a redirect, a next link, a form, a robots.txt redirect, a recheck).
 * Pure: names and values in, the reason out. A reason names the parameter, never its value.
 */

/**
 * Query or form parameter names that carry a secret, compared as `credentialName` folds them
 * (case, `-`, `_` and `.` aside: `API_KEY`, `api-key` and `apiKey` are one name).
 */
const NAMES = [
  "key",
  "apikey",
  "apitoken",
  "token",
  "accesstoken",
  "authtoken",
  "idtoken",
  "refreshtoken",
  "sessiontoken",
  "bearer",
  "authorization",
  "password",
  "passwd",
  "pwd",
  "pw",
  "pass",
  "passcode",
  "secret",
  "clientsecret",
  "privatekey",
  "sig",
  "signature",
];

/** The names, as written in the catalog's documentation (folded: see `credentialName`). */
export const CREDENTIAL_PARAMS: ReadonlySet<string> = new Set(NAMES);

/** A parameter name folded for comparison: lower case, without `-`, `_` and `.`. */
function credentialName(name: string): string {
  return name.toLowerCase().replace(/[-_.]/g, "");
}

/** Whether a query or form parameter of this name carries a secret (P3). */
export function isCredentialParam(name: string): boolean {
  return CREDENTIAL_PARAMS.has(credentialName(name));
}

/**
 * The first parameter that would send a credential: its name is a credential's and it carries
 * a value (an empty `token=` sends no secret). Undefined when none does.
 */
export function credentialEntry(entries: Iterable<[string, string]>): string | undefined {
  for (const [name, value] of entries) if (value !== "" && isCredentialParam(name)) return name;
  return undefined;
}

const FORM_URLENCODED = /^application\/x-www-form-urlencoded\s*(;|$)/i;
const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i;

/** The names and values of a JSON body's members, at any depth (scalars as text). */
function* jsonEntries(value: unknown): Generator<[string, string]> {
  if (Array.isArray(value)) {
    for (const v of value) yield* jsonEntries(v);
  } else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) {
      if (v !== null && typeof v === "object") yield* jsonEntries(v);
      else yield [k, v === null || v === undefined ? "" : String(v)];
    }
  }
}

/**
 * Why a request must not be sent because it carries a credential (P3), or undefined when it
 * carries none: user-info in its URL, a credential parameter with a value in its query, or in
 * its body (a form's, urlencoded; an API preset's, JSON). A body the checker cannot read for
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
  const inQuery = credentialEntry(url.searchParams);
  if (inQuery !== undefined)
    return `URL carries the credential query parameter ${JSON.stringify(inQuery)} (keys, tokens and passwords are never sent, P3): not asked`;
  if (body === undefined || body === "") return undefined;
  let entries: Iterable<[string, string]>;
  if (contentType === undefined || FORM_URLENCODED.test(contentType)) {
    entries = new URLSearchParams(body);
  } else if (JSON_TYPE.test(contentType)) {
    try {
      entries = jsonEntries(JSON.parse(body));
    } catch {
      return "its JSON body does not parse, so it cannot be read for credentials (P3): not sent";
    }
  } else {
    return `its body is ${contentType}, which the checker cannot read for credentials (P3): not sent`;
  }
  const inBody = credentialEntry(entries);
  return inBody === undefined
    ? undefined
    : `its body carries the credential field ${JSON.stringify(inBody)} (keys, tokens and passwords are never sent, P3): not sent`;
}
