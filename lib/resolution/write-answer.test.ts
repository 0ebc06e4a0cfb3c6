import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Answer } from "./types";
import { sendAnswer } from "./write-answer";

const BODIES = { ascii: "<p>plain &#8220;text&#8221;</p>", beyond: "<p>café — “quoted” 🎣</p>" };

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    const body = BODIES[request.url!.slice(1) as keyof typeof BODIES];
    const bytes = Buffer.byteLength(body);
    const answer: Answer = {
      status: 200,
      headers: { "Content-Type": "text/html; charset=utf-8", "Content-Length": String(bytes) },
      body,
      ascii: bytes === body.length,
    };
    sendAnswer(response, answer);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise((done) => server.close(done)));

describe("sendAnswer", () => {
  it.each(Object.entries(BODIES))("sends the %s body as its UTF-8 bytes, matching Content-Length", async (name, body) => {
    const response = await fetch(`${base}/${name}`);
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.equals(Buffer.from(body, "utf8"))).toBe(true);
    expect(Number(response.headers.get("content-length"))).toBe(bytes.length);
  });
});
