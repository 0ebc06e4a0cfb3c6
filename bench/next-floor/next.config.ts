import path from "node:path";
import type { NextConfig } from "next";

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // Next and React are the project's own, two folders up.
  turbopack: { root: path.join(import.meta.dirname, "../..") },
};

export default nextConfig;
