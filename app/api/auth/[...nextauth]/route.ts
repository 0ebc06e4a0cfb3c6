import NextAuth from "next-auth";
import { authOptions } from "@/lib/api/next-auth";

type Context = { params: Promise<{ nextauth: string[] }> };

/**
 * next-auth's own browser protocol (sign-in forms, OAuth callbacks, the magic link, CSRF token,
 * session cookie): not an API operation, so it is neither wrapped nor documented
 * (tests/project/routes.test.ts names it). The options are built per request from the configuration.
 */
async function handler(request: Request, context: Context): Promise<Response> {
  return NextAuth(authOptions())(request, context);
}

export { handler as GET, handler as POST };
