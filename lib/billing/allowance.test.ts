import { config } from "@/lib/config";
import { createDb, db } from "@/lib/db/client";
import { newId } from "@/lib/db/random";
import { afterAll, describe, expect, inject, it } from "vitest";
import { releaseUnit, reserveUnit, unitsUsed } from "./store";

/**
 * Two app instances: separate Prisma clients with their own connection pools on one database.
 * The embedded database is safe with one connection only, so there both share the process client.
 */
const separatePools = !inject("testDatabase").embedded;
const instances = separatePools ? [createDb(config().DATABASE_URL!, 10), createDb(config().DATABASE_URL!, 10)] : [db(), db()];

afterAll(async () => {
  if (separatePools) await Promise.all(instances.map((instance) => instance.$disconnect()));
});

async function newWorkspace(): Promise<string> {
  const id = newId("ws");
  await db().workspace.create({ data: { id, name: "allowance test", kind: "personal" } });
  return id;
}

describe("the link allowance counter", () => {
  it("gives exactly the units left to 100 concurrent reservations split across two instances", async () => {
    const workspaceId = await newWorkspace();
    const cycleStart = new Date("2026-11-01T00:00:00Z");
    for (let i = 0; i < 95; i++) await instances[0]!.$transaction((tx) => reserveUnit(tx, workspaceId, cycleStart, 100));

    const outcomes = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        instances[i % 2]!.$transaction((tx) => reserveUnit(tx, workspaceId, cycleStart, 100)),
      ),
    );

    expect(outcomes.filter(Boolean)).toHaveLength(5);
    expect(await unitsUsed(workspaceId, cycleStart)).toBe(100);
  });

  it("counts each cycle on its own and takes a unit back", async () => {
    const workspaceId = await newWorkspace();
    const [november, december] = [new Date("2026-11-01T00:00:00Z"), new Date("2026-12-01T00:00:00Z")];
    await db().$transaction((tx) => reserveUnit(tx, workspaceId, november, 1));

    expect(await db().$transaction((tx) => reserveUnit(tx, workspaceId, november, 1))).toBe(false);
    expect(await db().$transaction((tx) => reserveUnit(tx, workspaceId, december, 1))).toBe(true);
    await db().$transaction((tx) => releaseUnit(tx, workspaceId, november));
    expect(await unitsUsed(workspaceId, november)).toBe(0);
    expect(await unitsUsed(workspaceId, december)).toBe(1);
  });
});
