import { resetConfig } from "@/lib/config";
import { resetResolutionRuntime } from "@/lib/resolution/runtime";
import { resetSafetyChecker } from "@/lib/safety/instance";
import { appendFile, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";

/** Rebuilds configuration, the checker chain and the resolution runtime from process.env. */
export function refreshRuntime(): void {
  resetConfig();
  resetSafetyChecker();
  resetResolutionRuntime();
}

/**
 * A blocklist file of this test file's own, installed as SAFETY_BLOCKLIST_FILE, for destinations
 * that "turn bad" after their link was created.
 */
export async function useTestBlocklist(): Promise<{ add(domain: string, threat: string): Promise<void>; remove(): void }> {
  const file = path.join(await mkdtemp(path.join(tmpdir(), "blocklist-")), "blocklist.txt");
  await writeFile(file, "# domains that turned bad during the tests\n");
  process.env.SAFETY_BLOCKLIST_FILE = file;
  refreshRuntime();
  return {
    /** Lists a domain and waits out the checker's once-a-second reload. */
    async add(domain, threat) {
      await appendFile(file, `${domain} ${threat}\n`);
      await new Promise((resolve) => setTimeout(resolve, 1100));
    },
    remove() {
      delete process.env.SAFETY_BLOCKLIST_FILE;
      refreshRuntime();
    },
  };
}
