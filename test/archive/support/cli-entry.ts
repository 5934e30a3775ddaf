/** Runs the real `nor` CLI from src/ (through ts-loader.mjs) in a child process. */
import { main } from "../../../src/cli/main.js";

process.exitCode = await main(process.argv);
