/**
 * A failure that becomes `{ error, ...details }` with a real status code; `message` is a
 * sentence for a human, `details` are fields some failures add (a 402's price and ways to pay).
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

export const UNAUTHENTICATED_MESSAGE =
  "Send a valid API key or session token in the Authorization header (Bearer).";

export const NOT_A_MEMBER_MESSAGE =
  "The workspace named in X-Workspace-Id does not exist or you are not a member of it.";

const BEARER_CHALLENGE = { "WWW-Authenticate": 'Bearer realm="api"' };

export function unauthenticated(message = UNAUTHENTICATED_MESSAGE): ApiError {
  return new ApiError(401, message, BEARER_CHALLENGE);
}

export function notAMember(): ApiError {
  return new ApiError(401, NOT_A_MEMBER_MESSAGE, BEARER_CHALLENGE);
}

export function forbidden(message: string): ApiError {
  return new ApiError(403, message);
}

export function notFound(message: string): ApiError {
  return new ApiError(404, message);
}
