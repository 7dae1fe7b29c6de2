/**
 * The flags of `vap contacts import` as Commander parses them, here below both the verb that
 * declares them and the pipeline that reads them, so that neither imports the other back.
 * Types only: `vap contacts --help` loads nothing from src/contacts.
 */
export interface ImportOptions {
  format?: 'csv' | 'json';
  delimiter?: string;
  /** The file's text encoding (default UTF-8, checked). */
  encoding?: string;
  map?: string[];
  defaultCountry?: string;
  dryRun?: boolean;
  errorsFile?: string;
  batchSize: number;
  concurrency: number;
  resume?: boolean;
  stateFile?: string;
  force?: boolean;
  allowInvalid?: boolean;
  progress?: boolean;
  fileUrl?: string;
  fileFormat?: 'csv' | 'json';
  wait?: boolean;
  timeout: number;
}
