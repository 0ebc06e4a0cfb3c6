import { getDMMF } from "@prisma/internals";
import { readFile } from "node:fs/promises";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

type Column = { table_name: string; column_name: string; data_type: string; udt_name: string; is_nullable: "YES" | "NO" };

const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
let columns: Map<string, Column>;

beforeAll(async () => {
  await client.connect();
  const { rows } = await client.query<Column>(
    "SELECT table_name, column_name, data_type, udt_name, is_nullable FROM information_schema.columns WHERE table_schema = 'public'",
  );
  columns = new Map(rows.map((row) => [`${row.table_name}.${row.column_name}`, row]));
});

afterAll(() => client.end());

/** The PostgreSQL type a Prisma field must have, from its scalar type and native type attribute. */
function expectedUdt(field: { kind: string; type: string; isList?: boolean; nativeType?: readonly unknown[] | null }): string {
  // PostgreSQL names an array type after its element type with a leading underscore (text[] is _text).
  if (field.isList) return `_${expectedUdt({ ...field, isList: false })}`;
  if (field.kind === "enum") return field.type;
  const native = field.nativeType?.[0];
  const byNative: Record<string, string> = {
    SmallInt: "int2",
    Timestamptz: "timestamptz",
    Text: "text",
    Uuid: "uuid",
    Date: "date",
  };
  if (typeof native === "string" && byNative[native]) return byNative[native];
  const byScalar: Record<string, string> = {
    String: "text",
    Int: "int4",
    BigInt: "int8",
    Boolean: "bool",
    DateTime: "timestamp",
    Float: "float8",
    Json: "jsonb",
    Bytes: "bytea",
  };
  return byScalar[field.type] ?? `unmapped ${field.type}`;
}

describe("schema.prisma against the migrated database", async () => {
  const dmmf = await getDMMF({ datamodel: await readFile("prisma/schema.prisma", "utf8") });
  const scalarFields = dmmf.datamodel.models.flatMap((model) =>
    model.fields
      .filter((field) => field.kind === "scalar" || field.kind === "enum")
      .map((field) => ({ table: model.dbName ?? model.name, column: field.dbName ?? field.name, field })),
  );

  it("reads a non-trivial model", () => {
    expect(dmmf.datamodel.models.length).toBeGreaterThanOrEqual(6);
  });

  it.each(scalarFields.map((entry) => [`${entry.table}.${entry.column}`, entry] as const))(
    "%s exists with a compatible type and nullability",
    (_name, { table, column, field }) => {
      const actual = columns.get(`${table}.${column}`);
      expect(actual, `${table}.${column} is missing from the database`).toBeDefined();
      expect(actual!.udt_name).toBe(expectedUdt(field));
      expect(actual!.is_nullable).toBe(field.isRequired ? "NO" : "YES");
    },
  );
});
