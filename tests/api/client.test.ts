import { createPermalinkClient, type PermalinkClient } from "@/sdk";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { APP_ORIGIN, dispatch, newUser } from "../support/api";

/**
 * The typed client in sdk/ (openapi-fetch over openapi-typescript's types of the OpenAPI document),
 * as a customer's program uses it: every request is a real Request, answered by the app's route
 * handlers on the suite's PostgreSQL.
 */
function clientFor(token: string): PermalinkClient {
  return createPermalinkClient({ baseUrl: APP_ORIGIN, token, fetch: dispatch });
}

async function importDone(client: PermalinkClient, id: string) {
  for (let attempt = 0; attempt < 2400; attempt++) {
    const { data } = await client.GET("/api/imports/{id}", { params: { path: { id } } });
    if (data?.status === "done" || data?.status === "failed") return data;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`import ${id} did not finish`);
}

describe("the typed client", () => {
  it("is what npm run client:generate makes of today's document", async () => {
    // In its own process: generating rewrites the environment to the default settings.
    const run = await promisify(execFile)("node_modules/.bin/tsx", ["scripts/client-generate.ts", "--check"], {
      timeout: 180_000,
    }).then(
      () => ({ exitCode: 0, stderr: "" }),
      (error: { code?: number; stderr?: string }) => ({ exitCode: error.code, stderr: error.stderr }),
    );
    expect(run.exitCode, run.stderr).toBe(0);
  }, 200_000);

  it("creates, lists and repoints a link, typed by the document", async () => {
    const user = await newUser("client");
    const client = clientFor(user.token);

    const created = await client.POST("/api/links", { body: { destination: "https://example.com/client/first", title: "Menu" } });
    expect(created.response.status).toBe(201);
    const link = created.data!;
    expect(link).toMatchObject({ destination: "https://example.com/client/first", title: "Menu" });

    const listed = await client.GET("/api/links", { params: { query: { limit: 10 } } });
    expect(listed.response.status).toBe(200);
    expect(listed.data!.links.map((item) => item.id)).toEqual([link.id]);

    const repointed = await client.PATCH("/api/links/{id}", {
      params: { path: { id: link.id } },
      body: { destination: "https://example.com/client/second" },
    });
    expect(repointed.response.status).toBe(200);
    expect(repointed.data).toMatchObject({ id: link.id, slug: link.slug, destination: "https://example.com/client/second" });

    const read = await client.GET("/api/links/{id}", { params: { path: { id: link.id } } });
    expect(read.data?.destination).toBe("https://example.com/client/second");

    // A refusal comes back as the document's Error body, typed.
    const refused = await client.POST("/api/links", { body: { destination: "http://127.0.0.1/admin" } });
    expect(refused.response.status).toBe(422);
    expect(refused.error?.error).toMatch(/address/i);

    if (false as boolean) {
      // @ts-expect-error the document says destination is a string
      await client.POST("/api/links", { body: { destination: 1 } });
      // @ts-expect-error no such path
      await client.GET("/api/link");
    }
  });

  it("imports a JSON export as JSON and a CSV file as text", async () => {
    const user = await newUser("client-import");
    const client = clientFor(user.token);

    const json = await client.POST("/api/imports", {
      body: [{ long_url: "https://example.com/client/json-1" }, { long_url: "https://example.com/client/json-2" }],
    });
    expect(json.response.status).toBe(202);
    expect(await importDone(client, json.data!.id)).toMatchObject({ status: "done", created: 2 });

    const bitlyPage = await client.POST("/api/imports", {
      body: { links: [{ long_url: "https://example.com/client/page-1" }] },
    });
    expect(bitlyPage.response.status).toBe(202);
    expect(await importDone(client, bitlyPage.data!.id)).toMatchObject({ status: "done", created: 1 });

    const csv = await client.POST("/api/imports", {
      body: "destination\nhttps://example.com/client/csv-1\n",
      headers: { "content-type": "text/csv" },
    });
    expect(csv.response.status).toBe(202);
    expect(await importDone(client, csv.data!.id)).toMatchObject({ status: "done", created: 1 });

    const { data } = await client.GET("/api/links", { params: { query: { limit: 10 } } });
    expect(data!.links.map((link) => link.destination).sort()).toEqual([
      "https://example.com/client/csv-1",
      "https://example.com/client/json-1",
      "https://example.com/client/json-2",
      "https://example.com/client/page-1",
    ]);
  });
});
