import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // The embedded database and Prisma's driver adapter are server-only Node modules. mppx
  // lazily imports optional peers (the MCP SDK) that this app does not install, so it is loaded
  // by Node at run time rather than bundled.
  serverExternalPackages: ["@prisma/dev", "@electric-sql/pglite", "pg", "ioredis", "mppx"],
  typedRoutes: false,
};

export default nextConfig;
