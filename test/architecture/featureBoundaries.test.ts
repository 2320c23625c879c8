/** The lint rule that keeps features meeting only through their index.ts (eslint-rules/featureBoundaries.js). */
import path from 'node:path';
import { describe, it } from 'vitest';
import { RuleTester } from 'eslint';
import tseslint from 'typescript-eslint';
import { featureBoundaries } from '../../eslint-rules/featureBoundaries.js';

const root = path.resolve(import.meta.dirname, '../..');
const at = (file: string) => path.join(root, file);
RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;
const tester = new RuleTester({ languageOptions: { parser: tseslint.parser, ecmaVersion: 2022, sourceType: 'module' } });

tester.run('feature-boundaries', featureBoundaries, {
  valid: [
    { filename: at('src/features/dns/zones.ts'), code: "import { domainNamed } from '../domains/index.js';" },
    { filename: at('src/features/dns/zones.ts'), code: "import { hostName } from './recordSyntax.js';" },
    { filename: at('src/features/dns/provider/index.ts'), code: "import { zoneHost } from '../zones.js';" },
    { filename: at('src/features/dns/zones.ts'), code: "import { ApiError } from '../../errors.js';" },
    { filename: at('src/flows/registerDomain/registerDomain.ts'), code: "import { reserve } from '../../features/billing/index.js';" },
    { filename: at('src/flows/registerDomain/registerDomain.workflow.ts'), code: "import { DOMAIN_OPERATION_RETRIES } from '../../features/domains/operations.contract.js';" },
    // Outside features and flows (plumbing has its own rule in eslint.config.js; tests are not checked).
    { filename: at('src/routes.ts'), code: "import { x } from './features/dns/zones.js';" },
  ],
  invalid: [
    { filename: at('src/features/dns/zones.ts'), code: "import { findDomainById } from '../domains/domains.repository.js';", errors: [{ messageId: 'internals' }] },
    { filename: at('src/features/dns/provider/pdns.ts'), code: "import type { Domain } from '../../domains/domains.repository.js';", errors: [{ messageId: 'internals' }] },
    { filename: at('src/features/dns/zones.ts'), code: "export { findDomainById } from '../domains/domains.repository.js';", errors: [{ messageId: 'internals' }] },
    { filename: at('src/flows/registerDomain/registerDomain.ts'), code: "import { reserve } from '../../features/billing/ledger.js';", errors: [{ messageId: 'internals' }] },
    { filename: at('src/features/domains/domains.routes.ts'), code: "import { renewDomainRoutes } from '../../flows/renewDomain/renewDomain.routes.js';", errors: [{ messageId: 'upward' }] },
    { filename: at('src/features/domains/domains.routes.ts'), code: "import type { AppDeps } from '../../deps.js';", errors: [{ messageId: 'upward' }] },
    { filename: at('src/features/domains/operationSteps.ts'), code: "import type { Activities } from '../../../activities/index.js';", errors: [{ messageId: 'upward' }] },
    { filename: at('src/features/orgs/members.routes.ts'), code: "import { principalOf } from '../../auth/requestPrincipal.js';", errors: [{ messageId: 'upward' }] },
    // Workflow code may import another feature's contract directly, but nothing else of it.
    { filename: at('src/flows/registerDomain/registerDomain.workflow.ts'), code: "import type { Domain } from '../../features/domains/domains.repository.js';", errors: [{ messageId: 'internals' }] },
  ],
});
