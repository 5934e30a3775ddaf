/**
 * What a command says when the store it opens was made by an earlier version and is upgraded
 * first (its migrations, store/db.ts `onUpgrade`): a migration may rewrite a large table for a
 * while (018 the records table), and a command that sat quiet meanwhile would look hung.
 */
import type { OpenOptions, StoreUpgrade } from "../store/db.js";
import { stderr } from "./io.js";

export function sayUpgrade(u: StoreUpgrade): void {
  const n = u.migrations.length;
  stderr().write(
    `nor: upgrading the store at ${u.store} (${n === 1 ? "migration" : `${n} migrations`}: ${u.migrations.join(", ")}); on a large store this can take a minute or more\n`,
  );
}

/** `opts` with the upgrade said on stderr. */
export function saying(opts: OpenOptions = {}): OpenOptions {
  return { ...opts, onUpgrade: sayUpgrade };
}
