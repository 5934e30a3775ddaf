import { describe } from "vitest";
import { MemoryRobotsCache } from "../../src/net/memory-ports.js";
import { robotsCacheCases } from "./log-contract.js";

/** The robots cache the simulated nights and the step tests use keeps the contract the SQL stores keep. */
describe("robots cache contract (memory)", () => {
  robotsCacheCases(async () => new MemoryRobotsCache());
});
