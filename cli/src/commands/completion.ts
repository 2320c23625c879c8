import { Argument, Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { completionScript, SHELLS } from '../completions.js';

export function completionCommand(program: CommandUnknownOpts) {
  return new Command('completion')
    .description('print the shell completion script: bash, zsh or fish')
    .addArgument(new Argument('<shell>', 'the shell').choices(SHELLS))
    .addHelpText(
      'after',
      `
Install:
  bash  domain-service completion bash > ~/.local/share/bash-completion/completions/domain-service
  zsh   domain-service completion zsh > "\${fpath[1]}/_domain-service"   (then: compinit)
  fish  domain-service completion fish > ~/.config/fish/completions/domain-service.fish`,
    )
    .action((shell) => {
      process.stdout.write(completionScript(shell, program));
    });
}
