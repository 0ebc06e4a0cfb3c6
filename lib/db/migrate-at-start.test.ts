import pg from "pg";
import { describe, expect, it } from "vitest";
import { isUnreachable } from "./migrate-at-start";

function databaseError(code: string): pg.DatabaseError {
  const error = new pg.DatabaseError("refused", 0, "error");
  error.code = code;
  return error;
}

describe("isUnreachable", () => {
  it.each([
    ["a refused connection", Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" })],
    ["a connection pg ended", new Error("Connection terminated unexpectedly")],
    ["a connect that timed out", new Error("timeout expired")],
    ["a server starting up", databaseError("57P03")],
    ["a connection exception", databaseError("08006")],
    ["a server out of connections", databaseError("53300")],
    ["a migration whose connection ended", new Error("Migration x failed", { cause: new Error("Connection terminated") })],
  ])("takes %s for a database that does not answer", (_, error) => {
    expect(isUnreachable(error)).toBe(true);
  });

  it.each([
    ["a migration the database refused", new Error("Migration x failed", { cause: databaseError("42P01") })],
    ["an edited migration", new Error("Migration x was edited after it was applied (checksum differs).")],
    ["a wrong password", databaseError("28P01")],
  ])("takes %s for a failure the start must not ride out", (_, error) => {
    expect(isUnreachable(error)).toBe(false);
  });
});
