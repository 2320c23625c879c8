import { CommanderError } from '@commander-js/extra-typings';
import { buildProgram } from './program.js';
import { showError } from './errors.js';
import { EXIT } from './exitCodes.js';
import { InterruptedError } from './context.js';

/**
 * The command line's entry (cli/bin/domain-service.js runs it): parses, runs the command, and turns
 * whatever it throws into one line (or `--json`) on stderr and the exit code that says what happened.
 */
const json = process.argv.includes('--json');
const program = buildProgram({ json });

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) {
    // --help and --version end here too, successfully.
    process.exitCode = err.exitCode === 0 ? EXIT.ok.code : EXIT.usage.code;
  } else if (err instanceof InterruptedError || (err as Error).name === 'AbortError') {
    process.stderr.write('\n');
    process.exitCode = EXIT.interrupted.code;
  } else {
    const shown = showError(err);
    process.stderr.write(json ? `${JSON.stringify(shown.json)}\n` : `${process.stderr.isTTY && !process.env.NO_COLOR ? '\x1b[31merror\x1b[39m' : 'error'} ${shown.line}\n`);
    process.exitCode = shown.exit;
  }
}
