/**
 * What a command says when the store it opens was made by an earlier version and is upgraded
 * first (its migrations, store/db.ts `onUpgrade`): a migration may rewrite a large table for a
 * while (018 the records table), and a command that sat quiet meanwhile would look hung. So too
 * a write waiting for a SQLite store's write lock another process holds (`onLockWait`).
 */
import type { OpenOptions, StoreUpgrade } from "../store/db.js";
import { stderr } from "./io.js";

/** The upgrade in words. */
export function upgradeText(u: StoreUpgrade): string {
  const n = u.migrations.length;
  return `upgrading the store at ${u.store} (${n === 1 ? "migration" : `${n} migrations`}: ${u.migrations.join(", ")}); on a large store this can take a minute or more`;
}

export function sayUpgrade(u: StoreUpgrade, who = "nor"): void {
  stderr().write(`${who}: ${upgradeText(u)}\n`);
}

/**
 * `opts` with the upgrade said on stderr as a JSON line in the shape of a night's log (pino's
 * level, time and msg), for a command whose stderr is such a log (`nor night` without a
 * terminal): one line a reader of that log can parse like the rest.
 */
export function sayingAsJson(now: () => number, opts: OpenOptions = {}): OpenOptions {
  return {
    ...opts,
    onUpgrade: (u) =>
      void stderr().write(`${JSON.stringify({ level: 30, time: now(), msg: upgradeText(u) })}\n`),
    // A SQLite store's write lock held by another process (one frozen in a write): said as a
    // warning, as the command waits for it (store/db.ts `onLockWait`).
    onLockWait: (note) =>
      void stderr().write(`${JSON.stringify({ level: 40, time: now(), msg: note })}\n`),
  };
}

/**
 * `opts` with the upgrade, and a wait for another process's write lock, said on stderr; `who`
 * names the command the person ran (a night `nor start` runs: `nor start`, P13).
 */
export function saying(opts: OpenOptions = {}, who = "nor"): OpenOptions {
  return {
    ...opts,
    onUpgrade: (u) => sayUpgrade(u, who),
    onLockWait: (note) => void stderr().write(`${who}: ${note}\n`),
  };
}
