import http from "node:http";
import https from "node:https";
import { clock } from "@/lib/clock";
import { isIpLiteral } from "@/lib/safety/addresses";
import { bareHost, INTERNAL_RECEIVER, receiverAddressAllowed, receiverLookup } from "./receiver";
import { signatureHeaders } from "./signing";

/** The whole attempt, connection to last byte: a receiver slower than this has failed it. */
export const DELIVERY_TIMEOUT_MS = 10_000;
/** What is read of a receiver's answer before it is dropped: only the status matters. */
const ANSWER_BYTES_READ = 4096;

export type Message = { messageId: string; body: string };
export type AttemptOutcome = { delivered: boolean; statusCode: number | null; error: string | null; durationMs: number };

/**
 * POSTs one signed message to a receiver: a 2xx answer within the timeout delivers it; anything
 * else (another status, a redirect, which is never followed, a refused or failed connection) is
 * a failed attempt with its reason. The address connected to is checked by receiverLookup, or
 * here for an address literal, which no lookup sees.
 */
export async function sendMessage(url: string, secret: string, message: Message): Promise<AttemptOutcome> {
  const started = performance.now();
  const finish = (outcome: Omit<AttemptOutcome, "durationMs">): AttemptOutcome => ({
    ...outcome,
    durationMs: Math.round(performance.now() - started),
  });
  const host = bareHost(url);
  if (isIpLiteral(host) && !receiverAddressAllowed(host))
    return finish({ delivered: false, statusCode: null, error: INTERNAL_RECEIVER });
  try {
    const statusCode = await post(
      url,
      { ...signatureHeaders(secret, message.messageId, clock().now(), message.body) },
      message.body,
    );
    const delivered = statusCode >= 200 && statusCode < 300;
    return finish({ delivered, statusCode, error: delivered ? null : answerProblem(statusCode) });
  } catch (error) {
    return finish({ delivered: false, statusCode: null, error: connectionProblem(error) });
  }
}

function post(url: string, headers: Record<string, string>, body: string): Promise<number> {
  const transport = url.startsWith("https:") ? https : http;
  return new Promise((resolve, reject) => {
    const request = transport.request(
      url,
      {
        method: "POST",
        agent: false,
        lookup: receiverLookup,
        signal: AbortSignal.timeout(DELIVERY_TIMEOUT_MS),
        headers: {
          ...headers,
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(body)),
          "user-agent": "Permalink-Webhooks/1",
        },
      },
      (response) => {
        let read = 0;
        response.on("data", (chunk: Buffer) => {
          read += chunk.length;
          if (read >= ANSWER_BYTES_READ) response.destroy();
        });
        response.on("close", () => resolve(response.statusCode ?? 0));
        response.on("error", () => resolve(response.statusCode ?? 0));
      },
    );
    request.on("error", reject);
    request.end(body);
  });
}

function answerProblem(statusCode: number): string {
  if (statusCode >= 300 && statusCode < 400)
    return `The receiver answered with a redirect (${statusCode}), which is not followed.`;
  return `The receiver answered ${statusCode}.`;
}

function connectionProblem(error: unknown): string {
  if (!(error instanceof Error)) return "The message could not be sent.";
  const code = "code" in error ? String(error.code) : "";
  if (error.name === "TimeoutError" || error.name === "AbortError")
    return `The receiver did not answer within ${DELIVERY_TIMEOUT_MS / 1000} seconds.`;
  if (code === "EREFUSED_INTERNAL") return INTERNAL_RECEIVER;
  if (code === "ECONNREFUSED") return "The receiver refused the connection.";
  if (code === "ENOTFOUND") return error.message;
  return `The message could not be sent (${code || error.message}).`;
}
