import type { Takes } from './takes.js';
import type { CompletionNode, CompletionTree } from './tree.js';

const HEADER = '# vap shell completion, generated from the command tree by `vap completion`. Do not edit.';

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim();

/**
 * What every completion script offers and how it reads the words typed, the same in bash, zsh
 * and fish (the rules: src/completion/README.md).
 */

/** The subcommands of a path, aliases included. */
const commandWords = (n: CompletionNode) => n.subcommands.flatMap((s) => [s.name, ...s.aliases]);
const flagWords = (n: CompletionNode) => n.options.flatMap((o) => o.flags);

/** Options that take a value: key is `<path> <flag>`, or just `<flag>` for global options; with what the value takes. */
function valueOptions({ globals, nodes }: CompletionTree): Array<{ key: string; global: boolean; takes?: Takes }> {
  const out: Array<{ key: string; global: boolean; takes?: Takes }> = [];
  for (const o of globals) if (o.takesValue) for (const f of o.flags) out.push({ key: f, global: true, takes: o.takes });
  for (const n of nodes)
    for (const o of n.options) if (o.takesValue) for (const f of o.flags) out.push({ key: `${n.path} ${f}`, global: false, takes: o.takes });
  return out;
}

/**
 * What each argument of a path takes, by position: `0`, `1`…; a variadic last argument's
 * position is `*` (that position and every one after it). The first argument's choices are
 * also offered beside the subcommands.
 */
function argumentSlots(n: CompletionNode): Array<{ at: number | '*'; index: number; takes?: Takes }> {
  return n.args.map((takes, i) => ({ at: n.variadic && i === n.args.length - 1 ? '*' : i, index: i, takes }));
}

const globalFlags = (t: CompletionTree) => t.globals.flatMap((o) => o.flags).join(' ');

/** The bash code that offers what a value takes (`cur` is the word being completed). */
function bashTakes(takes: Takes | undefined): string {
  if (takes === 'file') return '_vap_files';
  if (takes === 'dir') return '_vap_dirs';
  if (takes) return `COMPREPLY=($(compgen -W ${q(takes.values.join(' '))} -- "$cur"))`;
  return ':';
}

export function bashScript(t: CompletionTree): string {
  const nodes = t.nodes;
  const paths = nodes.map((n) => n.path);
  const same = t.same.map((s) => `      ${q(s.path)}) next=${q(s.is)} ;;`).join('\n');
  const values = valueOptions(t);
  const ownValues = values
    .filter((v) => !v.global)
    .map((v) => `      ${q(v.key)}) ${bashTakes(v.takes)} ;;`)
    .join('\n');
  const globalValues = values
    .filter((v) => v.global)
    .map((v) => `        ${q(v.key)}) ${bashTakes(v.takes)} ;;`)
    .join('\n');
  const flags = nodes
    .filter((n) => n.options.length > 0)
    .map((n) => `      ${q(n.path)}) w=${q(flagWords(n).join(' '))} ;;`)
    .join('\n');
  const words = nodes
    .map((n) => {
      const slots = argumentSlots(n);
      const commands = commandWords(n);
      if (commands.length === 0 && slots.every((s) => !s.takes)) return undefined;
      const first = slots[0]?.takes;
      const zero = commands.length
        ? `COMPREPLY=($(compgen -W ${q([...commands, ...(first && typeof first === 'object' ? first.values : [])].join(' '))} -- "$cur"))`
        : bashTakes(first);
      const cases = [`0) ${zero} ;;`, ...slots.filter((s) => s.at !== 0).map((s) => `${s.at}) ${bashTakes(s.takes)} ;;`)];
      return `    ${q(n.path)}) case $n in ${cases.join(' ')} esac ;;`;
    })
    .filter(Boolean)
    .join('\n');
  return `${HEADER}
# bash: source this file, or copy it to /etc/bash_completion.d/vap
_vap_paths=${q(`|${paths.join('|')}|`)}
_vap_valued=${q(`|${values.map((v) => v.key).join('|')}|`)}
_vap_files() { compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- "$cur")); }
_vap_dirs() { compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -d -- "$cur")); }
_vap() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local path="vap" w i next skip="" n=0
  COMPREPLY=()
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
    if [[ "$_vap_paths" == *"|$next|"* ]]; then path="$next"; n=0; else n=$((n + 1)); fi
  done
  if [[ -n "$skip" ]]; then
    case "$path $prev" in
${ownValues}
      *) case "$prev" in
${globalValues}
         esac ;;
    esac
    return
  fi
  if [[ "$cur" == -* ]]; then
    case "$path" in
${flags}
      *) w='' ;;
    esac
    COMPREPLY=($(compgen -W "$w ${globalFlags(t)}" -- "$cur"))
    return
  fi
  case "$path" in
${words}
  esac
}
complete -F _vap vap
`;
}

/** How the zsh script stores what a value takes: `v:<values>`, `f` (files), `d` (directories), or empty. */
function zshTakes(takes: Takes | undefined): string {
  if (takes === 'file') return 'f';
  if (takes === 'dir') return 'd';
  return takes ? `v:${takes.values.join(' ')}` : '';
}

export function zshScript(t: CompletionTree): string {
  const assoc = (entries: Array<[string, string]>) => entries.map(([k, v]) => `  ${q(k)} ${q(v)}`).join('\n');
  const paths = assoc(t.nodes.map((n) => [n.path, commandWords(n).join(' ')]));
  const flags = assoc(t.nodes.filter((n) => n.options.length > 0).map((n) => [n.path, flagWords(n).join(' ')]));
  const values = assoc(valueOptions(t).map((v) => [v.key, zshTakes(v.takes)]));
  const args = assoc(t.nodes.flatMap((n) => argumentSlots(n).map((s) => [`${n.path} ${s.at}`, zshTakes(s.takes)] as [string, string])));
  const same = assoc(t.same.map((s) => [s.path, s.is]));
  return `#compdef vap
${HEADER}
# zsh: put this file on your $fpath as _vap, or source it after compinit
typeset -gA _vap_paths _vap_flags _vap_values _vap_args _vap_same
_vap_paths=(
${paths}
)
_vap_flags=(
${flags}
)
_vap_values=(
${values}
)
_vap_args=(
${args}
)
_vap_same=(
${same}
)
_vap_take() {
  case $1 in
    v:*) compadd -- \${=1#v:} ;;
    f) _files ;;
    d) _files -/ ;;
  esac
}
_vap() {
  local at=vap w next skip= cur="\${words[CURRENT]}" prev="\${words[CURRENT-1]}"
  integer n=0
  for w in "\${(@)words[2,CURRENT-1]}"; do
    if [[ -n $skip ]]; then skip=; continue; fi
    if [[ $w == -* ]]; then
      (( \${+_vap_values[$w]} || \${+_vap_values[$at $w]} )) && skip=1
      continue
    fi
    next="$at $w"
    (( \${+_vap_same[$next]} )) && next=\${_vap_same[$next]}
    if (( \${+_vap_paths[$next]} )); then at=$next; n=0; else n+=1; fi
  done
  if [[ -n $skip ]]; then
    local key="$at $prev"
    (( \${+_vap_values[$key]} )) || key=$prev
    _vap_take "\${_vap_values[$key]}"
    return
  fi
  if [[ $cur == -* ]]; then
    compadd -- \${=_vap_flags[$at]} ${globalFlags(t)}
    return
  fi
  (( n == 0 )) && compadd -- \${=_vap_paths[$at]}
  local slot="$at $n"
  (( \${+_vap_args[$slot]} )) || slot="$at *"
  (( \${+_vap_args[$slot]} )) && _vap_take "\${_vap_args[$slot]}"
  return 0
}
# Autoloaded from $fpath this file is _vap's body: it completes at once; sourced, it registers _vap.
if [[ $funcstack[1] == _vap ]]; then _vap "$@"; elif (( $+functions[compdef] )); then compdef _vap vap; fi
`;
}

/** The fish flags that say what an option's value takes. */
function fishTakes(takes: Takes | undefined): string {
  if (takes === 'file') return ' -r -F';
  if (takes === 'dir') return ` -x -a ${q('(__fish_complete_directories)')}`;
  return takes ? ` -x -a ${q(takes.values.join(' '))}` : ' -x';
}

function fishOption(o: CompletionNode['options'][number], cond: string): string {
  const flags = o.flags.map((f) => (f.startsWith('--') ? `-l ${f.slice(2)}` : `-s ${f.slice(1)}`)).join(' ');
  return `complete -c vap ${cond}${flags}${o.takesValue ? fishTakes(o.takes) : ''} -d ${q(oneLine(o.description))}`;
}

/** The fish line that offers what an argument takes at a position (`2`, or `2+` for that one and every one after it). */
function fishArgument(path: string, at: string, takes: Takes | undefined): string | undefined {
  const cond = `-n ${q(`__vap_path_is ${q(path)} ${at}`)}`;
  if (takes === 'file') return `complete -c vap ${cond} -F`;
  if (takes === 'dir') return `complete -c vap ${cond} -f -a ${q('(__fish_complete_directories)')}`;
  return takes ? `complete -c vap ${cond} -f -a ${q(takes.values.join(' '))}` : undefined;
}

export function fishScript(t: CompletionTree): string {
  const nodes = t.nodes;
  const lines: string[] = t.globals.map((o) => fishOption(o, ''));
  for (const n of nodes) {
    const cond = `-n ${q(`__vap_path_is ${q(n.path)}`)}`;
    const first = `-n ${q(`__vap_path_is ${q(n.path)} 0`)}`;
    for (const s of n.subcommands) {
      lines.push(`complete -c vap ${first} -f -a ${q(s.name)} -d ${q(oneLine(s.description))}`);
      for (const a of s.aliases) lines.push(`complete -c vap ${first} -f -a ${q(a)} -d ${q(`alias of ${s.name}`)}`);
    }
    for (const s of argumentSlots(n)) {
      const line = fishArgument(n.path, s.at === '*' ? `${s.index}+` : String(s.at), s.takes);
      if (line) lines.push(line);
    }
    for (const o of n.options) lines.push(fishOption(o, `${cond} `));
  }
  const paths = nodes.map((n) => n.path).join('|');
  const valued = valueOptions(t)
    .map((v) => v.key)
    .join('|');
  const same = t.same.map((s) => `            case ${q(s.path)}\n                set next ${q(s.is)}`).join('\n');
  return `${HEADER}
# fish: copy this file to ~/.config/fish/completions/vap.fish
# __vap_path_is PATH [N | N+]: the words typed reach the command PATH; with N, the word being
# completed is its argument N (0 the first; N+ that one or any after it), not a flag's value
function __vap_path_is
    set -l paths ${q(`|${paths}|`)}
    set -l valued ${q(`|${valued}|`)}
    set -l path vap
    set -l skip 0
    set -l n 0
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
        if string match -q -- "*|$next|*" $paths
            set path $next
            set n 0
        else
            set n (math $n + 1)
        end
    end
    test "$path" = "$argv[1]"; or return 1
    set -q argv[2]; or return 0
    test $skip = 0; or return 1
    if string match -q -- '*+' $argv[2]
        test $n -ge (string trim -r -c + -- $argv[2])
    else
        test $n -eq $argv[2]
    end
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
