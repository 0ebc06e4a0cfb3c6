import { nextAuthRoute } from "@/lib/api/next-auth-route";

/**
 * next-auth's own browser protocol (sign-in forms, OAuth callbacks, the magic link, CSRF token,
 * session cookie): not an API operation, so it is neither wrapped nor documented
 * (tests/project/routes.test.ts names it).
 */
export { nextAuthRoute as GET, nextAuthRoute as POST };
