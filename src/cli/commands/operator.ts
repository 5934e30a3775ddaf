import type { Command } from "commander";
import { systemClock } from "../../clock.js";
import { UsageError } from "../../errors.js";
import { openStore, storeLocationFromOptions } from "../../store/db.js";
import { hashPassword, MAX_PASSWORD_CHARS, passwordProblem } from "../../web/console/password.js";
import { storePasswordHash } from "../../web/console/session-store.js";
import { stderr, stdin, stdout } from "../io.js";
import { saying } from "../store-upgrade.js";

interface OperatorOptions {
  data?: string;
}

/**
 * `nor operator set-password`: the console's one password, read from stdin (never from an
 * argument, which `ps` and shell history would show) and stored only as a scrypt hash in the
 * store, so it works the same on SQLite and PostgreSQL. Setting it ends every open session.
 */
export function register(program: Command): void {
  const operator = program
    .command("operator")
    .description("The operator console's sign-in (see docs/operations.md)");
  operator
    .command("set-password")
    .description("Read the console password from stdin (first line) and store its scrypt hash")
    .option("--data <dir>", "store directory (DIR/nor.db); NOR_DATABASE_URL selects PostgreSQL")
    .action(async (opts: OperatorOptions) => {
      if (stdin().isTTY) stderr().write("Operator password (shown as typed): ");
      const password = firstLine(await readStdin());
      const problem = passwordProblem(password);
      if (problem) throw new UsageError(`${problem} (read from stdin)`);
      const hash = await hashPassword(password);
      // Like `nor mark` and `nor site`: a mistyped --data is an error, never a new store that
      // holds only a password the directory's own store never sees.
      const store = await openStore(
        storeLocationFromOptions(opts.data === undefined ? {} : { data: opts.data }),
        saying({ create: false }),
      );
      try {
        await storePasswordHash(store.db, hash, systemClock.now());
      } finally {
        await store.close();
      }
      stdout().write("operator password set; every console session was signed out\n");
      process.exitCode = 0;
    });
}

/**
 * Reads stdin to its end, or to its first line end; bounded in size. Its first line must be
 * UTF-8: bytes that are not (a file saved as Latin-1 or UTF-16) are refused (exit 2), never
 * read as U+FFFD, which would make different passwords one. A character whose bytes arrive in
 * two reads is read whole. What follows the first line is not read as text.
 */
async function readStdin(): Promise<string> {
  const limit = MAX_PASSWORD_CHARS * 4 + 2;
  const chunks: Buffer[] = [];
  let size = 0;
  let lineEnd = -1;
  for await (const chunk of stdin()) {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : (chunk as Buffer);
    const inChunk = bytes.findIndex((b) => b === 0x0a || b === 0x0d);
    if (inChunk !== -1) lineEnd = size + inChunk;
    chunks.push(bytes);
    size += bytes.length;
    if (lineEnd !== -1 || size > limit) break;
  }
  const all = Buffer.concat(chunks);
  // Cut at the limit, the password is too long anyway (said by passwordProblem): a character
  // cut in two at the end is no reason to call it something else.
  const line =
    lineEnd === -1 ? all.subarray(0, Math.min(all.length, limit + 1)) : all.subarray(0, lineEnd);
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(line, {
      stream: lineEnd === -1 && size > limit,
    });
  } catch {
    throw new UsageError("the password must be UTF-8 text; save it as UTF-8 (read from stdin)");
  }
}

/**
 * The first line without its line end; spaces inside and around are part of the password. A
 * byte-order mark before it (a password file saved as "UTF-8 with BOM", as Notepad does) is the
 * file's, not a character of the password: dropped, as it could never be typed into the sign-in form.
 */
function firstLine(text: string): string {
  const unmarked = text.startsWith("\uFEFF") ? text.slice(1) : text;
  // CRLF, LF, or a CR alone (old Mac line ends): the line ends at the first of them.
  const end = unmarked.search(/[\r\n]/);
  return end === -1 ? unmarked : unmarked.slice(0, end);
}
