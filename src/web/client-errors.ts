/**
 * What the server answers a request Node cannot read as HTTP, before the app sees it: a body
 * that says what is wrong, as every other error answer has (docs/api.md), instead of Node's
 * empty one. Above all the request whose address or headers are longer than Node reads (16 KB:
 * a long search pasted into the address bar), which a browser otherwise shows as a blank page.
 */
import type { EventEmitter } from "node:events";
import type { Duplex } from "node:stream";

interface ClientError extends Error {
  code?: string;
}

/** The socket as Node's HTTP server keeps it: the response in flight on it, if any. */
type InFlight = Duplex & { _httpMessage?: { _headerSent?: boolean } | null };

function answer(status: number, reason: string, text: string): string {
  const body = `${text}\n`;
  return (
    `HTTP/1.1 ${status} ${reason}\r\n` +
    "Content-Type: text/plain; charset=utf-8\r\n" +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    "Cache-Control: no-cache\r\n" +
    "Connection: close\r\n\r\n" +
    body
  );
}

/** The answer to a request Node could not read, by its parser's code. */
export function clientErrorAnswer(code: string | undefined): string {
  if (code === "HPE_HEADER_OVERFLOW")
    return answer(
      431,
      "Request Header Fields Too Large",
      "The address or its headers are too long (more than 16 KB): shorten the search or the address.",
    );
  if (code === "ERR_HTTP_REQUEST_TIMEOUT")
    return answer(408, "Request Timeout", "The request did not arrive in time.");
  return answer(400, "Bad Request", "The request could not be read as HTTP.");
}

/** Answers, on `server`, the requests Node cannot read (clientErrorAnswer). */
export function answerClientErrors(server: EventEmitter): void {
  server.on("clientError", (err: ClientError, socket: InFlight) => {
    // Gone already (a reset), or an answer already under way on it (a bad request pipelined
    // behind a streamed answer): nothing more can be said on it, as Node's own handler judges
    // (its socketOnError: the in-flight response's head already sent).
    if (err.code === "ECONNRESET" || !socket.writable || socket._httpMessage?._headerSent) {
      socket.destroy();
      return;
    }
    socket.end(clientErrorAnswer(err.code));
  });
}
