/** The flags of `taskctl show`, shared by its task path (core/show.ts) and its job path (core/job/show-job.ts). */
import type { ReportSpec } from '../report/write.js';

export interface ShowOptions {
  /** Only items in this status. */
  itemsStatus?: 'completed' | 'failed';
  /** Reports on the whole tasks (`--report junit=FILE`, `--report github`); `--items-status` does not filter them. */
  report?: ReportSpec[];
  /** Item columns for table/tsv/csv: `task`, `target`, `status`, the data fields, `error`. */
  columns?: string[];
  wide?: boolean;
  /** `--error TEXT`: only items that did not complete whose error (else their task's) contains one of these. */
  error?: string[];
  /** `--job FILE`: every task of the journaled job in FILE, in chunk order (core/job/show-job.ts). */
  job?: string;
  /** Not a flag of show: named so that it is refused with a pointer to --job. */
  journal?: string;
}
