/** True when the error is PostgreSQL's unique violation, as surfaced by Prisma or pg. */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, cause } = error as { code?: unknown; cause?: unknown };
  if (code === "P2002" || code === "23505") return true;
  return cause !== undefined && cause !== error && isUniqueViolation(cause);
}

/** True when the error is PostgreSQL's foreign key violation (a row is still referenced), as surfaced by Prisma or pg. */
export function isForeignKeyViolation(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, cause } = error as { code?: unknown; cause?: unknown };
  if (code === "P2003" || code === "23503") return true;
  return cause !== undefined && cause !== error && isForeignKeyViolation(cause);
}

/** True when a lock did not come within the transaction's lock_timeout (PostgreSQL's lock_not_available). */
export function isLockNotAvailable(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "55P03";
}
