import { createServer } from "node:http";

/** The yardstick: bare node:http answering 302 from a Map, nothing else. */
const destinations = new Map([["ref", "https://example.com/reference"]]);
const port = Number(process.argv[2]);

createServer((request, response) => {
  const location = destinations.get((request.url ?? "/").slice(1));
  if (location) {
    response.writeHead(302, { Location: location, "Cache-Control": "no-store", "Content-Length": "0" });
  } else {
    response.writeHead(404, { "Content-Length": "0" });
  }
  response.end();
}).listen(port, "127.0.0.1");

// An orderly exit on SIGTERM, so `node --cpu-prof` writes the reference's profile too.
process.on("SIGTERM", () => process.exit(0));
