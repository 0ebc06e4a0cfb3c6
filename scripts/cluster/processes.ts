import { log } from "@/lib/log";
import { spawnSync } from "node:child_process";

const onPath = (command: string) => spawnSync("sh", ["-c", `command -v ${command}`]).status === 0;

/**
 * Makes sure each command is on the PATH, installing its Debian package when one is missing,
 * `install` allows it and this process may (root with apt-get); otherwise says which package to install.
 */
export function ensureCommands(packages: Record<string, string>, { install: mayInstall }: { install: boolean }): void {
  const missing = Object.entries(packages).filter(([command]) => !onPath(command));
  if (missing.length === 0) return;
  const names = missing.map(([, debianPackage]) => debianPackage);
  if (!mayInstall || process.getuid?.() !== 0 || !onPath("apt-get"))
    throw new Error(`The cluster needs ${names.join(", ")}: install them (Debian: apt-get install ${names.join(" ")}).`);
  log().info({ packages: names }, "installing what the cluster needs with apt-get");
  const install = () =>
    spawnSync("apt-get", ["install", "-y", "--no-install-recommends", ...names], { stdio: "inherit" }).status === 0;
  // A fresh machine may have no package lists yet: fetch them once and try again.
  if (install() || (spawnSync("apt-get", ["update"], { stdio: "inherit" }).status === 0 && install())) return;
  throw new Error(`apt-get could not install ${names.join(", ")}.`);
}
