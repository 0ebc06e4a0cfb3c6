import { clock } from "@/lib/clock";
import { INTERNAL_ADDRESS_CODE, outboundRequest } from "@/lib/safety/outbound";
import { INTERNAL_RECEIVER } from "./receiver";
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
  try {
    const { status: statusCode } = await outboundRequest(url, {
      method: "POST",
      headers: {
        ...signatureHeaders(secret, message.messageId, clock().now(), message.body),
        "content-type": "application/json",
        "user-agent": "Permalink-Webhooks/1",
      },
      body: message.body,
      timeoutMs: DELIVERY_TIMEOUT_MS,
      maxBytes: ANSWER_BYTES_READ,
      internalMessage: INTERNAL_RECEIVER,
    });
    const delivered = statusCode >= 200 && statusCode < 300;
    return finish({ delivered, statusCode, error: delivered ? null : answerProblem(statusCode) });
  } catch (error) {
    return finish({ delivered: false, statusCode: null, error: connectionProblem(error) });
  }
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
  if (code === INTERNAL_ADDRESS_CODE) return INTERNAL_RECEIVER;
  if (code === "ECONNREFUSED") return "The receiver refused the connection.";
  if (code === "ENOTFOUND") return error.message;
  return `The message could not be sent (${code || error.message}).`;
}
