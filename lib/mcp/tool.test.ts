import { defineOperation, failure, ok } from "@/lib/http/operation";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool, toolSchema } from "./tool";

describe("toolSchema", () => {
  it("inlines a schema with an id at the root, as MCP wants an object there, and keeps the definitions it refers to", () => {
    const item = z.object({ id: z.string() }).meta({ id: "Item" });
    const list = z.object({ items: z.array(item) }).meta({ id: "List" });

    expect(toolSchema(list, "output")).toEqual({
      type: "object",
      properties: { items: { type: "array", items: { $ref: "#/$defs/Item" } } },
      required: ["items"],
      additionalProperties: false,
      $defs: { Item: { type: "object", properties: { id: { type: "string" } }, required: ["id"], additionalProperties: false } },
    });
  });

  it("writes an input schema as the caller sends it: defaults optional, strict objects closed, no dialect keyword", () => {
    const input = z.strictObject({ size: z.coerce.number().int().default(3) });

    expect(toolSchema(input, "input")).toEqual({
      type: "object",
      properties: { size: { type: "integer", default: 3, minimum: expect.any(Number), maximum: expect.any(Number) } },
      additionalProperties: false,
    });
  });

  it("writes a nullable field as anyOf with a null branch, never as a type array, at any depth", () => {
    const note = z.object({ text: z.string().nullable().meta({ description: "null: none" }) }).meta({ id: "Note" });
    const page = z.object({ notes: z.array(note), cursor: z.string().nullable(), count: z.number().nullable() });

    expect(toolSchema(page, "output")).toEqual({
      type: "object",
      properties: {
        notes: { type: "array", items: { $ref: "#/$defs/Note" } },
        cursor: { anyOf: [{ type: "string" }, { type: "null" }] },
        count: { anyOf: [{ type: "number" }, { type: "null" }] },
      },
      required: ["notes", "cursor", "count"],
      additionalProperties: false,
      $defs: {
        Note: {
          type: "object",
          properties: { text: { anyOf: [{ type: "string" }, { type: "null" }], description: "null: none" } },
          required: ["text"],
          additionalProperties: false,
        },
      },
    });
  });
});

const item = z.object({ id: z.string(), name: z.string().nullable() }).meta({ id: "ToolTestItem" });
const renamedItem = item.extend({ renamed: z.boolean() }).meta({ id: "ToolTestRenamedItem" });

const renameItem = defineOperation({
  method: "patch",
  path: "/api/items/{id}",
  auth: "workspace",
  operationId: "renameItem",
  summary: "Rename an item",
  description: "Renames it.",
  tag: "Items",
  write: true,
  parameters: [{ name: "id", in: "path", required: true, description: "the item's id" }],
  body: z.strictObject({
    name: z.string().optional(),
    note: z.string().optional().meta({ description: "a note beside the name" }),
  }),
  responses: { 200: { description: "The item.", body: [item, renamedItem] }, 404: failure("No such item.") },
});

const listItems = defineOperation({
  method: "get",
  path: "/api/items",
  auth: "workspace",
  operationId: "listItems",
  summary: "List items",
  description: "Every item.",
  tag: "Items",
  query: z.strictObject({ limit: z.coerce.number().int().max(50).optional() }),
  responses: { 200: ok("The items.", z.object({ items: z.array(item) })) },
});

describe("defineTool", () => {
  const rename = defineTool(renameItem, {
    name: "rename_item",
    description: "Renames an item.",
    output: renamedItem,
    required: ["name"],
    run: async (input) => ({ id: input.id, name: input.name ?? null, renamed: true }),
  });

  it("takes its title, input, output and hints from the operation it names", () => {
    const list = defineTool(listItems, { name: "list_items", description: "Lists items.", run: async () => ({ items: [] }) });

    expect(list).toMatchObject({ title: "List items", input: listItems.query, annotations: { readOnlyHint: true } });
    expect(toolSchema(list.output!, "output")).toEqual(toolSchema(listItems.responses[200].body, "output"));
    expect(rename.title).toBe("Rename an item");
    expect(rename.output).toBe(renamedItem);
    expect(rename.annotations).toEqual({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: false,
      openWorldHint: false,
    });
  });

  it("takes the path's ids first, then the body's fields, requiring the ones the tool requires", () => {
    expect(toolSchema(rename.input, "input")).toEqual({
      type: "object",
      properties: {
        id: { type: "string", minLength: 1, description: "the item's id" },
        name: { type: "string" },
        note: { type: "string", description: "a note beside the name" },
      },
      required: ["id", "name"],
      additionalProperties: false,
    });
  });

  it("takes only the fields it names, when it is a door to part of the operation, and refuses the others", () => {
    const annotate = defineTool(renameItem, {
      name: "annotate_item",
      description: "Notes an item.",
      output: item,
      fields: ["note"],
      required: ["note"],
      run: async (input) => {
        // @ts-expect-error the tool does not take name
        void input.name;
        return { id: input.id, name: input.note ?? null };
      },
    });

    expect(toolSchema(annotate.input, "input")).toEqual({
      type: "object",
      properties: {
        id: { type: "string", minLength: 1, description: "the item's id" },
        note: { type: "string", description: "a note beside the name" },
      },
      required: ["id", "note"],
      additionalProperties: false,
    });
    expect(annotate.input.safeParse({ id: "itm_1", note: "hello" }).success).toBe(true);
    expect(annotate.input.safeParse({ id: "itm_1", note: "hello", name: "renamed" }).error?.issues).toMatchObject([
      { code: "unrecognized_keys", keys: ["name"] },
    ]);
  });

  it("refuses an output the operation does not answer with, and an ambiguous one", () => {
    expect(() =>
      defineTool(renameItem, { name: "bad", description: "", output: z.object({}) as never, run: async () => ({}) as never }),
    ).toThrow(/not a success body of renameItem/);
    expect(() => defineTool(renameItem, { name: "vague", description: "", run: async () => ({}) as never })).toThrow(
      /several bodies/,
    );
  });
});
