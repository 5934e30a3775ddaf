import { userInfo } from "node:os";

/**
 * Who runs the command, for "who decided" when `--by` is not given: the login name, or, for a
 * user the system has no name for (a container run with an arbitrary uid), `uid N`.
 */
export function loginName(): string {
  try {
    return userInfo().username;
  } catch {
    return `uid ${process.getuid?.() ?? "unknown"}`;
  }
}
