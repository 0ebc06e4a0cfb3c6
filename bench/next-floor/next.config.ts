import type { NextConfig } from "next";
import path from "node:path";

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // Next and React are the project's own, two folders up.
  turbopack: { root: path.join(import.meta.dirname, "../..") },
};

export default nextConfig;
