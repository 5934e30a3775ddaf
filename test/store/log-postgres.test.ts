import { describe, it } from "vitest";
import { logStoreContract } from "./log-contract.js";
import { postgresFactory, postgresUrl } from "./stores.js";

if (postgresUrl) {
  logStoreContract(postgresFactory(postgresUrl));
} else {
  describe("log store contract (postgres)", () => {
    it.skip("needs NOR_TEST_POSTGRES_URL (e.g. postgres://postgres@127.0.0.1:5432/test)", () => {});
  });
}
