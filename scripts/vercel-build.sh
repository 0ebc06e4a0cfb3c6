#!/usr/bin/env bash
# The deployment artifact as Vercel builds it: `vercel build` (the CLI pinned in package.json) writes
# .vercel/output from vercel.json, offline and without an account, from a project file written here.
# The build command migrates a database first: DATABASE_URL when set, else the embedded one.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .vercel
printf '%s\n' '{"projectId":"prj_local_build","orgId":"team_local_build","settings":{"framework":"nextjs","nodeVersion":"24.x"}}' \
  >.vercel/project.json
# The production configuration must validate; a throwaway secret is enough to build.
AUTH_SECRET="${AUTH_SECRET:-$(node -e 'console.log(require("node:crypto").randomBytes(32).toString("base64url"))')}" \
  NO_UPDATE_NOTIFIER=1 VERCEL_TELEMETRY_DISABLED=1 NEXT_TELEMETRY_DISABLED=1 \
  npx --no-install vercel build --yes
