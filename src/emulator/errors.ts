/** An error answered with the emulator's one JSON error envelope. */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details?: unknown;
  readonly headers?: Record<string, string>;

  constructor(status: number, code: string, message: string, details?: unknown, headers?: Record<string, string>) {
    super(message);
    this.status = status;
    this.code = code;
    this.details = details;
    this.headers = headers;
  }
}

export const badRequest = (message: string, details?: unknown) => new HttpError(400, 'validation_error', message, details);
export const notFound = (what: string, id: string) => new HttpError(404, 'not_found', `${what} ${id} not found`);
export const conflict = (code: string, message: string, details?: unknown) => new HttpError(409, code, message, details);
export const unprocessable = (code: string, message: string, details?: unknown) => new HttpError(422, code, message, details);

/** The error envelope: `{ error: { code, message, details? }, meta: { requestId } }`. */
export function errorBody(requestId: string, code: string, message: string, details?: unknown): Record<string, unknown> {
  const error: Record<string, unknown> = { code, message };
  if (details !== undefined) error.details = details;
  return { error, meta: { requestId } };
}
