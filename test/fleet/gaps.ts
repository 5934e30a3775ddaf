import type { SeenRequest } from "./fleet.js";

/**
 * Gaps as the servers saw them: from the end of one request to the start of the next, in
 * arrival order. This is the number a site owner reads off their access log (P10).
 */
export function gaps(requests: readonly SeenRequest[]): number[] {
  const sorted = [...requests].sort((a, b) => a.startedAt - b.startedAt);
  const out: number[] = [];
  for (let i = 1; i < sorted.length; i++) {
    out.push(sorted[i]!.startedAt - sorted[i - 1]!.endedAt);
  }
  return out;
}

export function minGap(requests: readonly SeenRequest[]): number {
  const g = gaps(requests);
  return g.length === 0 ? Number.POSITIVE_INFINITY : Math.min(...g);
}

/** True when no two requests overlapped in time (one request at a time, P9). */
export function neverOverlapped(requests: readonly SeenRequest[]): boolean {
  return gaps(requests).every((g) => g >= 0);
}

export function describe(requests: readonly SeenRequest[]): string {
  return requests.map((r) => `${r.startedAt} ${r.method} ${r.origin}${r.path}`).join("\n");
}
