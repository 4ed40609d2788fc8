import { expect } from 'vitest';
import { GpuDeskError } from '../../../src/core/errors';

/** The promise fails with a GpuDeskError of this code, and its message is one line. */
export async function expectCode(p: Promise<unknown>, code: string): Promise<GpuDeskError> {
  const e = await p.then(() => null, (err) => err);
  expect(e, `expected an error with code ${code}`).toBeInstanceOf(GpuDeskError);
  expect((e as GpuDeskError).code).toBe(code);
  expect((e as GpuDeskError).message).not.toContain('\n');
  return e as GpuDeskError;
}
