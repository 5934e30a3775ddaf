/**
 * Thrown only for bugs and broken configuration; expected outcomes of a night, and what a
 * person's input can get wrong (marks, flags, catalog imports), are tagged unions, never
 * exceptions. Match on `code`, which is stable:
 *
 * - `E_CONFIG`, `E_CATALOG`, `E_USAGE`: what the person running it can fix (exit 2);
 * - `E_STORE`, `E_ARCHIVE`, `E_INTERNAL`: a failure while working (exit 1);
 * - `E_BUSY`: something held by another program right now (the port to serve on), a
 *   condition of the moment that a later try may not meet (exit 1, which systemd retries);
 * - `E_BLOCKED_ADDRESS`, `E_TRANSPORT_BODY`: raised inside the transport (the address guard
 *   refusing a connection; a body cut off mid-transfer) and turned by the fetcher into the
 *   outcomes "blocked-address" and a transport failure (P14, P15, P21); they reach no one.
 */
export type ErrorCode =
  | "E_CONFIG"
  | "E_CATALOG"
  | "E_USAGE"
  | "E_STORE"
  | "E_ARCHIVE"
  | "E_INTERNAL"
  | "E_BUSY"
  | "E_BLOCKED_ADDRESS"
  | "E_TRANSPORT_BODY";

export class NorError extends Error {
  override name = "NorError";
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

export class ConfigError extends NorError {
  override name = "ConfigError";
  constructor(message: string, options?: { cause?: unknown }) {
    super("E_CONFIG", message, options);
  }
}

export class UsageError extends NorError {
  override name = "UsageError";
  constructor(message: string) {
    super("E_USAGE", message);
  }
}
