/**
 * A person's one line of text (a reason for a mark or a site owner's request, the name of who
 * decided, the operator's name on the site-owner page): the same rule wherever it enters, the
 * CLI's options and the console's forms alike. It is shown again in `nor status`'s
 * tab-separated table, on the console and on the public pages, so it must be one line of text
 * and short: not empty once trimmed; no control character (C0, tab and newline included, DEL,
 * C1), no line or paragraph separator, no invisible formatting (bidi overrides included) but
 * the joiners some scripts need; at most REASON_MAX characters for a reason, NAME_MAX for a
 * name. Pure: the caller turns a refusal into its own error (exit 2, a 400 page).
 */

import { UsageError } from "../errors.js";

/** The longest reason kept (characters). */
export const REASON_MAX = 500;
/** The longest name kept (characters): who decided, the operator's name. */
export const NAME_MAX = 100;

export type PersonTextKind = "reason" | "name";

export type PersonText =
  | { ok: true; text: string }
  /** `empty`: nothing a reader would see (the caller may word that as a missing reason). */
  | { ok: false; why: string; empty?: true };

/**
 * Controls, line and paragraph separators, and the bidi embeddings, overrides and isolates
 * (U+202A–U+202E, U+2066–U+2069), which reorder the text around them. Other invisible
 * formatting that pasted words carry (direction marks, soft hyphens, joiners, the tags of a
 * flag emoji) is text as written.
 */
const NOT_ONE_LINE = /[\p{Cc}\p{Zl}\p{Zp}\u202a-\u202e\u2066-\u2069]/u;

/**
 * What a reader does not see: formatting characters (but the few that are drawn: the number
 * signs and abbreviation marks U+0600–U+0605, U+06DD, U+070F, U+0890–U+0891, U+08E2, U+110BD,
 * U+110CD), the combining grapheme joiner, variation selectors, the Hangul and halfwidth
 * fillers and the blank Braille pattern: a name or reason of nothing but these (and spaces)
 * is empty.
 */
const DRAWN_FORMAT = /[\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2\u{110bd}\u{110cd}]/u;
/** One character at a time, never an alternation (each is tested alone: linear in the text). */
const UNSEEN_OR_SPACE =
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: matched against one code point at a time
  /[\s\p{Cf}\u034f\u180b-\u180d\u180f\ufe00-\ufe0f\u{e0100}-\u{e01ef}\u3164\u115f\u1160\uffa0\u2800]/u;

function unseen(c: string): boolean {
  return UNSEEN_OR_SPACE.test(c) && !DRAWN_FORMAT.test(c);
}

/**
 * Cut from either end with the spaces: unseen characters, but the bidi controls (a refusal
 * says them, NOT_ONE_LINE) and, at the end, what belongs to the character before it (a flag's
 * tag characters U+E0020–U+E007F, variation selectors, the Mongolian ones included, and the
 * joiners after a virama).
 */
const BIDI = /[\u202a-\u202e\u2066-\u2069]/u;
const BELONGS_BEFORE =
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: matched against one code point at a time
  /[\u{e0020}-\u{e007f}\ufe00-\ufe0f\u{e0100}-\u{e01ef}\u180b-\u180d\u180f\u200c\u200d]/u;

/** `chars` without the unseen characters at either end (code points, scanned: linear). */
function trimUnseen(chars: readonly string[]): string {
  let start = 0;
  let end = chars.length;
  const cut = (c: string) => unseen(c) && !BIDI.test(c);
  while (start < end && cut(chars[start] as string)) start++;
  while (
    end > start &&
    cut(chars[end - 1] as string) &&
    !BELONGS_BEFORE.test(chars[end - 1] as string)
  )
    end--;
  return chars.slice(start, end).join("");
}

/**
 * `raw` trimmed (of spaces and unseen characters at either end) if it is a person's one line
 * of text of that kind; else why not, in words that follow the option or field's name
 * (`--reason: …`). The text itself is never quoted back: it
 * may be long, or hold the very characters a terminal would act on.
 */
export function checkPersonText(raw: string, kind: PersonTextKind): PersonText {
  const max = kind === "reason" ? REASON_MAX : NAME_MAX;
  const chars = [...raw];
  // Nothing a reader would see (only spaces, invisible formatting or fillers) is empty too.
  if (chars.every(unseen)) return { ok: false, why: `the ${kind} is empty`, empty: true };
  const text = trimUnseen(chars);
  const bad = NOT_ONE_LINE.exec(text);
  if (bad !== null) {
    const at = [...text.slice(0, bad.index)].length + 1;
    const code = (bad[0].codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0");
    return {
      ok: false,
      why: `holds a control or formatting character (U+${code} at character ${at}); give the ${kind} as one line of text`,
    };
  }
  const length = [...text].length;
  if (length > max)
    return { ok: false, why: `has ${length} characters; give at most ${max} characters` };
  return { ok: true, text };
}

/** The same for a command-line option or variable (`--reason`): its text, or exit 2 naming it. */
export function personTextOption(raw: string, option: string, kind: PersonTextKind): string {
  const r = checkPersonText(raw, kind);
  if (!r.ok) throw new UsageError(`${option}: ${r.why}`);
  return r.text;
}
