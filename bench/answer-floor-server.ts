import { answerFor } from "@/lib/resolution/answer";
import type { Answer, ResolvedLink, Visit } from "@/lib/resolution/types";
import { sendAnswer } from "@/lib/resolution/write-answer";
import { createServer } from "node:http";

/**
 * The floor under the front door: bare node:http sending the front door's own answers, byte for
 * byte and written as it writes them (the 302 with its headers and body, the 404 page), worked
 * out once. No lookup, no scan: what the answers alone cost against the reference's shorter 302.
 */
const visit = { method: "GET", slug: "Unknown9", forward: new URLSearchParams() } as Visit;
const answers = new Map<string, Answer>([
  [
    "/redirect",
    answerFor({ kind: "redirect", link: {} as ResolvedLink, location: "https://example.com/reference", servedRule: null }, visit),
  ],
  ["/Unknown9", answerFor({ kind: "not_found" }, visit)],
]);
const port = Number(process.argv[2]);

createServer((request, response) => {
  const answer = answers.get(request.url ?? "/") ?? answers.get("/Unknown9")!;
  sendAnswer(response, answer);
}).listen(port, "127.0.0.1");

process.on("SIGTERM", () => process.exit(0));
