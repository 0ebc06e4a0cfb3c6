import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Answer } from "./types";
import { bodyEncoding, sendAnswer } from "./write-answer";

const BODIES = { ascii: "<p>plain &#8220;text&#8221;</p>", beyond: "<p>café — “quoted” 🎣</p>" };

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    const body = BODIES[request.url!.slice(1) as keyof typeof BODIES];
    const answer: Answer = { status: 200, headers: { "Content-Type": "text/html; charset=utf-8", "Content-Length": String(Buffer.byteLength(body)) }, body };
    sendAnswer(response, answer);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise((done) => server.close(done)));

describe("sendAnswer", () => {
  it("chooses latin1 only for ASCII bodies", () => {
    expect(bodyEncoding(BODIES.ascii)).toBe("latin1");
    expect(bodyEncoding("")).toBe("latin1");
    expect(bodyEncoding(BODIES.beyond)).toBe("utf8");
    expect(bodyEncoding("\u00e9")).toBe("utf8");
    expect(bodyEncoding("lone \ud800 surrogate")).toBe("utf8");
  });

  it.each(Object.entries(BODIES))("sends the %s body as its UTF-8 bytes, matching Content-Length", async (name, body) => {
    const response = await fetch(`${base}/${name}`);
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.equals(Buffer.from(body, "utf8"))).toBe(true);
    expect(Number(response.headers.get("content-length"))).toBe(bytes.length);
  });
});
