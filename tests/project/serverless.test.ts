import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { importClosure, ROOT } from "../support/import-graph";

describe("the request proxy as a serverless function", () => {
  it("never parks scans: nothing it imports gives the scan buffer an overflow", () => {
    // A Vercel instance may freeze once its visits' scans are written: a parked batch would wait
    // in scan_inbox for a writer that may never run again, and writing parked batches could hold
    // the instance's last visit. Only the long-lived server (server/start.ts) parks.
    const closure = importClosure("proxy.ts").map((file) => path.join(ROOT, file));
    expect(closure.length).toBeGreaterThan(10);
    const source = (file: string) => readFileSync(file, "utf8");
    const relative = (files: string[]) => files.map((file) => path.relative(ROOT, file));
    // The one call of useOverflow is inside parkScansWhenBehind (the split buffer hands it on to its
    // buffers, in scan-buffer.ts), and nothing the proxy imports calls that.
    expect(relative(closure.filter((file) => /\.useOverflow\(/.test(source(file))))).toEqual([
      "lib/analytics/scan-buffer.ts",
      "lib/analytics/scans.ts",
    ]);
    expect(relative(closure.filter((file) => /parkScansWhenBehind\(\);/.test(source(file))))).toEqual([]);
    expect(source(path.join(ROOT, "server/start.ts"))).toMatch(/parkScansWhenBehind\(\);/);
  });
});
