import { NorError } from "../errors.js";
import type { ImportDiff, ImportOutcome } from "../sources/catalog-import.js";
import { countOf } from "./count-of.js";

/** How `nor night` and `nor start` are given every catalog file: the option. */
export const EVERY_FILE_BY_OPTION = "--catalog A B …";

/**
 * The CLI's reading of a catalog import (`nor catalog import`, `nor night`, `nor start`): the
 * diff when it was written; an import that would retire too many sources stops the command
 * as a configuration problem (exit 2), naming them and the way on. `everyFile`: how the
 * command that says it is given every catalog file (`nor catalog import` takes them as its
 * arguments, `nor night` and `nor start` by --catalog).
 */
export function importedOrStop(o: ImportOutcome, everyFile = EVERY_FILE_BY_OPTION): ImportDiff {
  if (o.kind === "imported") return o.diff;
  throw new NorError(
    "E_CATALOG",
    `this import would retire ${o.retire.length} of the ${countOf(o.active, "source")} in use (more than a tenth), so nothing was changed.\n` +
      `Sources it would retire: ${o.retire.join(", ")}\n` +
      `Give every catalog file (${everyFile}), or --allow-retire if they are meant to go.`,
  );
}

/** A problem of the catalog files themselves: unreadable, not a valid catalog, an import refused. */
export function isCatalogProblem(err: unknown): err is NorError {
  return err instanceof NorError && err.code === "E_CATALOG";
}
