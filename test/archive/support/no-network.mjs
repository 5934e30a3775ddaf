// Preload for the "sends nothing" tests: every outbound connection attempt is counted (in the
// file named by NOR_NET_GUARD_FILE, one line per attempt) and refused with an error.
import { appendFileSync } from "node:fs";
import net from "node:net";
import tls from "node:tls";

const file = process.env.NOR_NET_GUARD_FILE;
function refuse(what, args) {
  if (file) appendFileSync(file, `${what} ${JSON.stringify(args.slice(0, 2).map(String))}\n`);
  throw new Error(`network guard: ${what} refused`);
}
net.Socket.prototype.connect = function (...args) {
  refuse("net.Socket.connect", args);
};
net.connect = (...args) => refuse("net.connect", args);
net.createConnection = (...args) => refuse("net.createConnection", args);
tls.connect = (...args) => refuse("tls.connect", args);
try {
  const undici = await import("undici");
  const { Dispatcher } = undici;
  class Refusing extends Dispatcher {
    dispatch(opts) {
      refuse("undici.dispatch", [opts.origin, opts.path]);
    }
  }
  undici.setGlobalDispatcher(new Refusing());
} catch {
  // undici absent: the socket patches above still catch every connection.
}
