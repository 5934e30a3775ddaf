/** P21: the shapes shared by the refusal rules (see refusal.ts for the decision order). */

/** "The site said no": which kind, whose page, what matched, and the vendor's reference id. */
export interface RefusalVerdict {
  verdict: "challenge" | "block" | "suspected";
  provider: string;
  marker: string;
  /** The id a site owner asks for when allow-listing (cf-ray, Akamai Reference #18…, …). */
  reference?: string;
}

/** One response, as the fetcher saw it. */
export interface RefusalInput {
  status: number;
  /** Header names lower-case; repeated headers joined. */
  headers: Record<string, string>;
  body: Uint8Array | string;
  /** The URL this response came from (after redirects). */
  url: string;
}

/** The response prepared once for every rule (see prepare.ts). */
export interface Prepared {
  status: number;
  headers: Record<string, string>;
  url: string;
  /** Body size in bytes (characters when the body came as a string). */
  bytes: number;
  /** Content-Type text/plain: body markers are skipped, headers still count. */
  plain: boolean;
  /** First 1 MiB as the page was sent (charset-decoded only: no entity decoding); "" when plain. */
  raw: string;
  /** First 1 MiB, entity-decoded, whitespace runs collapsed to one space; "" when plain. */
  html: string;
  /** `html` lower-cased, for case-insensitive marker search. */
  lower: string;
  /** Visible text (no scripts, styles, comments or tags) of the first 64 KB, lower-cased. */
  text: string;
}

/**
 * A rule's answer: a verdict, "outage" (a vendor's own error page: not a refusal, and no
 * later rule may call it one), or null (not this rule's page).
 */
export type RuleResult = RefusalVerdict | "outage" | null;
export type Rule = (p: Prepared) => RuleResult;

/** The longest vendor reference kept (DataDome's cid, the longest, is about 120 characters). */
export const REFERENCE_MAX = 256;
/** A reference id: printable ASCII, no space (every vendor's: hex, digits, base64, a UUID). */
const REFERENCE_TOKEN = /^[\x21-\x7E]+$/;

/**
 * Builds a verdict, leaving `reference` out when there is none (exactOptionalPropertyTypes), or
 * when what the page or a header put where the id goes is no id: a hostile page's terminal
 * escapes or its kilobytes would otherwise reach `nor log` on the operator's terminal, the
 * console and the public page. The no stands without it.
 */
export function verdict(
  kind: RefusalVerdict["verdict"],
  provider: string,
  marker: string,
  reference?: string,
): RefusalVerdict {
  const v: RefusalVerdict = { verdict: kind, provider, marker };
  if (isReference(reference)) v.reference = reference;
  return v;
}

/** Whether `s` may stand as a vendor's reference id (see `verdict`). */
export function isReference(s: string | undefined): s is string {
  return s !== undefined && s.length <= REFERENCE_MAX && REFERENCE_TOKEN.test(s);
}

/**
 * The first of `candidates` that is an id, in the order given: one place holding no id (a
 * header a relay mangled, a page's script that put something else there) falls back to the
 * next, not to none.
 */
export function firstReference(...candidates: (string | undefined)[]): string | undefined {
  return candidates.find(isReference);
}

/** Every pattern's first capture in `s`, in order (the candidates `firstReference` picks among). */
export function captures(s: string, patterns: readonly RegExp[]): (string | undefined)[] {
  return patterns.map((re) => re.exec(s)?.[1] || undefined);
}

/**
 * The visible text (Prepared.text) a vendor's block page stays under: its sentence is all the
 * page says (the research notes' samples: 80 to 650 characters). Tier 3's bound.
 */
export const BLOCK_PAGE_MAX_TEXT = 1500;

/**
 * P21: whether a vendor's block sentence found in the page's text may be its block page. On a
 * refusal status (4xx, 5xx) it may; on a 2xx or 3xx (Imperva and F5 answer 200) only when the
 * page is small as those pages are: a notices or help page answered 200 that quotes "Request
 * unsuccessful. Incapsula incident ID …" for its readers is a page to read, not the site's no.
 */
export function blockPageSized(p: Prepared): boolean {
  return p.status >= 400 || p.text.length < BLOCK_PAGE_MAX_TEXT;
}

/** The first capture of the first pattern that matches `s`. */
export function firstCapture(s: string, patterns: readonly RegExp[]): string | undefined {
  for (const re of patterns) {
    const m = re.exec(s);
    if (m?.[1]) return m[1];
  }
  return undefined;
}
