import { NorError } from "../errors.js";
import type { ImportDiff, ImportOutcome } from "../sources/catalog-import.js";

/**
 * The CLI's reading of a catalog import (`nor catalog import`, `nor night`, `nor start`): the
 * diff when it was written; an import that would retire too many sources stops the command
 * as a configuration problem (exit 2), naming them and the way on.
 */
export function importedOrStop(o: ImportOutcome): ImportDiff {
  if (o.kind === "imported") return o.diff;
  throw new NorError(
    "E_CATALOG",
    `this import would retire ${o.retire.length} of the ${o.active} sources in use (more than a tenth), so nothing was changed.\n` +
      `Sources it would retire: ${o.retire.join(", ")}\n` +
      "Give every catalog file (--catalog A B …), or --allow-retire if they are meant to go.",
  );
}
