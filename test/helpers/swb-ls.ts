// `swb ls --json` as the operator, for tests of the workspace server.
import { expect } from 'vitest';
import type { RowListing } from '../../src/protocol/methods.js';
import { runSwb } from './run-swb.js';
import type { TempHome } from './temp-home.js';

export interface ServerRows {
  rows: RowListing[];
  clients: number;
  pid: number;
  version: string;
}

export async function ls(home: TempHome): Promise<ServerRows> {
  const r = await runSwb(['ls', '--json'], { home });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout) as ServerRows;
}

/** One row of a listing, or a failure naming the rows there are. */
export function rowOf(listing: ServerRows, name: string): RowListing {
  const row = listing.rows.find((r) => r.name === name);
  if (!row) throw new Error(`no row ${name} in ${JSON.stringify(listing.rows.map((r) => r.name))}`);
  return row;
}
