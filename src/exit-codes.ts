/** Exit codes, as documented in CLI.md, the README and `vap --help`. */
export const ExitCode = {
  OK: 0,
  FAILURE: 1,
  USAGE: 2,
  GATE: 3,
  AUTH: 4,
  TIMEOUT: 124,
  INTERRUPTED: 130,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

export const EXIT_CODES_HELP = `Exit codes:
  0    success
  1    the operation failed: API error, network failure, run failed
  2    usage: bad flag, argument, setting or input; nothing was sent
  3    a check failed: an eval gate (score, criterion, regression), or changes
       or drift under vap diff --exit-code
  4    authentication: no key, or the key was refused (401, 403)
  124  a --wait or watch ran past its --timeout
  130  interrupted (Ctrl-C)`;
