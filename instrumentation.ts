import { config } from "@/lib/config";

/**
 * Next runs this once when a server starts, before its first request: under `npm start`, `next start`
 * and on Vercel alike. next-auth v4 takes the app's public origin only from NEXTAUTH_URL (its
 * detectOrigin), for the links it builds and its secure cookies: BASE_URL is that origin. The one
 * write to process.env outside scripts/ and tests/ (tests/project/process-state.test.ts).
 */
export function register(): void {
  process.env.NEXTAUTH_URL = config().BASE_URL;
}
