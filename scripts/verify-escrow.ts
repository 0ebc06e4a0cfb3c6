/**
 * Checks an escrow file of Permalink's codes, and can serve its codes as redirects, with nothing
 * of the service: no database, no network but what `--keys URL` asks for (docs/escrow.md).
 *
 *   npx tsx scripts/verify-escrow.ts FILE [--keys FILE|URL] [--serve] [--port 8080] [--listen 127.0.0.1]
 *
 * Exit status: 0 verified against the keys --keys names (and, with --serve, serving until stopped),
 * 1 the file failed, 2 bad usage, 3 untrusted: whole, but without --keys its signer is unknown.
 */
import { createReadStream } from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { parseArgs } from "node:util";
import type { EscrowCode, EscrowKeysDocument } from "../lib/escrow/format";
import { type Verified, verifyEscrow } from "../lib/escrow/verify";
import { currentDestination } from "../lib/links/routing";
import { codeInPath } from "../lib/resolution/code-path";
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
  if (!trusted) {
    console.error(untrusted(codes, header.key.id));
    return 3;
  }
  const scope = header.scope.kind === "service" ? "the whole service" : `${header.scope.kind} ${header.scope.id}`;
  console.log(
    `Verified: ${codes} codes of ${scope} at ${header.service}, snapshot of ${header.snapshot_at}, each once, ` +
      `signed by key ${header.key.id}, one of the keys in ${values.keys}.`,
  );
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

/**
 * Without --keys, the signature proves only that whoever wrote the file holds the key it pins:
 * a forger pins their own. The file's own keys_url and service are the forger's to write, so the
 * place to check is named from what the person already trusts, never from the file.
 */
function untrusted(codes: number, keyId: string): string {
  return (
    `UNTRUSTED: the file is whole (${codes} codes, each once), but its signature was checked only against ` +
    `the key inside the file (${keyId}), which whoever wrote the file chose: anyone can make such a file.\n` +
    "To check that the service you expect signed it, pass --keys with that service's list of keys: " +
    "/.well-known/permalink-escrow.json at the address you know the service by (its URL, or a copy of that " +
    "document you saved), never an address taken from this file. Nothing is served from an untrusted file."
  );
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

/**
 * Codes by host and slug, and by host and the slug in lower case (a code typed in another case, when
 * one code fits), read from the path as the live doors read it (codeInPath); a custom domain's root
 * and its unknown codes go where the file says the domain sends them.
 */
function serve(verified: Verified, port: number, listen: string): Promise<string> {
  const exact = new Map<string, EscrowCode>();
  const folded = new Map<string, EscrowCode | null>();
  for (const code of verified.kept) {
    const host = code.host.toLowerCase();
    exact.set(`${host}/${code.slug}`, code);
    const key = `${host}/${code.slug.toLowerCase()}`;
    folded.set(key, folded.has(key) ? null : code);
  }
  const domains = new Map((verified.header.domains ?? []).map((domain) => [domain.host.toLowerCase(), domain]));
  const hosts = new Set([...verified.kept.map((code) => code.host.toLowerCase()), ...domains.keys()]);
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
    const slug = codeInPath(url.pathname);
    const code =
      slug === null ? undefined : (exact.get(`${host}/${slug}`) ?? folded.get(`${host}/${slug.toLowerCase()}`) ?? undefined);
    const head = request.method === "HEAD";
    const forward = readIncomingQuery(url.search).forward;
    const page = (status: number, text: string) => {
      response.writeHead(status, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" });
      response.end(head ? undefined : `${text}\n`);
    };
    const redirect = (destination: string) => {
      const location = mergeQuery(destination, forward);
      response.writeHead(302, { Location: location, "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" });
      response.end(head ? undefined : location);
    };
    const domain = domains.get(host);
    if (url.pathname === "/" && domain?.root_destination) return redirect(domain.root_destination);
    if (!code) {
      if (slug !== null && domain?.not_found_destination) return redirect(domain.not_found_destination);
      return page(404, "No code with this address is in the escrow.");
    }
    if (code.status === "abuse") return page(403, "This link was blocked for abuse; the escrow does not send visitors on.");
    if (code.password_protected || code.destination === null)
      return page(401, "This link is protected by a password, which the escrow does not hold; it cannot be opened here.");
    // Rules need the visitor's facts (country, device, language): the code's own destination is served, as it is to a visitor no rule matches.
    const schedule = code.schedule.map((entry) => ({ at: Date.parse(entry.at), destination: entry.destination }));
    redirect(currentDestination(code.destination, schedule, Date.now()));
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
