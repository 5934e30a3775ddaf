import type { Command } from "commander";

// Placeholder: the owning module registers its subcommand here.
export function register(_program: Command): void {}
