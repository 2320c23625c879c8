import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * terraform-provider/docs/ in the registry's layout, made by tfplugindocs. Terraform does not build
 * here, so the schema comes from OpenTofu: the provider is built into a temporary directory, named in
 * a private CLI configuration's dev_overrides, and `tofu providers schema -json` prints it;
 * tfplugindocs reads that file (--providers-schema) with the examples beside the provider.
 */
const run = promisify(execFile);
export const PROVIDER_DIR = path.resolve(import.meta.dirname, '../../terraform-provider');
const TFPLUGINDOCS = 'github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs@v0.24.0';
// The provider's own address (terraform-provider/internal/provider/provider.go).
const ADDRESS = 'registry.opentofu.org/domain-service/domainservice';

/** Writes `<providerDir>/docs` from the provider's sources in PROVIDER_DIR and the examples in providerDir. */
export async function generateTerraformDocs(tofu: string, providerDir = PROVIDER_DIR): Promise<string> {
  const work = await mkdtemp(path.join(os.tmpdir(), 'terraform-docs-'));
  try {
    await run('go', ['build', '-o', path.join(work, 'bin', 'terraform-provider-domainservice'), '.'], { cwd: PROVIDER_DIR });
    const cliConfig = path.join(work, 'tofurc');
    await writeFile(cliConfig, `provider_installation {\n  dev_overrides {\n    "${ADDRESS}" = "${path.join(work, 'bin')}"\n  }\n  direct {}\n}\n`);
    await writeFile(path.join(work, 'main.tf'), `terraform {\n  required_providers {\n    domainservice = { source = "${ADDRESS}" }\n  }\n}\n`);
    const { stdout } = await run(tofu, ['providers', 'schema', '-json'], {
      cwd: work,
      env: { ...process.env, TF_CLI_CONFIG_FILE: cliConfig },
      maxBuffer: 64 * 1024 * 1024,
    });
    const schemas = JSON.parse(stdout) as { provider_schemas: Record<string, unknown> };
    // tfplugindocs finds a provider by its short name (or under registry.terraform.io/hashicorp/).
    const schemaFile = path.join(work, 'schema.json');
    await writeFile(schemaFile, JSON.stringify({ ...schemas, provider_schemas: { domainservice: schemas.provider_schemas[ADDRESS] } }));
    const generate = ['run', TFPLUGINDOCS, 'generate', '--provider-dir', providerDir, '--provider-name', 'domainservice'];
    const { stdout: log } = await run('go', [...generate, '--rendered-provider-name', 'Domain Service', '--providers-schema', schemaFile], {
      cwd: work,
      maxBuffer: 16 * 1024 * 1024,
    });
    return log;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
