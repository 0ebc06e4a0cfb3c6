import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

export const ROOT = path.resolve(import.meta.dirname, "../..");

const EXTENSIONS = [".ts", ".tsx", "/index.ts", "/index.tsx"];

/** Every .ts/.tsx file under `dir` (relative to the repository root), generated code left out. */
export function sourceFiles(dir: string): string[] {
  const absolute = path.join(ROOT, dir);
  if (!existsSync(absolute)) return [];
  return readdirSync(absolute).flatMap((name) => {
    const child = path.join(dir, name);
    if (name === "generated" || name === "node_modules") return [];
    if (statSync(path.join(ROOT, child)).isDirectory()) return sourceFiles(child);
    return /\.tsx?$/.test(name) && !name.endsWith(".d.ts") ? [child] : [];
  });
}

/** The project files `file` imports (type-only imports included), as paths relative to the root. */
export function importsOf(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), "utf8");
  const { importedFiles } = ts.preProcessFile(text, true, true);
  return importedFiles.flatMap(({ fileName }) => {
    const resolved = resolveSpecifier(file, fileName);
    return resolved ? [resolved] : [];
  });
}

function resolveSpecifier(from: string, specifier: string): string | null {
  let base: string;
  if (specifier.startsWith("@/")) base = specifier.slice(2);
  else if (specifier.startsWith(".")) base = path.join(path.dirname(from), specifier);
  else return null;
  if (/\.tsx?$/.test(base) && existsSync(path.join(ROOT, base))) return base;
  for (const extension of EXTENSIONS) {
    if (existsSync(path.join(ROOT, base + extension))) return base + extension;
  }
  return null;
}

/** Every project file reachable from `entry` through imports, `entry` included. */
export function importClosure(entry: string): string[] {
  const seen = new Set<string>([entry]);
  const queue = [entry];
  while (queue.length > 0) {
    for (const next of importsOf(queue.pop()!)) {
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return [...seen].sort();
}

/** The strongly connected components with more than one node (Tarjan): each is an import cycle. */
export function cycles(graph: Map<string, Set<string>>): string[][] {
  let index = 0;
  const indices = new Map<string, number>();
  const lowLinks = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string): void => {
    indices.set(node, index);
    lowLinks.set(node, index);
    index++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!indices.has(next)) {
        visit(next);
        lowLinks.set(node, Math.min(lowLinks.get(node)!, lowLinks.get(next)!));
      } else if (onStack.has(next)) {
        lowLinks.set(node, Math.min(lowLinks.get(node)!, indices.get(next)!));
      }
    }
    if (lowLinks.get(node) !== indices.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)?.has(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!indices.has(node)) visit(node);
  return found;
}
