import type { Kysely } from "kysely";
import { sql } from "../kysely.js";

/**
 * P26, P24: a night a source was not asked at its site owner's request (`nor site`: the site
 * not read, a path left alone) is the outcome `left-alone`, the operator's decision, which
 * neither counts toward a run of nos nor breaks one. Nights kept before it had `refused` (the
 * site not read) or `disallowed` (a path left alone), with a reason beginning "the site's owner
 * asked" (policy/admission.ts OWNERS_REQUEST): they are named for what they were, so a store's
 * history reads the same whichever build wrote it; so are rechecks it kept from being asked
 * (`recheck-still-no`, "refused: the site's owner asked …"). Nothing else is touched; run
 * again, it finds nothing more to rename. Down, they are `refused` or `disallowed` again (a
 * recheck's among them, which an earlier build reads as any night of the source).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`update night_sources set outcome = 'left-alone'
    where outcome in ('refused', 'disallowed') and reason like 'the site''s owner asked%'`.execute(
    db,
  );
  // A recheck (P25) its site's owner kept from being asked was kept as `recheck-still-no`, its
  // reason the outcome it came to and then the owner's words: the same night, said as it was.
  for (const kind of ["refused", "disallowed"]) {
    const prefix = `${kind}: `;
    await sql`update night_sources set outcome = 'left-alone',
        reason = substr(reason, ${prefix.length + 1})
      where outcome = 'recheck-still-no'
        and reason like ${`${prefix}the site's owner asked%`}`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  // Back to what an earlier build reads: a path left alone as `disallowed`, a site not read as
  // `refused`, told apart by their reasons (policy/admission.ts).
  await sql`update night_sources set outcome = case
      when reason like 'the site''s owner asked for %' then 'disallowed' else 'refused' end
    where outcome = 'left-alone'`.execute(db);
}
