/**
 * `npm run terraform:docs`: regenerates terraform-provider/docs/ (tfplugindocs, with the schema as
 * OpenTofu reads it: scripts/lib/terraformDocs.ts). Commit the result.
 */
import { resolveOpenTofu } from './lib/openTofu.js';
import { generateTerraformDocs } from './lib/terraformDocs.js';

const log = await generateTerraformDocs(await resolveOpenTofu((line) => console.error(line)));
console.error(log.trim());
console.log('terraform-provider/docs/ regenerated');
