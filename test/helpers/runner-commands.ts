// How the GitHub Actions runner reads a step's output for workflow commands
// (actions/runner: ActionCommand.TryParseV2 and TryParse, lines read with .NET's
// StreamReader.ReadLine): lines end at LF, CR or CRLF; a line is a command when it starts
// with `::` once .NET's TrimStart has removed its white space, or holds `##[` anywhere.

/** White space as .NET's TrimStart removes it (Unicode's White_Space; U+180E, U+200B and U+FEFF as older versions did). */
export const DOTNET_SPACE = /^[\t\n\v\f\r \u0085\u00a0\u1680\u180e\u2000-\u200b\u2028\u2029\u202f\u205f\u3000\ufeff]*/;

/** The lines the runner reads from a step's output. */
export function runnerLines(output: string): string[] {
  return output.split(/\r\n|\r|\n/);
}

/** The lines of `output` the runner would take for workflow commands, each as it reads it (white space trimmed). */
export function commandLines(output: string): string[] {
  return runnerLines(output)
    .map((l) => l.replace(DOTNET_SPACE, ''))
    .filter((l) => l.startsWith('::') || l.includes('##['));
}

/** The output with the filter's escapes undone (src/ui/workflow-commands.ts): what vap prints outside GitHub Actions. */
export function unescapeCommands(output: string): string {
  return output.replaceAll('\\u003a', ':').replaceAll('\\u005b', '[');
}
