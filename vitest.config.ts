import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL(".", import.meta.url)) } },
  test: {
    include: ["lib/**/*.test.ts", "tests/**/*.test.ts", "app/**/*.test.ts", "scripts/**/*.test.ts"],
    globalSetup: ["tests/support/global-setup.ts"],
    setupFiles: ["tests/support/per-file-setup.ts"],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    pool: "forks",
    // The embedded database serves every database name from one instance, so without a real
    // PostgreSQL the files share it and run one at a time.
    fileParallelism: Boolean(process.env.TEST_DATABASE_URL || process.env.DATABASE_URL),
  },
});
