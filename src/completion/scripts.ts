import type { CompletionNode, CompletionTree } from './tree.js';

const HEADER = '# vap shell completion, generated from the command tree by `vap completion`. Do not edit.';

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

function words(n: CompletionNode): string[] {
  return [...n.subcommands.map((s) => s.name), ...(n.argumentChoices ?? []), ...n.options.flatMap((o) => o.flags)];
}

/** Options that take a value: key is `<path> <flag>`, or just `<flag>` for global options. */
function valueOptions({ globals, nodes }: CompletionTree): Array<{ key: string; choices?: string[] }> {
  const out: Array<{ key: string; choices?: string[] }> = [];
  for (const o of globals) if (o.takesValue) for (const f of o.flags) out.push({ key: f, choices: o.choices });
  for (const n of nodes) for (const o of n.options) if (o.takesValue) for (const f of o.flags) out.push({ key: `${n.path} ${f}`, choices: o.choices });
  return out;
}

const globalFlags = (t: CompletionTree) => t.globals.flatMap((o) => o.flags).join(' ');

export function bashScript(t: CompletionTree): string {
  const nodes = t.nodes;
  const paths = nodes.map((n) => n.path);
  const cases = nodes.map((n) => `    ${q(n.path)}) words=${q(words(n).join(' '))} ;;`).join('\n');
  const values = valueOptions(t)
    .map((v) => `    ${v.key.includes(' ') ? q(v.key) : `*' ${v.key}'`}) ${v.choices ? `COMPREPLY=($(compgen -W ${q(v.choices.join(' '))} -- "$cur"))` : 'COMPREPLY=()'}; return ;;`)
    .join('\n');
  return `${HEADER}
# bash: source this file, or copy it to /etc/bash_completion.d/vap
_vap_paths=${q(`|${paths.join('|')}|`)}
_vap() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local path="vap" w i words
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$w" in -*) continue ;; esac
    [[ "$_vap_paths" == *"|$path $w|"* ]] && path="$path $w"
  done
  case "$path $prev" in
${values}
  esac
  case "$path" in
${cases}
  esac
  COMPREPLY=($(compgen -W "$words ${globalFlags(t)}" -- "$cur"))
}
complete -o default -F _vap vap
`;
}

export function zshScript(t: CompletionTree): string {
  const tree = t.nodes.map((n) => `  ${q(n.path)} ${q(words(n).join(' '))}`).join('\n');
  const values = valueOptions(t).map((v) => `  ${q(v.key)} ${q(v.choices?.join(' ') ?? '')}`).join('\n');
  return `#compdef vap
${HEADER}
# zsh: put this file on your $fpath as _vap, or source it after compinit
typeset -gA _vap_tree _vap_values
_vap_tree=(
${tree}
)
_vap_values=(
${values}
)
_vap() {
  local path="vap" w prev="\${words[CURRENT-1]}"
  for w in "\${(@)words[2,CURRENT-1]}"; do
    [[ "$w" == -* ]] && continue
    (( \${+_vap_tree[$path $w]} )) && path="$path $w"
  done
  local key="$path $prev"
  (( \${+_vap_values[$key]} )) || key="$prev"
  if (( \${+_vap_values[$key]} )); then
    if [[ -n "\${_vap_values[$key]}" ]]; then
      compadd -- \${=_vap_values[$key]}
    else
      _files
    fi
    return
  fi
  compadd -- \${=_vap_tree[$path]} ${globalFlags(t)}
}
if (( $+functions[compdef] )); then compdef _vap vap; fi
`;
}

function fishOption(o: CompletionNode['options'][number], cond: string): string {
  const flags = o.flags.map((f) => (f.startsWith('--') ? `-l ${f.slice(2)}` : `-s ${f.slice(1)}`)).join(' ');
  const value = o.takesValue ? (o.choices ? ` -x -a ${q(o.choices.join(' '))}` : ' -r') : '';
  return `complete -c vap ${cond}${flags}${value} -d ${q(oneLine(o.description))}`;
}

export function fishScript(t: CompletionTree): string {
  const nodes = t.nodes;
  const lines: string[] = t.globals.map((o) => fishOption(o, ''));
  for (const n of nodes) {
    const cond = `-n ${q(`__vap_path_is ${q(n.path)}`)}`;
    for (const s of n.subcommands) lines.push(`complete -c vap ${cond} -f -a ${q(s.name)} -d ${q(oneLine(s.description))}`);
    for (const c of n.argumentChoices ?? []) lines.push(`complete -c vap ${cond} -f -a ${q(c)}`);
    for (const o of n.options) lines.push(fishOption(o, `${cond} `));
  }
  const paths = nodes.map((n) => n.path).join('|');
  return `${HEADER}
# fish: copy this file to ~/.config/fish/completions/vap.fish
function __vap_path_is
    set -l paths ${q(`|${paths}|`)}
    set -l path vap
    for w in (commandline -opc)[2..-1]
        string match -q -- '-*' $w; and continue
        string match -q -- "*|$path $w|*" $paths; and set path "$path $w"
    end
    test "$path" = "$argv[1]"
end
complete -c vap -f
${lines.join('\n')}
`;
}

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

export function completionScript(shell: Shell, tree: CompletionTree): string {
  return shell === 'bash' ? bashScript(tree) : shell === 'zsh' ? zshScript(tree) : fishScript(tree);
}
