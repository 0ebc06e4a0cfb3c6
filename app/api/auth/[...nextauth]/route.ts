import { otherMethods } from "@/lib/api/methods";
import { nextAuthRoute } from "@/lib/api/next-auth-route";

/**
 * next-auth's own browser protocol (sign-in forms, OAuth callbacks, the magic link, CSRF token,
 * session cookie): not an API operation, so it is neither wrapped nor documented
 * (tests/project/routes.test.ts names it).
 */
export const GET = nextAuthRoute;
export const POST = nextAuthRoute;
export const { PUT, PATCH, DELETE, OPTIONS } = otherMethods({ GET, POST });
