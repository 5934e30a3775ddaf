import { TransportBodyError, type TransportFailure, type TransportResult } from "./types.js";

/**
 * Node / OpenSSL error codes that mean the TLS handshake or certificate check failed (P21):
 * every certificate verification code Node gives (its X509ErrorCode list, crypto_common.cc),
 * UNSPECIFIED included, which is Node's code for a verification error it has no name for (a
 * CA that signed with SHA-1: "CA signature digest algorithm too weak"), and Node's own TLS
 * errors. A certificate that fails its check is the site's no whatever OpenSSL calls it;
 * taken for an unknown failure, it was an "unreachable" page that left the site open.
 */
const TLS_CODES = new Set([
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_CRL",
  "UNABLE_TO_DECRYPT_CERT_SIGNATURE",
  "UNABLE_TO_DECRYPT_CRL_SIGNATURE",
  "UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY",
  "CERT_SIGNATURE_FAILURE",
  "CRL_SIGNATURE_FAILURE",
  "CERT_NOT_YET_VALID",
  "CERT_HAS_EXPIRED",
  "CRL_NOT_YET_VALID",
  "CRL_HAS_EXPIRED",
  "ERROR_IN_CERT_NOT_BEFORE_FIELD",
  "ERROR_IN_CERT_NOT_AFTER_FIELD",
  "ERROR_IN_CRL_LAST_UPDATE_FIELD",
  "ERROR_IN_CRL_NEXT_UPDATE_FIELD",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "CERT_CHAIN_TOO_LONG",
  "CERT_REVOKED",
  "INVALID_CA",
  "PATH_LENGTH_EXCEEDED",
  "INVALID_PURPOSE",
  "CERT_UNTRUSTED",
  "CERT_REJECTED",
  "HOSTNAME_MISMATCH",
  "UNSPECIFIED",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "ERR_TLS_HANDSHAKE_TIMEOUT",
  "EPROTO",
]);

function codeOf(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | null;
  if (typeof e?.code === "string") return e.code;
  if (typeof e?.cause?.code === "string") return e.cause.code;
  return "";
}

function messageOf(err: unknown): string {
  if (unaskedContinue(err)) {
    return "the answer opened with a 100 Continue the request did not ask for, which the checker's HTTP client cannot read past";
  }
  const code = codeOf(err);
  const msg = err instanceof Error ? err.message : String(err);
  return code && !msg.includes(code) ? `${code}: ${msg}` : msg;
}

/**
 * undici's word when an answer opens with a `100 Continue` to a request that did not ask for
 * one (client-h1.js onHeadersComplete; the only "bad response" a request in flight can meet).
 * RFC 9110 §15.2 says a client reads past it; undici drops the connection instead. A proxy
 * that adds `Expect: 100-continue` on its way in sends it on every try: it is no connection
 * the site closed, so it is neither retried (P15) nor the site's no (P21).
 */
function unaskedContinue(err: unknown): boolean {
  return codeOf(err) === "UND_ERR_SOCKET" && (err as Error | null)?.message === "bad response";
}

export function failureFor(err: unknown): TransportFailure {
  const code = codeOf(err);
  if (unaskedContinue(err)) return "other";
  if (code === "E_BLOCKED_ADDRESS") return "blocked-address";
  if (code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_CONNECT_TIMEOUT") {
    return "timeout-headers";
  }
  if (code === "UND_ERR_BODY_TIMEOUT") return "timeout-body";
  if (code === "ECONNREFUSED") return "refused";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "EAI_NONAME") return "dns";
  if (code === "ECONNRESET" || code === "EPIPE") return "reset";
  if (TLS_CODES.has(code) || code.startsWith("ERR_SSL_") || code.startsWith("ERR_TLS_")) {
    return "tls";
  }
  // "other side closed", a content-length not reached, a chunked body never terminated.
  if (
    code === "UND_ERR_SOCKET" ||
    code === "UND_ERR_RES_CONTENT_LENGTH_MISMATCH" ||
    code === "ECONNABORTED" ||
    endedMidAnswer(err)
  ) {
    return "closed";
  }
  return "other";
}

/**
 * P15, P21: the connection ended (a FIN, or a reset on an answer that said `Connection: close`)
 * with the answer unfinished, a chunked body cut mid-chunk: undici asks its parser to finish
 * (client-h1.js onHttpSocketEnd, onHttpSocketError) and the parser says "Invalid EOF state".
 * That is an HTTPParserError, but of the connection closed before a full response, not of
 * bytes the site sent malformed. Told by its message: undici leaves its `code` undefined.
 */
function endedMidAnswer(err: unknown): boolean {
  const e = err as { name?: unknown; message?: unknown } | null;
  return (
    e?.name === "HTTPParserError" &&
    typeof e.message === "string" &&
    e.message.includes("(Invalid EOF state)")
  );
}

/**
 * Before the head is read, undici's "body length does not match content-length" is its
 * parser refusing the head of an answer that carried a Content-Length (client-h1.js
 * createError puts that error in place of the parser's own): sent twice (`Content-Length: 21`
 * twice, or `21, 21`), or not a number. A connection cut in the head is "other side closed".
 * The same head comes on every try: malformed, not closed early (P15, P21), as any other head
 * the parser refuses.
 */
function refusedHead(err: unknown): boolean {
  return codeOf(err) === "UND_ERR_RES_CONTENT_LENGTH_MISMATCH";
}

/** A failure before the answer's head was read (mapBodyError: one while its body was). */
export function mapTransportError(err: unknown): TransportResult {
  const address = (err as { address?: unknown } | null)?.address;
  if (refusedHead(err)) {
    return {
      kind: "failure",
      failure: "other",
      message: `the answer's head could not be read: its Content-Length is sent twice or is no number (${messageOf(err)})`,
    };
  }
  return {
    kind: "failure",
    failure: failureFor(err),
    message: messageOf(err),
    ...(typeof address === "string" ? { address } : {}),
  };
}

/**
 * undici's HTTP parser gave up on the answer's bytes. Told by name: undici means to set `code`
 * to `HPE_…` but looks the parser's number up in a table keyed by name, so `code` is undefined.
 */
function isParserError(err: unknown): boolean {
  const e = err as { name?: unknown; cause?: { name?: unknown } } | null;
  return e?.name === "HTTPParserError" || e?.cause?.name === "HTTPParserError";
}

export function mapBodyError(err: unknown): TransportBodyError {
  if (err instanceof TransportBodyError) return err;
  const failure = failureFor(err);
  // P15, P21: a body the HTTP parser could not read (a chunk size that is not hex, bytes after
  // the last chunk that are no trailer) is an answer the site sent malformed: the same answer
  // comes again, so it is not tried again, and the site said no to nothing. It stays "other",
  // as a malformed head is. (A connection that ends mid-chunk is "closed": failureFor's endedMidAnswer.)
  if (failure === "other" && isParserError(err)) {
    return new TransportBodyError("other", messageOf(err));
  }
  // Trailers past the longest head read (transport-undici.ts MAX_HEAD_BYTES): undici's
  // HeadersOverflowError, as for a head that long, which is "other" too. Sent so on every try.
  if (codeOf(err) === "UND_ERR_HEADERS_OVERFLOW") {
    return new TransportBodyError("other", `trailers too long: ${messageOf(err)}`);
  }
  // Anything else that stops a body early, not a timeout, is "closed before a full response".
  return new TransportBodyError(failure === "other" ? "closed" : failure, messageOf(err));
}
