/**
 * Request input said back in a page or an error (an id from the path, a query value or name,
 * the path itself): its control characters (C0 but tab, newline and return, DEL, C1) are
 * written as the percent-escapes of their UTF-8 bytes, as they were typed in the address
 * (`/sources/%00` answers `no record page with the id "%00"`), never as the raw characters: a
 * NUL in an HTML page, a terminal's escape in a plain-text error.
 */
const CONTROLS = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/g;

export function echo(input: string): string {
  return input.replace(CONTROLS, (ch) => encodeURIComponent(ch));
}
