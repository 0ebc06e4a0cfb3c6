import { z } from "zod";
import { describe, expect, it } from "vitest";
import { objectSchema } from "./tool";

describe("objectSchema", () => {
  it("inlines a schema with an id at the root, as MCP wants an object there, and keeps the definitions it refers to", () => {
    const item = z.object({ id: z.string() }).meta({ id: "Item" });
    const list = z.object({ items: z.array(item) }).meta({ id: "List" });

    expect(objectSchema(list, "output")).toEqual({
      type: "object",
      properties: { items: { type: "array", items: { $ref: "#/$defs/Item" } } },
      required: ["items"],
      additionalProperties: false,
      $defs: { Item: { type: "object", properties: { id: { type: "string" } }, required: ["id"], additionalProperties: false } },
    });
  });

  it("writes an input schema as the caller sends it: defaults optional, strict objects closed, no dialect keyword", () => {
    const input = z.strictObject({ size: z.coerce.number().int().default(3) });

    expect(objectSchema(input, "input")).toEqual({
      type: "object",
      properties: { size: { type: "integer", default: 3, minimum: expect.any(Number), maximum: expect.any(Number) } },
      additionalProperties: false,
    });
  });
});
