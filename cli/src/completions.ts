import type { CommandUnknownOpts, Option } from '@commander-js/extra-typings';

/** One command of the tree, as completion scripts need it. */
interface Node {
  /** Words from the program's name: `[]` for the program itself, `['domains', 'register']`. */
  path: string[];
  description: string;
  subcommands: { name: string; description: string }[];
  options: { flags: string[]; takesValue: boolean; choices: readonly string[] | undefined; description: string }[];
}

function optionOf(option: Option) {
  return {
    flags: [option.long, option.short].filter((flag): flag is string => Boolean(flag)),
    takesValue: option.required || option.optional,
    choices: option.argChoices,
    description: option.description,
  };
}

/** Every command with its subcommands and options (its own and the program's), walked from the program. */
export function commandTree(program: CommandUnknownOpts): Node[] {
  const globals = program.options.map(optionOf);
  const nodes: Node[] = [];
  const visit = (command: CommandUnknownOpts, path: string[]) => {
    const own = command === program ? [] : command.options.map(optionOf);
    nodes.push({
      path,
      description: command.description(),
      subcommands: command.commands.map((sub) => ({ name: sub.name(), description: sub.description() })),
      options: [...own, ...globals, { flags: ['--help', '-h'], takesValue: false, choices: undefined, description: 'show help' }],
    });
    for (const sub of command.commands) visit(sub, [...path, sub.name()]);
  };
  visit(program, []);
  return nodes;
}

const valueFlags = (nodes: Node[]) => [...new Set(nodes.flatMap((node) => node.options.filter((o) => o.takesValue).flatMap((o) => o.flags)))];
const single = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * Bash: the words typed so far name a command (options and their values skipped); offer its
 * subcommands and options, or an option's choices right after it.
 */
function bash(name: string, nodes: Node[]): string {
  const fn = `_${name.replace(/-/g, '_')}`;
  const cases = nodes.map((node) => `    "${node.path.join(' ')}") words=${single([...node.subcommands.map((s) => s.name), ...node.options.flatMap((o) => o.flags)].join(' '))} ;;`);
  const choices = nodes
    .flatMap((node) => node.options.filter((o) => o.choices).map((o) => `    ${o.flags.join('|')}) COMPREPLY=($(compgen -W ${single(o.choices!.join(' '))} -- "$cur")); return ;;`))
    .filter((line, i, all) => all.indexOf(line) === i);
  return `# bash completion for ${name}: source it, or put it in ~/.local/share/bash-completion/completions/${name}
${fn}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" path="" word i words
  case "$prev" in
${choices.join('\n')}
  esac
${commandPathWalk(nodes, { first: 1, current: 'COMP_CWORD', words: 'COMP_WORDS' })}
  case "$path" in
${cases.join('\n')}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F ${fn} ${name}
`;
}

/**
 * The loop bash and zsh share: walks the words before the cursor, skipping options and their values,
 * and leaves in `path` the subcommands typed so far.
 */
function commandPathWalk(nodes: Node[], shell: { first: number; current: string; words: string }): string {
  const paths = nodes.filter((node) => node.path.length > 0).map((node) => `"${node.path.join(' ')}"`);
  return `  for ((i = ${shell.first}; i < ${shell.current}; i++)); do
    word="\${${shell.words}[i]}"
    case "$word" in
      ${valueFlags(nodes).join('|')}) ((i++)); continue ;;
      -*) continue ;;
    esac
    case "$path\${path:+ }$word" in
      ${paths.join('|')}) path="$path\${path:+ }$word" ;;
    esac
  done`;
}

/** Zsh: the same walk, with each subcommand's and option's description shown beside it. */
function zsh(name: string, nodes: Node[]): string {
  const fn = `_${name.replace(/-/g, '_')}`;
  const described = (items: { word: string; description: string }[]) => items.map((item) => single(`${item.word.replace(/:/g, '\\:')}:${item.description}`)).join(' ');
  const cases = nodes.map(
    (node) =>
      `    "${node.path.join(' ')}") commands=(${described(node.subcommands.map((s) => ({ word: s.name, description: s.description })))}); options=(${described(node.options.flatMap((o) => o.flags.map((flag) => ({ word: flag, description: o.description }))))}) ;;`,
  );
  const choices = nodes
    .flatMap((node) => node.options.filter((o) => o.choices).map((o) => `    ${o.flags.join('|')}) compadd -- ${o.choices!.map(single).join(' ')}; return ;;`))
    .filter((line, i, all) => all.indexOf(line) === i);
  return `#compdef ${name}
# zsh completion for ${name}: put it on your fpath as _${name}, or source it after compinit
${fn}() {
  local path="" word i
  local -a commands options
  case "\${words[CURRENT-1]}" in
${choices.join('\n')}
  esac
${commandPathWalk(nodes, { first: 2, current: 'CURRENT', words: 'words' })}
  case "$path" in
${cases.join('\n')}
  esac
  if [[ "\${words[CURRENT]}" == -* ]]; then
    _describe -t options option options
  elif (( \${#commands} )); then
    _describe -t commands command commands
  else
    _files
  fi
}
if [[ "$funcstack[1]" == "${fn}" ]]; then ${fn} "$@"; else compdef ${fn} ${name}; fi
`;
}

/** Fish: a function names the command typed so far; each completion applies to one command. */
function fish(name: string, nodes: Node[]): string {
  const fn = `__${name.replace(/-/g, '_')}_command`;
  const paths = nodes.filter((node) => node.path.length > 0).map((node) => single(node.path.join(' ')));
  const lines: string[] = [];
  for (const node of nodes) {
    const at = `-n ${single(`test "$(${fn})" = ${single(node.path.join(' '))}`)}`;
    for (const sub of node.subcommands) lines.push(`complete -c ${name} ${at} -a ${single(sub.name)} -d ${single(sub.description)}`);
    for (const option of node.options) {
      const long = option.flags.find((flag) => flag.startsWith('--'))?.slice(2);
      const short = option.flags.find((flag) => !flag.startsWith('--'))?.slice(1);
      const value = option.choices ? ` -x -a ${single(option.choices.join(' '))}` : option.takesValue ? ' -r' : '';
      lines.push(`complete -c ${name} ${at}${long ? ` -l ${long}` : ''}${short ? ` -s ${short}` : ''}${value} -d ${single(option.description)}`);
    }
  }
  return `# fish completion for ${name}: source it, or put it in ~/.config/fish/completions/${name}.fish
set -g ${fn}_paths ${paths.join(' ')}
function ${fn}
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l path
    set -l skip 0
    for token in $tokens
        if test $skip = 1
            set skip 0
            continue
        end
        switch $token
            case ${valueFlags(nodes).join(' ')}
                set skip 1
                continue
            case '-*'
                continue
        end
        set -l candidate (string join ' ' $path $token)
        if contains -- $candidate $${fn}_paths
            set path $path $token
        end
    end
    string join ' ' $path
end
complete -c ${name} -f
${lines.join('\n')}
`;
}

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** The completion script for `shell`, made from the command tree (nothing to keep in step by hand). */
export function completionScript(shell: Shell, program: CommandUnknownOpts): string {
  const nodes = commandTree(program);
  const name = program.name();
  return { bash, zsh, fish }[shell](name, nodes);
}
