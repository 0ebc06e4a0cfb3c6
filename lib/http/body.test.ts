import { describe, expect, it } from "vitest";
import { readBinaryBody } from "./body";
import { DomainError } from "./errors";

const MIB = 1024 * 1024;

/** A request whose body streams 64 KiB chunks without end (no Content-Length), counting what was pulled. */
function endlessUpload(): { request: Request; pulled: () => number } {
  let pulled = 0;
  const chunk = new Uint8Array(64 * 1024);
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      pulled += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  const request = new Request("http://app.test.example/upload", { method: "PUT", body, duplex: "half" } as RequestInit);
  return { request, pulled: () => pulled };
}

describe("readBinaryBody", () => {
  it("returns the bytes of a body within the limit", async () => {
    const bytes = Buffer.from([0, 1, 2, 255]);
    const request = new Request("http://app.test.example/upload", { method: "PUT", body: bytes });
    expect(await readBinaryBody(request, 4)).toEqual(bytes);
  });

  it("refuses a declared Content-Length over the limit with 413 without reading the body", async () => {
    const { request, pulled } = endlessUpload();
    request.headers.set("content-length", String(MIB + 1));
    await expect(readBinaryBody(request, MIB)).rejects.toMatchObject({
      code: "too_large",
      message: "The request body is larger than 1 MiB.",
    });
    // Only the chunk the stream fills its queue with on creation; the reader took nothing.
    expect(pulled()).toBeLessThanOrEqual(64 * 1024);
  });

  it("cuts off an undeclared endless upload as soon as it passes the limit", async () => {
    const { request, pulled } = endlessUpload();
    const error = await readBinaryBody(request, MIB).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe("too_large");
    // The stream may have queued one chunk ahead of the reader; nothing beyond that was pulled.
    expect(pulled()).toBeLessThanOrEqual(MIB + 2 * 64 * 1024);
  });

  it("accepts exactly the limit", async () => {
    const request = new Request("http://app.test.example/upload", { method: "PUT", body: new Uint8Array(MIB) });
    expect((await readBinaryBody(request, MIB)).length).toBe(MIB);
  });
});
