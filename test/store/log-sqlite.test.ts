import { logStoreContract } from "./log-contract.js";
import { sqliteFactory } from "./stores.js";

logStoreContract(sqliteFactory());
