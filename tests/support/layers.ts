/**
 * lib/ in layers that point one way, as DEVELOPING.md draws them (tests/project/layers.test.ts keeps the code to it,
 * tests/project/map.test.ts keeps the drawing to it):
 * - the roof (api: the route wrapper; openapi: the document; mcp: the MCP server) imports anything below and is imported by app/ only;
 * - capabilities import the floor and each other downward only;
 * - the floor imports no capability.
 */
export const ROOF = ["api", "openapi", "mcp"];

/** The capabilities from the top down: each may import only those after it. */
export const CAPABILITIES = [
  "imports",
  "exports",
  "escrow",
  "abuse",
  "qr",
  "logos",
  "payments",
  "resolution",
  "analytics",
  "domains",
  "links",
  "utm",
  "tags",
  "members",
  "billing",
  "webhooks",
  "oauth",
  "workspaces",
  "auth",
  "safety",
  "health",
];

/** Folders, and files directly in lib/ (lib/clock.ts is the floor's "clock"), that import no capability. */
export const FLOOR = [
  "clock",
  "config",
  "deadline",
  "idle-process",
  "db",
  "email",
  "http",
  "log",
  "nats",
  "process-singleton",
  "schedule",
  "shared-store",
];
