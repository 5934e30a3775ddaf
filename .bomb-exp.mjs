import { build } from "rolldown";
import { createServer } from "node:http";
import { gzipSync } from "node:zlib";
import { execFileSync } from "node:child_process";
await build({ input: "/work/main/test/net/child/fetch-once.ts", platform: "node", logLevel: "silent", output: { file: "/tmp/fetch-once.mjs", format: "esm" } });
const bomb = gzipSync(Buffer.alloc(200 * 1024 * 1024, 0), { level: 9 });
console.log("bomb bytes", bomb.length);
const srv = createServer((req, res) => {
  if (req.url === "/robots.txt") return res.end("");
  if (req.url === "/plain") { res.writeHead(200); res.end(Buffer.alloc(25*1024*1024, 97)); return; }
  res.writeHead(200, { "content-encoding": "gzip" }); res.end(bomb);
}).listen(0, "127.0.0.7", async () => {
  const port = srv.address().port;
  for (const p of ["/plain", "/bomb"]) {
    const out = execFileSync(process.execPath, ["/tmp/fetch-once.mjs", `http://127.0.0.7:${port}${p}`], { encoding: "utf8" });
    const j = JSON.parse(out); console.log(p, JSON.stringify(j.outcome), (j.maxRssKiB/1024).toFixed(1), (j.vmHwmKiB/1024).toFixed(1), "MiB", JSON.stringify(j.log).slice(0,600));
  }
  console.log("baseline", execFileSync(process.execPath, ["-e", "console.log(process.resourceUsage().maxRSS/1024)"], {encoding:"utf8"}));
  srv.close();
});
