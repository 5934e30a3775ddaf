/**
 * Records found damaged by a read in this process (P8). The writer decides a revisit from the
 * index alone (the payload digest it stored is the digest of the bytes it fsynced), without
 * reading the original back; what only a read can reveal (a bit flipped on disk, a file
 * overwritten in place) is found by whoever reads the record (a 304's stored copy, a replayed
 * answer), and noted here, so that the writer stores the next identical payload in full
 * instead of referring to a copy that no longer reads back. A deleted or shortened file the
 * writer sees for itself (warc-archive.ts). `nor archive verify` finds the rest.
 */
import { resolve } from "node:path";
import type { Capture } from "./captures.js";

const found = new Set<string>();
/** Bounded: a wholly lost archive must not grow this without end. */
const MAX = 100_000;

function key(dir: string, file: string, offset: number): string {
  return `${resolve(dir, file)}@${offset}`;
}

export function noteDamaged(dir: string, at: { file: string; offset: number }): void {
  if (found.size >= MAX) found.clear();
  found.add(key(dir, at.file, at.offset));
}

export function isDamaged(dir: string, at: { file: string; offset: number }): boolean {
  return found.has(key(dir, at.file, at.offset));
}

/** Whether a read found `c` damaged: itself or, for a revisit, the payload's record. */
export function isCaptureDamaged(dir: string, c: Capture): boolean {
  return isDamaged(dir, c) || (c.refersTo !== undefined && isDamaged(dir, c.refersTo));
}

/** A capture that did not read back whole: itself and, for a revisit, the payload's record. */
export function noteCaptureDamaged(dir: string, c: Capture): void {
  noteDamaged(dir, c);
  if (c.refersTo) noteDamaged(dir, c.refersTo);
}
