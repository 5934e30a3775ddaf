import type { Kysely } from "kysely";
import { mappedIpv4Site } from "../../policy/mapped-ipv4.js";
import { sql } from "../kysely.js";

/**
 * P9, P10, P21: an IPv4 address written as an IPv4-mapped IPv6 literal is that address's site
 * (`[::ffff:127.0.0.80]` is 127.0.0.80: policy/mapped-ipv4.ts). An earlier build kept such a site
 * as the literal (`[::ffff:7f00:50]`), and a site owner's request recorded for it then (`nor site
 * '[::ffff:127.0.0.80]' --not-read`, a gap, a path left alone) was looked for under the IPv4
 * address only, so it no longer held: the checker would have asked a site its owner asked to be
 * left alone. The owners' requests are kept under the IPv4 address, the site the checker names
 * now, each as it was (its reason, date, who, and whether it was cleared).
 *
 * What the journal keeps about such a site (its last request's end, a no tonight, a Retry-After
 * hold, a request in flight) is the IPv4 address's too: moved there, or, where the address has a
 * row of its own, joined with it on the stricter side (the later end, the later hold, the later
 * night's no, the later lease). The request log is left as it was written (its URLs say which
 * spelling was asked). Run again, it finds nothing more to move. Down leaves them where they
 * are: an earlier build reads them for the IPv4 address's own URLs.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const rules = await sql<{ id: string; site: string }>`
    select id, site from site_rules where site like '[%'`.execute(db);
  for (const r of rules.rows) {
    const site = mappedIpv4Site(r.site);
    if (site !== undefined)
      await sql`update site_rules set site = ${site} where id = ${r.id}`.execute(db);
  }
  const states = await sql<StateRow>`
    select site, last_end_at, updated_at, lease_holder, lease_until, closed_night,
      closed_reason, not_before
    from site_state where site like '[%'`.execute(db);
  for (const old of states.rows) {
    const site = mappedIpv4Site(old.site);
    if (site === undefined) continue;
    const there = (
      await sql<StateRow>`
        select site, last_end_at, updated_at, lease_holder, lease_until, closed_night,
          closed_reason, not_before
        from site_state where site = ${site}`.execute(db)
    ).rows[0];
    if (there === undefined) {
      await sql`update site_state set site = ${site} where site = ${old.site}`.execute(db);
      continue;
    }
    const closed =
      old.closed_night !== null &&
      (there.closed_night === null || old.closed_night > there.closed_night)
        ? old
        : there;
    const leased = later(old.lease_until, there.lease_until) === old.lease_until ? old : there;
    await sql`update site_state set
        last_end_at = ${later(old.last_end_at, there.last_end_at)},
        updated_at = ${later(old.updated_at, there.updated_at)},
        lease_holder = ${leased.lease_holder},
        lease_until = ${leased.lease_until},
        closed_night = ${closed.closed_night},
        closed_reason = ${closed.closed_reason},
        not_before = ${later(old.not_before, there.not_before)}
      where site = ${site}`.execute(db);
    await sql`delete from site_state where site = ${old.site}`.execute(db);
  }
}

export async function down(_db: Kysely<unknown>): Promise<void> {
  // Nothing: which requests were kept under the literal is not known any more (see above).
}

interface StateRow {
  site: string;
  last_end_at: string | null;
  updated_at: string;
  lease_holder: string | null;
  lease_until: string | null;
  closed_night: string | null;
  closed_reason: string | null;
  not_before: string | null;
}

/** The later of two stored times (ISO 8601), a time before none. */
function later<T extends string | null>(a: T, b: T): T {
  if (a === null) return b;
  if (b === null) return a;
  return Date.parse(a) >= Date.parse(b) ? a : b;
}
