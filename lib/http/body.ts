import type { z } from "zod";
import { DomainError } from "./errors";

export const MAX_JSON_BODY_BYTES = 16 * 1024;

/** An HTML form of a few fields. */
export const MAX_FORM_BODY_BYTES = 1024;

/** Reads a JSON body with a size cap; an absent body reads as `{}`. */
export async function readJsonBody(request: Request): Promise<unknown> {
  const text = await readTextBody(request, MAX_JSON_BODY_BYTES);
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new DomainError("invalid_request", "The request body is not valid JSON.");
  }
}

/** Validates with a zod schema; the first issue becomes one sentence naming the field. */
export function validate<Schema extends z.ZodType>(schema: Schema, input: unknown, where: "body" | "query"): z.infer<Schema> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  throw new DomainError("invalid_request", describeIssue(result.error.issues[0]!, where));
}

function describeIssue(issue: z.core.$ZodIssue, where: "body" | "query"): string {
  const place = where === "body" ? "request body" : "query string";
  if (issue.code === "unrecognized_keys") {
    return `The ${place} has a field this operation does not accept: ${issue.keys.join(", ")}.`;
  }
  const field = issue.path.join(".");
  if (!field) return `The ${place} is invalid: ${issue.message}.`;
  return `The ${place} field "${field}" is invalid: ${issue.message}.`;
}

/** Reads the body as text, refusing more than `maxBytes` with 413 before reading it all. */
export async function readTextBody(request: Request, maxBytes: number): Promise<string> {
  return (await readBinaryBody(request, maxBytes)).toString("utf8");
}

/**
 * Reads the raw body, refusing more than `maxBytes` with 413: at once when Content-Length says so,
 * otherwise as soon as the chunks read exceed it (the rest is never read).
 */
export async function readBinaryBody(request: Request, maxBytes: number): Promise<Buffer> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw tooLarge(maxBytes);
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge(maxBytes);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

function tooLarge(maxBytes: number): DomainError {
  const limit = maxBytes % (1024 * 1024) === 0 ? `${maxBytes / (1024 * 1024)} MiB` : `${maxBytes / 1024} KiB`;
  return new DomainError("too_large", `The request body is larger than ${limit}.`);
}
