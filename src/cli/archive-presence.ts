/**
 * A store whose index names stored copies (P8) in an archive that is not there: said the same
 * way by every command that reads the archive (`nor archive`, `nor reparse`: exit 2, naming the
 * directory looked in), and refused by the commands that run nights (`nor night`, `nor start`),
 * which would otherwise make an empty archive and ask every page again in full, silently.
 */
import { ConfigError } from "../errors.js";
import { archiveAbsence, copies, noArchiveText } from "../store/archive/presence.js";
import type { Db } from "../store/db.js";
import { shellCommand } from "./shell-words.js";

/** `nor archive show`, `nor reparse`: no archive where the index names copies (exit 2). */
export async function refuseNoArchive(dir: string, db: Db): Promise<void> {
  const a = await archiveAbsence(dir, db);
  if (a?.kind === "missing")
    throw new ConfigError(
      `${noArchiveText(dir, a.copies)} (check --data; put the archive back if it was moved)`,
    );
}

/**
 * Before a night (`nor night`, `nor start`): the archive gone while the index names copies is
 * refused (exit 2), saying what to do; an empty one where the index names copies goes on, and
 * the returned line (said once, by the command) warns of what it costs.
 */
export async function archiveBeforeNight(dir: string, db: Db): Promise<string | undefined> {
  const a = await archiveAbsence(dir, db);
  if (a === undefined) return undefined;
  if (a.kind === "missing")
    throw new ConfigError(
      `${noArchiveText(dir, a.copies)} (a store restored without its archive, or a mistyped --data): restore the archive there from its backup; if it is truly lost, create the empty directory (\`${shellCommand("mkdir", dir)}\`) to go on, and every page is then asked again in full (P8)`,
    );
  return `the archive at ${dir} is empty, though the index names ${copies(a.copies)} in it: every page they hold is asked again in full (P8); if the archive has a backup, restore it there first`;
}
