/**
 * Words of a command the CLI prints for a person to copy into a POSIX shell. A plain word
 * (letters, digits and `_ - . / : , = + @ %`, ASCII only) is written as it is, so
 * `--data /var/lib/nor` reads as before; any other (a space, a quote, `$`, a backquote, `\`,
 * `!`, `*`, `?`, a letter outside ASCII, an empty value…) is single-quoted, a `'` in it written
 * as `'\''`, so the shell hands the program the very same bytes.
 */
const PLAIN = /^[A-Za-z0-9_\-./:,=+@%]+$/;

export function shellWord(word: string): string {
  // A leading `=` is expanded by zsh (`=cmd`): quoted too (`~` is never plain).
  if (PLAIN.test(word) && !word.startsWith("=")) return word;
  return `'${word.replace(/'/g, "'\\''")}'`;
}

/** A command line from its words, each quoted only where the shell needs it. */
export function shellCommand(...words: readonly string[]): string {
  return words.map(shellWord).join(" ");
}

/**
 * Why the operator console is off and the command that turns it on, for `nor serve` and `nor
 * start` to say: `dataDir` the SQLite store's directory as an absolute path (none on PostgreSQL,
 * which NOR_DATABASE_URL names).
 */
export function consoleOffText(dataDir: string | undefined): string {
  // `npx nor`: after `npm ci`, `nor` itself is on no PATH; npx runs the project's own bin/nor.js.
  const words = ["npx", "nor", "operator", "set-password", ...(dataDir ? ["--data", dataDir] : [])];
  return `the console is off: no operator password is set (run \`${shellCommand(...words)}\` in the project's folder, then restart)`;
}
