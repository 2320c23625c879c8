/**
 * docs/architecture.md is drawn from the code: the floors it gives are the ones the import graph of
 * src/features/ has, no two features import each other, and every file and every name a newcomer is
 * sent to (`name` in `path`) exists.
 */
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');
const doc = readFileSync(path.join(root, 'docs/architecture.md'), 'utf8');
const featuresDir = path.join(root, 'src/features');
const features = readdirSync(featuresDir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : [];
  });
}

/** feature -> the features it imports (any import, types included). */
function featureGraph(): Map<string, Set<string>> {
  const graph = new Map(features.map((f) => [f, new Set<string>()]));
  for (const feature of features) {
    for (const file of sourceFiles(path.join(featuresDir, feature))) {
      for (const match of readFileSync(file, 'utf8').matchAll(/(?:import|export)[^'"]*?from\s+['"](\.[^'"]+)['"]/g)) {
        const target = path.relative(featuresDir, path.resolve(path.dirname(file), match[1]!));
        const to = target.split(path.sep)[0]!;
        if (!target.startsWith('..') && to !== feature && graph.has(to)) graph.get(feature)!.add(to);
      }
    }
  }
  return graph;
}

/**
 * The names a file declares: its functions, classes, interfaces, types, enums, variables, and the
 * methods of its classes and object literals (an activity factory's activities). A name it only
 * imports, calls or mentions in a comment is not declared there.
 */
const declared = new Map<string, Set<string>>();
function declaredNames(file: string): Set<string> {
  const known = declared.get(file);
  if (known) return known;
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false);
  const names = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (
      ts.isFunctionDeclaration(node) ||
      ts.isClassDeclaration(node) ||
      ts.isInterfaceDeclaration(node) ||
      ts.isTypeAliasDeclaration(node) ||
      ts.isEnumDeclaration(node) ||
      ts.isVariableDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isMethodSignature(node)
    ) {
      if (node.name && ts.isIdentifier(node.name)) names.add(node.name.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  declared.set(file, names);
  return names;
}

/** A feature's floor: 1 if it imports no feature, else one above the highest it imports. */
function floors(graph: Map<string, Set<string>>): Map<string, number> {
  const floor = new Map<string, number>();
  const visit = (f: string, seen: Set<string>): number => {
    const known = floor.get(f);
    if (known !== undefined) return known;
    if (seen.has(f)) throw new Error(`import cycle through ${[...seen, f].join(' > ')}`);
    const below = [...graph.get(f)!].map((g) => visit(g, new Set([...seen, f])));
    const value = below.length === 0 ? 1 : Math.max(...below) + 1;
    floor.set(f, value);
    return value;
  };
  for (const f of features) visit(f, new Set());
  return floor;
}

describe('the house as docs/architecture.md draws it', () => {
  it('has no two features importing each other, nor any cycle of features', () => {
    const graph = featureGraph();
    const mutual = features.flatMap((a) => [...graph.get(a)!].filter((b) => a < b && graph.get(b)!.has(a)).map((b) => `${a} <> ${b}`));
    expect(mutual).toEqual([]);
    expect(() => floors(graph)).not.toThrow();
  });

  it('gives each feature the floor the import graph has', () => {
    const computed = floors(featureGraph());
    // The doc's floors: lines "- floor N: `a`, `b`, ..." under "## The floors".
    const section = doc.split('\n## The floors')[1]?.split('\n## ')[0] ?? '';
    const drawn = new Map<string, number>();
    for (const line of section.matchAll(/^- floor (\d+): (.+)$/gm)) {
      for (const name of line[2]!.matchAll(/`([A-Za-z]+)\/`/g)) drawn.set(name[1]!, Number(line[1]));
    }
    expect(Object.fromEntries([...drawn].sort())).toEqual(Object.fromEntries([...computed].sort()));
  });

  it('sends a newcomer only to files that exist', () => {
    const paths = [...doc.matchAll(/`((?:src|test|workflows|activities|bench|scripts|client|cli|dashboard|terraform-provider)\/[\w./-]+\.(?:ts|tsx|go|js|mjs))`/g)].map((m) => m[1]!);
    expect(paths.length).toBeGreaterThan(20);
    expect(paths.filter((p) => !existsSync(path.join(root, p)))).toEqual([]);
  });

  it('names functions and types that are defined where it says', () => {
    const cited = [...doc.matchAll(/`([A-Za-z_$][\w$]*)` in `([\w./-]+\.tsx?)`/g)].map((m) => ({ name: m[1]!, file: m[2]! }));
    expect(cited.length).toBeGreaterThan(10);
    const missing = cited.filter(({ name, file }) => {
      const full = path.join(root, file);
      return !existsSync(full) || !declaredNames(full).has(name);
    });
    expect(missing).toEqual([]);
  });
});
