import type { Command } from "commander";

// Placeholder: the directory module registers `nor serve` here.
export function register(_program: Command): void {}
