import type { z } from "zod";

/**
 * What a route handler answers: a status its operation declares and a body of that status's
 * declared schema. The route wrapper (lib/api/route.ts) sends it as JSON, or with no body.
 */
export class Reply<Status extends number = number, Body = unknown> {
  declare private readonly replyOf: "operation";
  constructor(
    readonly status: Status,
    readonly body: Body,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {}
}

type ResponsesOf<Spec> = Spec extends { responses: infer Responses } ? Responses : never;
type DeclaredStatus<Spec> = keyof ResponsesOf<Spec> & number;

type SchemaOutput<Schema> = Schema extends readonly z.ZodType[]
  ? z.output<Schema[number]>
  : Schema extends z.ZodType
    ? z.output<Schema>
    : never;

/** The body a declared response carries: its schema's output (one of several), or nothing. */
export type DeclaredBody<Response> = Response extends { body: infer Schema } ? SchemaOutput<Schema> : undefined;

type BodyAt<Spec, Status> = Status extends keyof ResponsesOf<Spec> ? DeclaredBody<ResponsesOf<Spec>[Status]> : never;

/** Every reply the declaration allows: one per declared status, with that status's body. */
export type DeclaredReply<Spec> = { [Status in DeclaredStatus<Spec>]: Reply<Status, BodyAt<Spec, Status>> }[DeclaredStatus<Spec>];

type HeaderKinds<Response> = Response extends { headers: infer Headers } ? Headers[keyof Headers] : never;

/** A response whose body the handler cannot give as a value: a file or stream, a payment challenge, or the MCP transport's answer. */
type AnswersRaw<Response> = Response extends { files: readonly string[] }
  ? true
  : Response extends { transport: string }
    ? true
    : "PaymentChallenge" extends HeaderKinds<Response>
      ? true
      : false;

type TakesRawResponse<Spec> = true extends {
  [Status in DeclaredStatus<Spec>]: AnswersRaw<ResponsesOf<Spec>[Status]>;
}[DeclaredStatus<Spec>]
  ? true
  : false;

/**
 * What a handler may return: for an operation, a reply it declares, and a raw Response only when
 * one of its responses is a file, a stream, a payment challenge or the MCP transport's; for a route
 * that declares no responses (the dashboard's file routes, the local billing pages), a Response.
 */
export type HandlerResult<Spec> = Spec extends { responses: object }
  ? DeclaredReply<Spec> | (TakesRawResponse<Spec> extends true ? Response : never)
  : Response;

type ReplyArguments<Body> = [Body] extends [undefined]
  ? [body?: undefined, headers?: Readonly<Record<string, string>>]
  : [body: Body, headers?: Readonly<Record<string, string>>];

/** reply(status, body, headers?): only a declared status, only with its declared body. */
export type ReplyFunction<Spec> = <const Status extends DeclaredStatus<Spec>>(
  status: Status,
  ...rest: ReplyArguments<BodyAt<Spec, Status>>
) => Reply<Status, BodyAt<Spec, Status>>;

export function reply(status: number, body?: unknown, headers?: Readonly<Record<string, string>>): Reply {
  return new Reply(status, body, headers);
}
