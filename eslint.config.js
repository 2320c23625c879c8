import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import localRules from './eslint-rules/featureBoundaries.js';

/** The worker's entry points and src/worker/: wiring, which features and plumbing never import. */
const WIRING_OF_THE_WORKER = ['**/worker/**', '**/workflows/**', '**/activities/**'];

const nodeBuiltins = builtinModules.filter((name) => !name.startsWith('_')).flatMap((name) => [name, `node:${name}`]);

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.data/', 'coverage/', 'client/dist/', 'dashboard/dist/', 'cli/.bundle/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // A feature's index.ts is its only door; features never import a flow, the wiring or the worker's
    // entry points (workflows/, activities/), whose workflows proxy their own activities' type.
    files: ['src/features/**/*.ts', 'src/flows/**/*.ts'],
    ignores: ['**/*.test.ts'],
    plugins: { local: localRules },
    rules: { 'local/feature-boundaries': 'error' },
  },
  {
    // Workflow code must stay deterministic: no Node built-ins, and values only from the workflow SDK,
    // other workflow files and contracts; everything else (activities, services) as types only.
    files: ['src/**/*.workflow.ts', 'src/**/*.contract.ts', 'workflows/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          paths: nodeBuiltins.map((name) => ({ name, message: 'Workflow code runs in a deterministic sandbox: no Node built-ins.' })),
          patterns: [
            {
              // The worker's wiring is left out, so that the pattern below refuses even its types.
              regex: '^(?!.*/(worker|workflows|activities)/)\\.{1,2}/(?!.*\\.(workflow|contract)\\.js$)',
              allowTypeImports: true,
              message: 'Workflow code imports values only from *.workflow.ts and *.contract.ts files; call activities through proxyActivities.',
            },
            { group: WIRING_OF_THE_WORKER, message: 'A workflow proxies its own feature\'s activities\' type, never the worker\'s composition (docs/architecture.md).' },
          ],
        },
      ],
    },
  },
  {
    // Shared plumbing never imports a feature, the worker or the composition root (docs/architecture.md).
    files: [
      'src/{audit,auth,db,http,mail,metrics,openapi,rateLimit,registrar,telemetry,temporal,upstream}/**/*.ts',
      'src/{config,configSchema,dataDir,dnsRecordTypes,domainName,errors,ids,logger,platformDeps,redis,registrableName}.ts',
    ],
    ignores: ['**/*.test.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/features/**', '**/flows/**', '**/deps.js', '**/app.js', '**/routes.js', '**/startup.js', '**/workflows.js', '**/dashboard/**', ...WIRING_OF_THE_WORKER],
              message: 'Shared plumbing never imports a feature or the code that wires them (docs/architecture.md).',
            },
          ],
        },
      ],
    },
  },
  {
    // The Browser SDK runs in browsers too: fetch, AbortController and crypto only, never Node built-ins.
    files: ['client/src/**/*.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { paths: nodeBuiltins.map((name) => ({ name, message: 'The Browser SDK runs in browsers: no Node built-ins.' })) },
      ],
    },
  },
  {
    files: ['**/*.test.ts', 'test/**/*.ts'],
    rules: {
      // Tests inspect parsed JSON responses field by field.
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
    },
  },
  { files: ['eslint.config.js', 'eslint-rules/*.js'], ...tseslint.configs.disableTypeChecked },
  // The command line's launcher is plain JavaScript for Node, outside every tsconfig.
  {
    files: ['cli/bin/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: { process: 'readonly' } },
  },
);
