import { newId } from "@/lib/db/random";
import { defineOperation, download, failure, ok } from "@/lib/http/operation";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { apiRoute } from "./route";

const thing = z.object({ id: z.string(), count: z.number() });

const getThing = defineOperation({
  method: "get",
  path: "/api/things/{id}",
  auth: "public",
  operationId: "getThing",
  summary: "A thing",
  description: "A thing, for the reply type tests.",
  tag: "Test",
  responses: {
    200: ok("The thing.", thing),
    204: { description: "Nothing to say." },
    404: failure("No such thing."),
  },
});

const getThingFile = defineOperation({ ...getThing, responses: { 200: download("The thing as a file.", ["text/plain"], true) } });

const id = newId("thing");
const call = (route: (request: Request, context: { params: Promise<{ id: string }> }) => Promise<Response>) =>
  route(new Request(`http://app.test/api/things/${id}`), { params: Promise.resolve({ id }) });

describe("a route handler's reply", () => {
  it("is sent with the declared status and body, or with no body", async () => {
    const found = await call(apiRoute(getThing, async ({ reply, params }) => reply(200, { id: params.id, count: 2 })));
    expect(found.status).toBe(200);
    expect(found.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await found.json()).toEqual({ id, count: 2 });

    const empty = await call(apiRoute(getThing, async ({ reply }) => reply(204)));
    expect(empty.status).toBe(204);
    expect(await empty.text()).toBe("");
  });

  it("is a raw Response only where the declaration says the body is a file", async () => {
    const file = await call(
      apiRoute(getThingFile, async () => new Response("the thing", { headers: { "Content-Type": "text/plain" } })),
    );
    expect(await file.text()).toBe("the thing");
  });

  it("fails the type check when the declaration does not allow it", () => {
    // Compile-time only (npm run typecheck): each line below is a reply getThing does not declare.
    apiRoute(getThing, async ({ reply }) =>
      // @ts-expect-error 201 is not a declared status.
      reply(201, { id, count: 1 }),
    );
    apiRoute(getThing, async ({ reply }) =>
      // @ts-expect-error count must be a number.
      reply(200, { id, count: "one" }),
    );
    apiRoute(getThing, async ({ reply }) =>
      // @ts-expect-error the 200 body is required.
      reply(200),
    );
    apiRoute(getThing, async ({ reply }) =>
      // @ts-expect-error a 204 has no body.
      reply(204, { id, count: 1 }),
    );
    // @ts-expect-error getThing declares no file, stream or payment challenge: no raw Response.
    apiRoute(getThing, async () => new Response("{}"));
  });
});
