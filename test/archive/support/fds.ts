import { readdirSync, readlinkSync } from "node:fs";

/** How many of this process's file descriptors are open on files under `dir` (Linux). */
export function fdsUnder(dir: string): number {
  return readdirSync("/proc/self/fd").filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(dir);
    } catch {
      return false; // closed meanwhile
    }
  }).length;
}
