import nextVitals from "eslint-config-next/core-web-vitals";
import nextTypescript from "eslint-config-next/typescript";
import { defineConfig, globalIgnores } from "eslint/config";

export default defineConfig([
  ...nextVitals,
  ...nextTypescript,
  globalIgnores([
    "**/.next/**",
    ".vercel/**",
    "node_modules/**",
    "lib/db/generated/**",
    "bench/results/**",
    "next-env.d.ts",
    "test-results/**",
  ]),
  {
    rules: {
      // A leading underscore marks what is left out on purpose (a destructured field dropped from a copy).
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", destructuredArrayIgnorePattern: "^_" },
      ],
    },
  },
]);
