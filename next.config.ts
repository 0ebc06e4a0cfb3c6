import type { NextConfig } from "next";
import { PHASE_DEVELOPMENT_SERVER } from "next/constants";
import { APP_TOP_LEVEL_PATHS } from "./lib/links/app-paths";

/**
 * The app's pages load only their own scripts, styles, images and fonts, may not be framed, and
 * post forms only to themselves. Next's App Router streams its page data in inline scripts
 * (`self.__next_f.push(…)`) whose content changes per page, so scripts need 'unsafe-inline' unless
 * every page is rendered with a per-request nonce; the development server also evaluates code.
 */
const contentSecurityPolicy = (development: boolean) =>
  [
    "default-src 'self'",
    `script-src 'self' 'unsafe-inline'${development ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");

const LOGO_RENDERER_FILES = [
  "./lib/logos/render-process.mjs",
  "./node_modules/sharp/**/*",
  "./node_modules/@img/**/*",
  "./node_modules/detect-libc/**/*",
  "./node_modules/semver/**/*",
];

/** Decided by Next's phase, not NODE_ENV: a production build is what serves production, whatever NODE_ENV the build ran under. */
const securityHeaders = (development: boolean) => [
  { key: "Content-Security-Policy", value: contentSecurityPolicy(development) },
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  // Two years; browsers honour it only when it arrives over HTTPS.
  ...(development ? [] : [{ key: "Strict-Transport-Security", value: "max-age=63072000" }]),
];

/**
 * Next hands the proxy a copy of every request body it matches (every path but its assets) and
 * passes on no more than this to the route: above the largest body a route takes (an import,
 * MAX_IMPORT_BYTES in lib/imports/schemas.ts, 20 MiB) with room to spare, so a file over that
 * limit still arrives over it and is refused whole, never cut short and read as a smaller file.
 */
export const PROXY_BODY_LIMIT_BYTES = 40 * 1024 * 1024;

const nextConfig = (phase: string): NextConfig => ({
  poweredByHeader: false,
  experimental: { proxyClientMaxBodySize: PROXY_BODY_LIMIT_BYTES },
  // The embedded database and Prisma's driver adapter are server-only Node modules. mppx
  // lazily imports optional peers (x402's middlewares and MCP wrapper) that this app does not
  // install, so it is loaded by Node at run time rather than bundled. geoip-country reads its
  // country database from its own folder at run time.
  serverExternalPackages: ["@prisma/dev", "@electric-sql/pglite", "pg", "ioredis", "mppx", "geoip-country"],
  typedRoutes: false,
  // The QR route imports qrcode.react, React and react-dom/server at run time (lib/qr/render.ts
  // says why), so the tracer cannot see them: name them for the deployment.
  outputFileTracingIncludes: {
    "/api/links/*/qr": [
      "./node_modules/qrcode.react/**/*",
      "./node_modules/react/**/*",
      "./node_modules/react-dom/**/*",
      "./node_modules/scheduler/**/*",
    ],
    // Logos are decoded in a process of their own (lib/logos/render-sandbox.ts), which loads sharp by itself.
    ...Object.fromEntries(
      ["/api/links/*/logo", "/api/workspaces/logo", "/dashboard/links/*/logo"].map((route) => [route, LOGO_RENDERER_FILES]),
    ),
  },
  // The app's own paths only: the short-link doors answer the rest with headers of their own
  // (lib/resolution/answer.ts), the same from the node:http front door and from proxy.ts.
  async headers() {
    const headers = securityHeaders(phase === PHASE_DEVELOPMENT_SERVER);
    const appPaths = APP_TOP_LEVEL_PATHS.map((path) => path.replace(/[.]/g, "\\.")).join("|");
    return [
      { source: "/", headers },
      { source: `/:top(${appPaths})/:rest*`, headers },
      // An invitation's link (two segments, so never a short link; /invite alone stays a slug).
      { source: "/invite/:token", headers },
      // An app's consent page (two segments again; /connect alone stays a slug).
      { source: "/connect/:id", headers },
    ];
  },
});

export default nextConfig;
