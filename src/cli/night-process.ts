/**
 * How a night's own process is started. A night is always a process of its own (`nor start`
 * spawns it, `nor night --workers` spawns its helpers, a systemd timer runs `nor night`), and
 * one of V8's sizes can only be set on node's command line, before the process runs: the young
 * generation's. V8's default semi-spaces of 16 MB keep 32 MB committed for the whole night;
 * 4 MB keeps 8, for 6–11% more CPU (more young collections): a night is paced by its gaps,
 * not by its CPU, and this keeps a 20,000-source night under 150 MB (docs/benchmarks.md, "A
 * night's memory").
 */
export const NIGHT_SEMI_SPACE_MB = 4;

/** node's options for a night's process, before the script: `node …NIGHT_NODE_OPTIONS bin/nor.js night …`. */
export const NIGHT_NODE_OPTIONS: readonly string[] = [
  `--max-semi-space-size=${NIGHT_SEMI_SPACE_MB}`,
];
