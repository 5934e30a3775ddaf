import type { ChildProcess } from "node:child_process";

/**
 * The last line a bench's child process writes to its stdout (`stdio[1]` a pipe), parsed as
 * JSON once the child has exited; rejected, naming `what`, when there is none to parse.
 */
export function lastJsonLine<T>(child: ChildProcess, what: string): Promise<T> {
  let out = "";
  child.stdout?.setEncoding("utf8");
  child.stdout?.on("data", (d: string) => {
    out += d;
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => {
      const last = out.trim().split("\n").at(-1) ?? "";
      try {
        resolve(JSON.parse(last) as T);
      } catch {
        reject(new Error(`${what} exited ${code} without a report`));
      }
    });
  });
}
