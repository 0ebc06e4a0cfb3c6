import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/**
 * The suites by kind, each a vitest project run by `npm run test:<kind>` and a step of `.ci/run`;
 * `npm test` runs them all. tests/project/test-kinds.test.ts fails on a test file no kind holds.
 */
export const TEST_KINDS = {
  unit: ["lib/**/*.test.ts", "app/**/*.test.ts", "components/**/*.test.ts", "server/**/*.test.ts", "scripts/**/*.test.ts"],
  project: ["tests/project/**/*.test.ts"],
  api: ["tests/api/**/*.test.ts"],
  db: ["tests/db/**/*.test.ts"],
  redis: ["tests/redis/**/*.test.ts"],
  nats: ["tests/nats/**/*.test.ts"],
  server: ["tests/server/**/*.test.ts"],
  cluster: ["tests/cluster/**/*.test.ts"],
  deployment: ["tests/deployment/**/*.test.ts"],
} as const;

export default defineConfig({
  resolve: { alias: { "@": fileURLToPath(new URL(".", import.meta.url)) } },
  test: {
    globalSetup: ["tests/support/global-setup.ts"],
    setupFiles: ["tests/support/per-file-setup.ts"],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    pool: "forks",
    // The embedded database serves every database name from one instance, so without a real
    // PostgreSQL the files share it and run one at a time.
    fileParallelism: Boolean(process.env.TEST_DATABASE_URL || process.env.DATABASE_URL),
    projects: Object.entries(TEST_KINDS).map(([name, include]) => ({ extends: true, test: { name, include: [...include] } })),
  },
});
