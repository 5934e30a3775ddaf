/**
 * P13, P26: a night under way is seen in the store from its opening to its end, whatever it is
 * doing (its canary, its planning, between lanes), not only while it leases a lane. Each process
 * running a night writes one row (its holder id: `host:pid:random`) while the opening lock is
 * held, renews its lease while it lives and deletes it at its end. A process killed is dead at
 * once on this host (its pid), elsewhere once its lease has run out, or on PostgreSQL once its
 * liveness lock is gone (holder-liveness.ts: at once for a killed process, within a minute or
 * so for a vanished machine); so a killed night never blocks for long. What `nor catalog
 * import`, `nor start` and `nor night` read from the store (admin.ts nightsLiveInStore) besides
 * the lanes' leases, when machines share one PostgreSQL store with a data directory each.
 */
import type { Db } from "./db.js";
import { dialectOf } from "./dialect-of.js";
import { holderDead, STALE_MS } from "./holder.js";
import { heldElsewhere, livenessOf } from "./holder-liveness.js";
import { fromIso, toIso } from "./iso-time.js";

/** A night run's lease: renewed every third of it while its process lives. */
export const NIGHT_RUN_LEASE_MS = 60_000;

/**
 * Writes (or moves to `night`) this process's row, its lease from `now`. On PostgreSQL its
 * holder's liveness lock is held first, so the row lives while the process does, past its lease.
 */
export async function markNightRun(
  db: Db,
  holder: string,
  night: string,
  now: number,
): Promise<void> {
  if (dialectOf(db) === "postgres") await livenessOf(db)?.hold(holder);
  const row = {
    holder,
    night,
    started_at: toIso(now),
    lease_until: toIso(now + NIGHT_RUN_LEASE_MS),
  };
  // Rows of processes killed long ago go: not one whose liveness lock is still held (a process
  // frozen that long lives, as the journal takes it: nightsRunInStore).
  const stale = await db
    .selectFrom("night_runs")
    .select("holder")
    .where("lease_until", "<", toIso(now - STALE_MS))
    .execute();
  if (stale.length > 0) {
    const holders = stale.map((r) => r.holder);
    const living =
      dialectOf(db) === "postgres" ? await heldElsewhere(db, holders) : new Set<string>();
    const gone = holders.filter((h) => !living.has(h));
    if (gone.length > 0)
      await db
        .deleteFrom("night_runs")
        .where("holder", "in", gone)
        .where("lease_until", "<", toIso(now - STALE_MS))
        .execute();
  }
  await db
    .insertInto("night_runs")
    .values(row)
    .onConflict((oc) =>
      oc
        .column("holder")
        .doUpdateSet({ night, started_at: row.started_at, lease_until: row.lease_until }),
    )
    .execute();
}

/**
 * Renews this process's lease (its heartbeat); written again if it was taken away meanwhile (a
 * process frozen so long that its row was judged stale and deleted).
 */
export async function renewNightRun(
  db: Db,
  holder: string,
  night: string,
  now: number,
): Promise<void> {
  const lease_until = toIso(now + NIGHT_RUN_LEASE_MS);
  await db
    .insertInto("night_runs")
    .values({ holder, night, started_at: toIso(now), lease_until })
    .onConflict((oc) => oc.column("holder").doUpdateSet({ lease_until }))
    .execute();
}

/** This process's night has ended: its row goes. */
export async function endNightRun(db: Db, holder: string): Promise<void> {
  await db.deleteFrom("night_runs").where("holder", "=", holder).execute();
}

/** The nights processes that live run, as their rows say (sorted, each once). */
export async function nightsRunInStore(db: Db, now: number): Promise<string[]> {
  const rows = await db
    .selectFrom("night_runs")
    .select(["night", "holder", "lease_until"])
    // Every row, however long its lease has run out: a process frozen that long lives while its
    // liveness lock is held (holderDead judges them; rows of processes gone are few, one a
    // process killed, and the next mark clears them).
    .execute();
  const leases = rows.map((r) => ({
    night: r.night,
    holder: r.holder,
    until: fromIso(r.lease_until, "night_runs"),
  }));
  const dead = leases.filter((l) => holderDead(l, now));
  // PostgreSQL: a holder whose lease ran out lives while its liveness lock is held (a process
  // frozen, or its heartbeat late); asked only of those.
  const living =
    dialectOf(db) === "postgres" && dead.length > 0
      ? await heldElsewhere(
          db,
          dead.map((l) => l.holder),
        )
      : new Set<string>();
  const live = new Set<string>();
  for (const l of leases) if (!holderDead(l, now, living)) live.add(l.night);
  return [...live].sort();
}
