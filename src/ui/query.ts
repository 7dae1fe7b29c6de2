import { search } from '@jmespath-community/jmespath';
import { UsageError } from '../errors.js';

/** Applies a JMESPath expression; a bad expression is a usage error. */
export function applyQuery(data: unknown, expression: string): unknown {
  try {
    return search(data as Parameters<typeof search>[0], expression);
  } catch (err) {
    throw new UsageError(`invalid --query expression: ${(err as Error).message}`, 'see https://jmespath.org for the syntax');
  }
}
