import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // The embedded database and Prisma's driver adapter are server-only Node modules.
  serverExternalPackages: ["@prisma/dev", "@electric-sql/pglite", "pg", "ioredis"],
  typedRoutes: false,
};

export default nextConfig;
