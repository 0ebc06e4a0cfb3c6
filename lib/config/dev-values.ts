import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { config } from "./index";

/**
 * A value generated once outside production and kept in the data folder (mode 600), so it
 * survives restarts: development secrets and keys. Concurrent first starts agree on one value.
 */
export async function readOrCreateDevValue(fileName: string, generate: () => string): Promise<string> {
  const file = path.resolve(config().DATA_DIR, fileName);
  const value = await readFile(file, "utf8").catch(async () => {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, generate(), { mode: 0o600, flag: "wx" }).catch(() => undefined);
    return readFile(file, "utf8");
  });
  return value.trim();
}
