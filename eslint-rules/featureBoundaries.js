// A feature's index.ts is its only door (docs/architecture.md, "The house"). This rule resolves every
// relative import of a file under src/features/ or src/flows/ and refuses:
//   - another feature's file other than its index.ts (workflow code may also import another
//     feature's *.contract.ts, since a workflow bundle must not pull in a whole feature's face);
//   - from a feature: the flows layer, or the wiring (src/deps.ts, src/routes.ts, src/app.ts,
//     src/worker/, the top-level workflows/ and activities/ entry points).
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const features = path.join(root, 'src/features');
const flows = path.join(root, 'src/flows');
const wiring = ['src/deps.ts', 'src/routes.ts', 'src/app.ts', 'src/startup.ts', 'src/main.ts', 'src/worker', 'workflows', 'activities']
  .map((p) => path.join(root, p));

const inside = (dir, file) => {
  const rel = path.relative(dir, file);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
};
const featureOf = (file) => (inside(features, file) ? path.relative(features, file).split(path.sep)[0] : undefined);
// The principal is recorded for the router's own layers; a handler gets it typed as an argument.
const routerOnly = [path.join(root, 'src/auth/requestPrincipal.ts')];
const isWorkflowCode = (file) => /\.(workflow|contract)\.ts$/.test(file);

export const featureBoundaries = {
  meta: {
    type: 'problem',
    docs: { description: "Features meet only through each other's index.ts; features never import flows or the wiring." },
    schema: [],
    messages: {
      internals: "Import the '{{feature}}' feature through its index.ts, not '{{source}}' (docs/architecture.md).",
      upward: "A feature never imports {{what}} ('{{source}}'): pass what it needs in (docs/architecture.md).",
    },
  },
  create(context) {
    const file = context.filename;
    const fromFeature = featureOf(file);
    const fromFlow = inside(flows, file);
    if (!fromFeature && !fromFlow) return {};
    const check = (node) => {
      const source = node.source?.value;
      if (typeof source !== 'string' || !source.startsWith('.')) return;
      const target = path.resolve(path.dirname(file), source).replace(/\.js$/, '.ts');
      if (fromFeature) {
        if (inside(flows, target)) return context.report({ node, messageId: 'upward', data: { what: 'a flow', source } });
        const wired = wiring.find((w) => target === w || inside(w, target));
        if (wired) return context.report({ node, messageId: 'upward', data: { what: 'the wiring', source } });
        if (routerOnly.includes(target)) return context.report({ node, messageId: 'upward', data: { what: "the router's record of the caller (its handler is given the principal)", source } });
      }
      const toFeature = featureOf(target);
      if (!toFeature || toFeature === fromFeature) return;
      const rel = path.relative(path.join(features, toFeature), target);
      if (rel === 'index.ts') return;
      if (isWorkflowCode(file) && /\.contract\.ts$/.test(target)) return;
      context.report({ node, messageId: 'internals', data: { feature: toFeature, source } });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};

export default { rules: { 'feature-boundaries': featureBoundaries } };
