import { ConfigError, NorError } from "../errors.js";

/**
 * Why `nor start`, `nor serve` or `nor demo` could not listen, as the error the CLI exits
 * with (the same wording and exit code in all three):
 *
 * - a port in use (EADDRINUSE) is a condition of the moment, not of what was typed: another
 *   program holds it and may let it go, so it is a failure while working (exit 1), which a
 *   service manager retries (docs/operations.md: Restart=on-failure, RestartPreventExitStatus=2);
 * - anything else (a port below 1024 without the right, EACCES; an address this machine
 *   does not have, EADDRNOTAVAIL; a host name that does not resolve) is fixed by changing
 *   `--host` or `--port`: configuration (exit 2), never retried.
 */
export function listenError(err: NodeJS.ErrnoException, host: string, port: number): NorError {
  const where = `cannot serve on ${host.includes(":") ? `[${host}]` : host}:${port}`;
  if (err.code === "EADDRINUSE")
    return new NorError(
      "E_BUSY",
      `${where}: the port is in use by another program (EADDRINUSE); stop it, or choose another --port (0 picks a free one)`,
      { cause: err },
    );
  return new ConfigError(`${where}: ${err.code ?? err.message}; check --host and --port`, {
    cause: err,
  });
}
