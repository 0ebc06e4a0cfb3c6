/**
 * Checks an escrow file of Permalink's codes, and can serve its codes as redirects, with nothing
 * of the service: no database, no network but what `--keys URL` asks for (docs/escrow.md).
 *
 *   npx tsx scripts/verify-escrow.ts FILE [--keys FILE|URL] [--serve] [--port 8080] [--listen 127.0.0.1]
 *
 * Exit status: 0 verified (and, with --serve, serving until stopped), 1 the file failed, 2 bad usage.
 */
import { createReadStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { parseArgs } from "node:util";
import type { EscrowCode, EscrowKeysDocument } from "../lib/escrow/format";
import { type Verified, verifyEscrow } from "../lib/escrow/verify";
import { currentDestination } from "../lib/links/routing";
import { mergeQuery, readIncomingQuery } from "../lib/resolution/destination-query";

const USAGE = "Usage: verify-escrow FILE [--keys FILE|URL] [--serve] [--port 8080] [--listen 127.0.0.1]";

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: { keys: { type: "string" }, serve: { type: "boolean" }, port: { type: "string" }, listen: { type: "string" } },
    });
  } catch (error) {
    console.error(`${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const { positionals, values } = parsed;
  if (positionals.length !== 1) {
    console.error(USAGE);
    return 2;
  }
  const file = positionals[0]!;
  let trusted: EscrowKeysDocument["keys"] | undefined;
  if (values.keys !== undefined) {
    try {
      trusted = await readKeys(values.keys);
    } catch (error) {
      console.error(`The list of keys at ${values.keys} could not be read: ${(error as Error).message}`);
      return 2;
    }
  }
  let result;
  try {
    result = await verifyEscrow(createReadStream(file), { trusted, keep: values.serve });
  } catch (error) {
    console.error(`The file ${file} could not be read: ${(error as Error).message}`);
    return 1;
  }
  if (!result.ok) {
    console.error(`Not verified: ${result.problem}`);
    return 1;
  }
  const { header, codes } = result;
  const scope = header.scope.kind === "service" ? "the whole service" : `${header.scope.kind} ${header.scope.id}`;
  console.log(
    `Verified: ${codes} codes of ${scope} at ${header.service}, snapshot of ${header.snapshot_at}, each once, ` +
      `signed by key ${header.key.id}.`,
  );
  if (!trusted)
    console.log(`That key is the one the file pins; pass --keys ${header.keys_url} to check it is one of the service's.`);
  if (!values.serve) return 0;
  const port = Number(values.port ?? 8080);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`--port must be a port number, not ${values.port}.`);
    return 2;
  }
  const address = await serve(result, port, values.listen ?? "127.0.0.1");
  console.log(`Serving ${codes} codes as redirects at ${address}`);
  return -1;
}

async function readKeys(source: string): Promise<EscrowKeysDocument["keys"]> {
  const text = /^https?:\/\//.test(source)
    ? await fetch(source).then((response) => {
        if (!response.ok) throw new Error(`it answered ${response.status}`);
        return response.text();
      })
    : await readFile(source, "utf8");
  const document = JSON.parse(text) as Partial<EscrowKeysDocument>;
  if (!Array.isArray(document.keys)) throw new Error("it is not the escrow's list of keys (no keys)");
  return document.keys;
}

/** Codes by host and slug, and by host and the slug in lower case (a code typed in another case, when one code fits). */
function serve(verified: Verified, port: number, listen: string): Promise<string> {
  const exact = new Map<string, EscrowCode>();
  const folded = new Map<string, EscrowCode | null>();
  for (const code of verified.kept) {
    const host = code.host.toLowerCase();
    exact.set(`${host}/${code.slug}`, code);
    const key = `${host}/${code.slug.toLowerCase()}`;
    folded.set(key, folded.has(key) ? null : code);
  }
  const hosts = new Set(verified.kept.map((code) => code.host.toLowerCase()));
  const defaultHost = new URL(verified.header.short_base_url).host.toLowerCase();
  const server = createServer((request, response) => answer(request, response));

  function answer(request: IncomingMessage, response: ServerResponse): void {
    if (request.method !== "GET" && request.method !== "HEAD") {
      response.writeHead(405, { Allow: "GET, HEAD", "Content-Type": "text/plain; charset=utf-8" });
      response.end("Only GET and HEAD are served.\n");
      return;
    }
    const url = new URL(request.url ?? "/", "http://escrow.invalid");
    const hostHeader = (request.headers.host ?? "").toLowerCase();
    const bare = hostHeader.replace(/:\d+$/, "");
    const host = hosts.has(hostHeader) ? hostHeader : hosts.has(bare) ? bare : defaultHost;
    const slug = url.pathname.slice(1);
    const code =
      slug === "" || slug.includes("/")
        ? undefined
        : (exact.get(`${host}/${slug}`) ?? folded.get(`${host}/${slug.toLowerCase()}`) ?? undefined);
    const head = request.method === "HEAD";
    const page = (status: number, text: string) => {
      response.writeHead(status, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" });
      response.end(head ? undefined : `${text}\n`);
    };
    if (!code) return page(404, "No code with this address is in the escrow.");
    if (code.status === "abuse") return page(403, "This link was blocked for abuse; the escrow does not send visitors on.");
    if (code.password_protected)
      return page(401, "This link is protected by a password, which the escrow does not hold; it cannot be opened here.");
    // Rules need the visitor's facts (country, device, language): the code's own destination is served, as it is to a visitor no rule matches.
    const schedule = code.schedule.map((entry) => ({ at: Date.parse(entry.at), destination: entry.destination }));
    const location = mergeQuery(
      currentDestination(code.destination, schedule, Date.now()),
      readIncomingQuery(url.search).forward,
    );
    response.writeHead(302, { Location: location, "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" });
    response.end(head ? undefined : location);
  }

  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, listen, () => {
      const bound = server.address();
      const where = typeof bound === "object" && bound ? bound.port : port;
      resolve(`http://${listen.includes(":") ? `[${listen}]` : listen}:${where}`);
    });
  });
}

const status = await main();
if (status >= 0) process.exit(status);
