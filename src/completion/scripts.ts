import type { CompletionNode, CompletionTree } from './tree.js';

const HEADER = '# vap shell completion, generated from the command tree by `vap completion`. Do not edit.';

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/** What a path offers: its subcommands and their aliases, an argument's choices, its own flags. */
function words(n: CompletionNode): string[] {
  return [...n.subcommands.flatMap((s) => [s.name, ...s.aliases]), ...(n.argumentChoices ?? []), ...n.options.flatMap((o) => o.flags)];
}

/** Options that take a value: key is `<path> <flag>`, or just `<flag>` for global options. */
function valueOptions({ globals, nodes }: CompletionTree): Array<{ key: string; choices?: string[] }> {
  const out: Array<{ key: string; choices?: string[] }> = [];
  for (const o of globals) if (o.takesValue) for (const f of o.flags) out.push({ key: f, choices: o.choices });
  for (const n of nodes) for (const o of n.options) if (o.takesValue) for (const f of o.flags) out.push({ key: `${n.path} ${f}`, choices: o.choices });
  return out;
}

const globalFlags = (t: CompletionTree) => t.globals.flatMap((o) => o.flags).join(' ');

/**
 * How each script reads the words typed so far (the same in the three shells): a word that
 * extends the path to a command goes on from there, an alias or `help <group>` as the command
 * it stands for (CompletionTree.same); a flag and the value it takes are skipped; any other
 * word (an argument) leaves the path where it is. So after a verb only its flags are offered,
 * never another verb.
 */
export function bashScript(t: CompletionTree): string {
  const nodes = t.nodes;
  const paths = nodes.map((n) => n.path);
  const cases = nodes.map((n) => `    ${q(n.path)}) words=${q(words(n).join(' '))} ;;`).join('\n');
  const same = t.same.map((s) => `      ${q(s.path)}) next=${q(s.is)} ;;`).join('\n');
  const values = valueOptions(t)
    .map((v) => `    ${v.key.includes(' ') ? q(v.key) : `*' ${v.key}'`}) ${v.choices ? `COMPREPLY=($(compgen -W ${q(v.choices.join(' '))} -- "$cur"))` : 'COMPREPLY=()'}; return ;;`)
    .join('\n');
  return `${HEADER}
# bash: source this file, or copy it to /etc/bash_completion.d/vap
_vap_paths=${q(`|${paths.join('|')}|`)}
_vap_valued=${q(`|${valueOptions(t).map((v) => v.key).join('|')}|`)}
_vap() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local path="vap" w i words next skip=""
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    if [[ -n "$skip" ]]; then skip=""; continue; fi
    case "$w" in
      -*) [[ "$_vap_valued" == *"|$w|"* || "$_vap_valued" == *"|$path $w|"* ]] && skip=1; continue ;;
    esac
    next="$path $w"
    case "$next" in
${same}
    esac
    [[ "$_vap_paths" == *"|$next|"* ]] && path="$next"
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
  const same = t.same.map((s) => `  ${q(s.path)} ${q(s.is)}`).join('\n');
  return `#compdef vap
${HEADER}
# zsh: put this file on your $fpath as _vap, or source it after compinit
typeset -gA _vap_tree _vap_values _vap_same
_vap_tree=(
${tree}
)
_vap_values=(
${values}
)
_vap_same=(
${same}
)
_vap() {
  local path="vap" w next skip="" prev="\${words[CURRENT-1]}"
  for w in "\${(@)words[2,CURRENT-1]}"; do
    if [[ -n "$skip" ]]; then skip=""; continue; fi
    if [[ "$w" == -* ]]; then
      (( \${+_vap_values[$w]} || \${+_vap_values[$path $w]} )) && skip=1
      continue
    fi
    next="$path $w"
    (( \${+_vap_same[$next]} )) && next="\${_vap_same[$next]}"
    (( \${+_vap_tree[$next]} )) && path="$next"
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
    for (const s of n.subcommands) {
      lines.push(`complete -c vap ${cond} -f -a ${q(s.name)} -d ${q(oneLine(s.description))}`);
      for (const a of s.aliases) lines.push(`complete -c vap ${cond} -f -a ${q(a)} -d ${q(`alias of ${s.name}`)}`);
    }
    for (const c of n.argumentChoices ?? []) lines.push(`complete -c vap ${cond} -f -a ${q(c)}`);
    for (const o of n.options) lines.push(fishOption(o, `${cond} `));
  }
  const paths = nodes.map((n) => n.path).join('|');
  const valued = valueOptions(t).map((v) => v.key).join('|');
  const same = t.same.map((s) => `            case ${q(s.path)}\n                set next ${q(s.is)}`).join('\n');
  return `${HEADER}
# fish: copy this file to ~/.config/fish/completions/vap.fish
function __vap_path_is
    set -l paths ${q(`|${paths}|`)}
    set -l valued ${q(`|${valued}|`)}
    set -l path vap
    set -l skip 0
    for w in (commandline -opc)[2..-1]
        if test $skip = 1
            set skip 0
            continue
        end
        if string match -q -- '-*' $w
            string match -q -- "*|$w|*" $valued; or string match -q -- "*|$path $w|*" $valued; and set skip 1
            continue
        end
        set -l next "$path $w"
        switch $next
${same}
        end
        string match -q -- "*|$next|*" $paths; and set path $next
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
