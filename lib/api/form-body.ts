import type { RouteSpec } from "@/lib/http/operation";
import type { z } from "zod";

export type BodyOf<Spec> = Spec extends { body: infer Schema extends z.ZodType } ? z.output<Schema> : unknown;

/** The form's own name for each body field ("The custom slug" for slug): refusals are written with it, never the API's words. */
export type FieldNames = Record<string, string>;

/** A field the form filled in wrongly, in the form's words. */
export class FieldRefusal extends Error {
  constructor(
    message: string,
    readonly field: string | undefined,
  ) {
    super(message);
  }
}

/** The operation's own body schema and rules, with the first problem told in the form's words and tied to its field. */
export function formBody<Spec extends Pick<RouteSpec, "body">>(spec: Spec, input: unknown, names: FieldNames): BodyOf<Spec> {
  if (!spec.body) return input as BodyOf<Spec>;
  const result = spec.body.safeParse(input);
  if (result.success) return result.data as BodyOf<Spec>;
  const issue = result.error.issues[0]!;
  const field = typeof issue.path[0] === "string" ? issue.path[0] : undefined;
  if (!field) throw new FieldRefusal(issue.message, undefined);
  const name = names[field] ?? `The ${field.replaceAll("_", " ")}`;
  throw new FieldRefusal(`${name} ${issue.message}.`, field);
}
