import { resetConfig } from "@/lib/config";
import { HTTP_METHODS } from "@/lib/http/operation";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type ApiDocument, type ApiOperation, type JsonSchema, openApiDocument } from "./document";

let document: ApiDocument;

beforeAll(() => {
  vi.stubEnv("BASE_URL", "https://links.example/");
  vi.stubEnv("WRITE_RATE_LIMIT_PER_MINUTE", "37");
  resetConfig();
  document = openApiDocument();
});

afterAll(() => {
  vi.unstubAllEnvs();
  resetConfig();
});

function operations(doc: ApiDocument): [string, ApiOperation][] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    HTTP_METHODS.flatMap((method) =>
      item[method] ? [[`${method.toUpperCase()} ${path}`, item[method]] as [string, ApiOperation]] : [],
    ),
  );
}

function collectRefs(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(collectRefs);
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([key, child]) =>
    key === "$ref" && typeof child === "string" ? [child] : collectRefs(child),
  );
}

/** Follows a local JSON Pointer (RFC 6901); undefined when any step is missing. */
function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith("#/")) return undefined;
  return ref
    .slice(2)
    .split("/")
    .map((token) => decodeURIComponent(token).replaceAll("~1", "/").replaceAll("~0", "~"))
    .reduce<unknown>(
      (node, token) => (node !== null && typeof node === "object" ? (node as Record<string, unknown>)[token] : undefined),
      root,
    );
}

function componentSchema(id: string): JsonSchema {
  const schema = document.components.schemas[id];
  if (!schema) throw new Error(`components.schemas.${id} is missing`);
  return schema;
}

describe("OpenAPI document", () => {
  it("is OpenAPI 3.1 with the dated version and the configured server", () => {
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    expect(document.info.version).toBe("2026-08-21");
    expect(document.info.title).not.toBe("");
    expect(document.servers.map((server) => server.url)).toEqual(["https://links.example"]);
  });

  it("states the configured write limit on 429 responses", () => {
    expect(document.paths["/api/links"]?.post?.responses["429"]?.description).toContain("limit 37 a minute");
  });

  it("survives a JSON round trip unchanged", () => {
    expect(JSON.parse(JSON.stringify(document))).toEqual(document);
  });

  it("resolves every $ref inside the document", () => {
    const refs = collectRefs(document);
    expect(refs.length).toBeGreaterThan(0);
    const dangling = refs.filter((ref) => resolvePointer(document, ref) === undefined);
    expect(dangling).toEqual([]);
  });

  // OAuth's own endpoints answer in OAuth's words (RFC 6749 §5.2), which OAuth clients read; the authorization request's success is a redirect.
  it("gives every operation a unique id, a summary, a success and an Error failure response (PaymentRequired on 402, OAuthError under /api/oauth)", () => {
    const ids = operations(document).map(([, op]) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const [name, op] of operations(document)) {
      const statuses = Object.keys(op.responses);
      expect(op.summary, name).not.toBe("");
      expect(
        statuses.some((status) => status.startsWith("2") || (op.operationId === "authorizeOAuth" && status === "303")),
        name,
      ).toBe(true);
      const failures = statuses.filter((status) => Number(status) >= 400);
      expect(failures.length, name).toBeGreaterThan(0);
      for (const status of failures) {
        const oauth = /^(registerOAuthClient|authorizeOAuth|exchangeOAuthToken|revokeOAuthToken)$/.test(op.operationId);
        const body =
          status === "402"
            ? "PaymentRequired"
            : oauth && status !== "429" && status !== "500" && status !== "413"
              ? "OAuthError"
              : "Error";
        expect(op.responses[status]?.content?.["application/json"]?.schema, `${name} ${status}`).toEqual({
          $ref: `#/components/schemas/${body}`,
        });
      }
    }
  });

  it("answers 401 and accepts X-Workspace-Id on every bearer operation", () => {
    const bearerOperations = operations(document).filter(([, op]) =>
      op.security.some((requirement) => "bearerAuth" in requirement),
    );
    expect(bearerOperations.length).toBeGreaterThan(0);
    for (const [name, op] of bearerOperations) {
      expect(op.responses["401"], name).toBeDefined();
      expect(op.parameters, name).toContainEqual({ $ref: "#/components/parameters/WorkspaceId" });
    }
    expect(document.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
  });

  it("marks key management as session-token only", () => {
    expect(document.paths["/api/billing/claim"]?.post?.["x-credentials"]).toBe("session");
    expect(document.paths["/api/billing/claim"]?.delete?.["x-credentials"]).toBe("session");
    expect(document.paths["/api/keys/rotate"]?.post?.["x-credentials"]).toBe("api_key");
    expect(document.paths["/api/machine-accounts/nonce"]?.get?.["x-credentials"]).toBe("none");
    expect(document.paths["/api/machine-accounts/key"]?.post).toMatchObject({
      "x-credentials": "none",
      requestBody: { content: { "application/json": { schema: { $ref: "#/components/schemas/RecoverKeyRequest" } } } },
    });
    expect(Object.keys(document.paths["/api/machine-accounts/key"]?.post?.responses ?? {})).toEqual(
      expect.arrayContaining(["200", "400", "401", "404", "410", "429"]),
    );
    expect(document.paths["/api/links"]?.post?.["x-credentials"]).toBe("api_key_or_session");
  });

  it("marks creating a link as payable without an account: x-payment, the payment scheme, a 402 with both challenge headers", () => {
    const create = document.paths["/api/links"]?.post;
    expect(create?.["x-payment"]).toMatchObject({
      protocols: ["mpp", "x402"],
      price: "0.50",
      currency: "USDC",
      network: "eip155:84532",
      docs: "https://links.example/docs/payments",
    });
    expect(create?.security).toEqual([{ bearerAuth: [] }, { paymentAuth: [] }, { oauth: ["links:write"] }, {}]);
    expect(document.components.securitySchemes.paymentAuth).toMatchObject({ type: "http", scheme: "payment" });
    expect(Object.keys(create?.responses["402"]?.headers ?? {})).toEqual(["WWW-Authenticate", "PAYMENT-REQUIRED"]);
    expect(Object.keys(create?.responses["201"]?.headers ?? {})).toEqual(["Payment-Receipt", "PAYMENT-RESPONSE"]);
    expect(componentSchema("PaidLink").required).toEqual(
      expect.arrayContaining(["id", "slug", "destination", "host", "status", "short_url", "receipt"]),
    );
    expect(componentSchema("PaymentRequired").required).toEqual(["error", "price", "currency", "pay", "docs"]);
  });

  it("describes billing: a closed checkout body with its defaults, the account report, and 402 on creating and editing", () => {
    const checkout = componentSchema("CheckoutRequest");
    expect(checkout.additionalProperties).toBe(false);
    expect(checkout.required ?? []).toEqual([]);
    expect(checkout.properties?.plan).toMatchObject({ enum: ["starter", "unlimited"], default: "unlimited" });
    expect(checkout.properties?.interval).toMatchObject({ enum: ["month", "year"], default: "month" });
    expect(document.paths["/api/billing/checkout"]?.post?.responses["200"]?.content?.["application/json"]?.schema).toEqual({
      $ref: "#/components/schemas/CheckoutResponse",
    });
    expect(document.paths["/api/billing/portal"]?.post?.responses["200"]).toBeDefined();
    expect(document.paths["/api/billing/webhook"]?.post?.["x-credentials"]).toBe("stripe_signature");
    expect(componentSchema("Account").required).toEqual(
      expect.arrayContaining([
        "plan",
        "interval",
        "status",
        "cycle_start",
        "cycle_end",
        "links_created_this_cycle",
        "cap",
        "can",
      ]),
    );
    for (const operation of [document.paths["/api/links"]?.post, document.paths["/api/links/{id}"]?.patch]) {
      expect(operation?.responses["402"]?.content?.["application/json"]?.schema).toEqual({
        $ref: "#/components/schemas/PaymentRequired",
      });
    }
    expect(document.paths["/api/links/{id}"]?.delete?.responses["402"]).toBeUndefined();
  });

  it("describes CreateLinkRequest as closed, with destination required", () => {
    const schema = componentSchema("CreateLinkRequest");
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toContain("destination");
    expect(Object.keys(schema.properties ?? {})).toEqual([
      "destination",
      "slug",
      "domain_id",
      "title",
      "tags",
      "password",
      "scan_limit",
      "preview",
    ]);
  });

  it("documents QR artwork and logos as binary downloads with ETag, 304, and uploads of the four image types", () => {
    const qr = document.paths["/api/links/{id}/qr"]?.get;
    expect(Object.keys(qr?.responses["200"]?.content ?? {})).toEqual(["image/svg+xml", "image/png"]);
    expect(Object.keys(qr?.responses["200"]?.headers ?? {})).toEqual(["ETag", "Cache-Control", "Content-Disposition"]);
    expect(qr?.responses["304"]).toBeDefined();
    expect(qr?.parameters).toContainEqual(
      expect.objectContaining({
        name: "size",
        in: "query",
        description: expect.stringContaining("the link's saved design"),
        schema: expect.objectContaining({ minimum: 64, maximum: 4096 }),
      }),
    );
    const design = document.paths["/api/links/{id}/qr-design"];
    expect(design?.put?.requestBody?.content?.["application/json"]?.schema).toEqual({
      $ref: "#/components/schemas/QrDesignRequest",
    });
    expect(design?.get?.responses["200"]?.content?.["application/json"]?.schema).toEqual({
      $ref: "#/components/schemas/QrDesign",
    });
    expect(componentSchema("QrDesignRequest").properties?.size).toMatchObject({ minimum: 64, maximum: 4096, default: 1024 });
    for (const path of ["/api/links/{id}/logo", "/api/workspaces/logo"] as const) {
      const item = document.paths[path];
      expect(Object.keys(item?.get?.responses["200"]?.content ?? {})).toEqual(["image/png"]);
      expect(Object.keys(item?.put?.requestBody?.content ?? {})).toEqual([
        "image/png",
        "image/jpeg",
        "image/webp",
        "image/svg+xml",
      ]);
      expect(item?.put?.responses["200"]?.content?.["application/json"]?.schema).toEqual({ $ref: "#/components/schemas/Logo" });
      expect(Object.keys(item?.put?.responses ?? {})).toEqual(expect.arrayContaining(["402", "413", "415"]));
      expect(item?.delete?.responses["204"]).toBeDefined();
      expect(item?.get?.responses["402"]).toBeUndefined();
    }
  });

  it("describes the Error body as { error: string }", () => {
    const schema = componentSchema("Error");
    expect(schema.required).toEqual(["error"]);
    expect(schema.properties?.error).toMatchObject({ type: "string" });
  });

  it("tags every operation with a tag the document describes", () => {
    const described = new Set(document.tags?.map((tag) => tag.name));
    const undescribed = operations(document).filter(([, op]) => !op.tags?.every((tag) => described.has(tag)));
    expect(undescribed.map(([name, op]) => `${name}: ${op.tags}`)).toEqual([]);
  });

  it("spells every pattern so that it means the same without the u flag, which JSON Schema tools and Python's re do not apply", () => {
    const patterns = new Map<string, unknown[]>();
    const collect = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(collect);
      if (node === null || typeof node !== "object") return;
      const schema = node as Record<string, unknown>;
      if (typeof schema.pattern === "string") {
        patterns.set(schema.pattern, [
          ...(patterns.get(schema.pattern) ?? []),
          ...(schema.example === undefined ? [] : [schema.example]),
        ]);
      }
      Object.values(schema).forEach(collect);
    };
    collect(document);
    expect(patterns.size).toBeGreaterThan(5);
    // Every character of the Basic Multilingual Plane alone, one of each other plane's, and the schemas' examples.
    const characters = Array.from({ length: 0x10000 }, (_, code) => String.fromCharCode(code));
    const samples = [...characters, "\u{1F600}", "\u{E0001}", "\u{110BD}", "Spring menu"];
    const differing = [...patterns].flatMap(([pattern, examples]) => {
      expect(pattern, "a Unicode property escape needs the u flag").not.toMatch(/\\[pP]\{/);
      const plain = new RegExp(pattern);
      const unicode = new RegExp(pattern, "u");
      const texts = [...samples, ...examples.filter((example): example is string => typeof example === "string")];
      return texts
        .filter((text) => plain.test(text) !== unicode.test(text))
        .map((text) => `${pattern} on ${JSON.stringify(text)}`);
    });
    expect(differing).toEqual([]);
    for (const [pattern, examples] of patterns) {
      for (const example of examples) if (typeof example === "string") expect(example, pattern).toMatch(new RegExp(pattern));
    }
  });

  it("describes an import's body by its type: a JSON export as JSON, a CSV file as text", () => {
    const content = document.paths["/api/imports"]?.post?.requestBody?.content;
    expect(content?.["application/json"]?.schema).toEqual({ $ref: "#/components/schemas/ImportJsonFile" });
    expect(content?.["text/csv"]?.schema).toEqual({ type: "string", contentMediaType: "text/csv" });
    const file = componentSchema("ImportJsonFile");
    expect(file.anyOf?.map((choice) => (choice as JsonSchema).type)).toEqual(["array", "object", "object", "object", undefined]);
    // Instead of a file, an import by API token: {source, token}.
    expect(file.anyOf?.at(-1)).toEqual({ $ref: "#/components/schemas/ImportFromPeer" });
    expect(componentSchema("ImportFromPeer")).toMatchObject({ type: "object", required: ["source", "token"] });
  });

  it("documents the limit query parameter of the list with its bounds", () => {
    const list = document.paths["/api/links"]?.get;
    expect(list?.parameters).toContainEqual(
      expect.objectContaining({ name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 200 } }),
    );
  });
});
