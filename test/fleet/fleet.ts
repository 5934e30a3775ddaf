import {
  createServer as createHttpServer,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo, Server, Socket } from "node:net";
import { makeSelfSignedCert, type TestCert } from "./cert.js";

/**
 * The loopback test fleet: real HTTP(S) servers on 127.0.0.x that record every request the
 * checker sends (method, path, headers, start and end time), so tests assert politeness the
 * way a site owner would see it in their logs. Nothing here listens outside 127.0.0.0/8.
 */
export interface SeenRequest {
  /** Origin of the server that saw it, e.g. http://127.0.0.2:40123 */
  origin: string;
  host: string;
  /** The address the request came from (the checker's side of the connection). */
  from: string;
  method: string;
  /** Path and query exactly as sent. */
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Raw header names in the order sent (to prove nothing extra was sent). */
  headerNames: string[];
  body: string;
  startedAt: number;
  /** When the response's last byte was handed over or the socket closed; NaN while open. */
  endedAt: number;
}

export type Handler = (
  req: IncomingMessage,
  res: ServerResponse,
  ctx: { seen: SeenRequest; count: number },
) => void | Promise<void>;

export interface FleetServer {
  origin: string;
  host: string;
  port: number;
  url(path: string): string;
  /** Scripts a path ("/x" or "/x?q=1"; matched on path+query first, then on path). */
  route(path: string, handler: Handler): FleetServer;
  /** Requests this server saw, in arrival order. */
  readonly requests: SeenRequest[];
  /** TCP connections accepted (a TLS client that rejects our certificate still makes one). */
  readonly connections: number;
  /** Requests for one path. */
  hits(path: string): SeenRequest[];
}

export interface FleetOptions {
  /** Timestamps come from this clock (a ManualClock shares virtual time with the fetcher). */
  now?: () => number;
}

export interface ServerOptions {
  host?: string;
  port?: number;
  tls?: boolean;
  /** Served for a path with no route. Default: 404 "not found". */
  fallback?: Handler;
}

export interface Fleet {
  server(opts?: ServerOptions): Promise<FleetServer>;
  /** Every request every server saw, in arrival order. */
  readonly requests: SeenRequest[];
  /** The certificate of the TLS servers (a self-signed one, made at test time). */
  cert(): Promise<TestCert>;
  close(): Promise<void>;
}

/** TLS servers listen here by default; the test certificate names this address. */
export const TLS_HOST = "127.0.0.250";

export const notFound: Handler = (_req, res) => {
  res.writeHead(404, { "content-type": "text/plain" }).end("not found");
};

export async function startFleet(opts: FleetOptions = {}): Promise<Fleet> {
  const now = opts.now ?? Date.now;
  const all: SeenRequest[] = [];
  const servers: Server[] = [];
  const sockets = new Set<Socket>();
  let nextHost = 2;
  let cert: Promise<TestCert> | undefined;
  const getCert = () => {
    cert ??= makeSelfSignedCert(["127.0.0.1", TLS_HOST]);
    return cert;
  };

  async function server(sopts: ServerOptions = {}): Promise<FleetServer> {
    const host = sopts.host ?? (sopts.tls ? TLS_HOST : `127.0.0.${nextHost++}`);
    if (!host.startsWith("127.")) throw new Error(`fleet servers stay on loopback, not ${host}`);
    const routes = new Map<string, Handler>();
    const requests: SeenRequest[] = [];
    const counts = new Map<string, number>();
    const fallback = sopts.fallback ?? notFound;
    let origin = "";
    const onRequest = (req: IncomingMessage, res: ServerResponse) => {
      const path = req.url ?? "/";
      const seen: SeenRequest = {
        origin,
        host,
        from: req.socket.remoteAddress ?? "",
        method: req.method ?? "",
        path,
        headers: { ...req.headers },
        headerNames: req.rawHeaders.filter((_, i) => i % 2 === 0),
        body: "",
        startedAt: now(),
        endedAt: Number.NaN,
      };
      requests.push(seen);
      all.push(seen);
      const end = () => {
        if (Number.isNaN(seen.endedAt)) seen.endedAt = now();
      };
      // The site's view: its answer ended when its last byte was handed over (`res.end()`),
      // not when this process got round to the 'finish' event, which a loaded event loop
      // can delay past the checker's next request.
      const realEnd = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
      res.end = ((...a: unknown[]) => {
        end();
        return realEnd(...a);
      }) as typeof res.end;
      res.once("close", end);
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        seen.body = Buffer.concat(chunks).toString("utf8");
        const key = routes.has(path) ? path : path.split("?")[0]!;
        const count = (counts.get(key) ?? 0) + 1;
        counts.set(key, count);
        const handler = routes.get(key) ?? fallback;
        Promise.resolve(handler(req, res, { seen, count })).catch((err: unknown) => {
          if (!res.headersSent) res.writeHead(500).end(String(err));
          else res.destroy();
        });
      });
    };
    const srv: Server = sopts.tls
      ? createHttpsServer({ key: (await getCert()).key, cert: (await getCert()).cert }, onRequest)
      : createHttpServer(onRequest);
    srv.on("connection", (s: Socket) => {
      sockets.add(s);
      s.once("close", () => sockets.delete(s));
    });
    servers.push(srv);
    await new Promise<void>((resolve, reject) => {
      srv.once("error", reject);
      srv.listen(sopts.port ?? 0, host, () => resolve());
    });
    let connections = 0;
    srv.on("connection", () => {
      connections++;
    });
    const port = (srv.address() as AddressInfo).port;
    origin = `${sopts.tls ? "https" : "http"}://${host}:${port}`;
    const fs: FleetServer = {
      origin,
      host,
      port,
      url: (path) => `${origin}${path}`,
      route(path, handler) {
        routes.set(path, handler);
        return fs;
      },
      requests,
      get connections() {
        return connections;
      },
      hits: (path) => requests.filter((r) => r.path === path),
    };
    return fs;
  }

  return {
    server,
    requests: all,
    cert: getCert,
    async close() {
      for (const s of sockets) s.destroy();
      await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
    },
  };
}
