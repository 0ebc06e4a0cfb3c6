import { createServer } from "node:http";
import { notFoundPage } from "@/lib/resolution/pages";
const variant = process.argv[3];
const page = notFoundPage("Unknown9");
const pageHeaders = { "Cache-Control": "no-store", "X-Robots-Tag": "noindex", "Referrer-Policy": "strict-origin-when-cross-origin", "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'", "X-Content-Type-Options": "nosniff", "Content-Length": String(Buffer.byteLength(page)) };
const redirectHeaders = { "Cache-Control": "no-store", "X-Robots-Tag": "noindex", "Referrer-Policy": "strict-origin-when-cross-origin", Location: "https://example.com/active", "Content-Type": "text/plain; charset=utf-8", "Content-Length": String(Buffer.byteLength("https://example.com/active")) };
createServer((request, response) => {
  if (variant === "bare") { response.writeHead(302, { Location: "https://example.com/reference", "Cache-Control": "no-store", "Content-Length": "0" }); response.end(); }
  else if (variant === "page") { response.writeHead(404, pageHeaders); response.end(page); }
  else if (variant === "redirect") { response.writeHead(302, redirectHeaders); response.end("https://example.com/active"); }
}).listen(Number(process.argv[2]), "127.0.0.1");
process.on("SIGTERM", () => process.exit(0));
