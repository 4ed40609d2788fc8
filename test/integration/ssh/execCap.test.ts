import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupAll, startSshd, type SshdBed } from '../../bed';
import { bedOptions, trustedKnownHosts } from '../../helpers/ssh';
import { connectSsh, type SshConnection } from '../../../src/core/ssh/connection';
import { EXEC_OUTPUT_CAP_BYTES } from '../../../src/core/ssh/types';

/**
 * A command's captured output is capped: a hostile server or a runaway step cannot grow the
 * process without limit. Real sshd, real commands writing more than the cap.
 */
let bed: SshdBed;
let conn: SshConnection;

beforeAll(async () => {
  bed = await startSshd();
  conn = await connectSsh(bedOptions(bed, { appKnownHostsFile: trustedKnownHosts(bed) }));
});
afterAll(async () => {
  await conn?.close();
  await cleanupAll();
});

const MiB = 1024 * 1024;

describe('exec output cap', () => {
  it('keeps the first 8 MiB of each stream, counts and drops the rest, and names the cap in the result', async () => {
    expect(EXEC_OUTPUT_CAP_BYTES).toBe(8 * MiB);
    const outBytes = 12 * MiB + 12345;
    const errBytes = 9 * MiB + 7;
    // stdout and stderr written at once from two producers, and the exit status still arrives.
    const r = await conn.exec(
      `head -c ${outBytes} /dev/zero | tr '\\0' o & head -c ${errBytes} /dev/zero | tr '\\0' e >&2; wait; exit 3`,
      { timeoutMs: 120_000 },
    );
    expect(r.code).toBe(3);
    expect(r.stdout).toHaveLength(EXEC_OUTPUT_CAP_BYTES);
    expect(r.stderr).toHaveLength(EXEC_OUTPUT_CAP_BYTES);
    expect(r.stdout).toMatch(/^o+$/);
    expect(r.stderr).toMatch(/^e+$/);
    expect(r.truncated).toEqual({
      capBytes: EXEC_OUTPUT_CAP_BYTES,
      stdoutDroppedBytes: outBytes - EXEC_OUTPUT_CAP_BYTES,
      stderrDroppedBytes: errBytes - EXEC_OUTPUT_CAP_BYTES,
    });
  }, 180_000);

  it('output under the cap is whole and carries no truncation mark', async () => {
    const r = await conn.exec(`head -c ${EXEC_OUTPUT_CAP_BYTES} /dev/zero | tr '\\0' x; printf err >&2`, { timeoutMs: 120_000 });
    expect(r.code).toBe(0);
    expect(r.stdout).toHaveLength(EXEC_OUTPUT_CAP_BYTES);
    expect(r.stderr).toBe('err');
    expect(r.truncated).toBeUndefined();
  }, 180_000);

  it('the connection still runs commands after a capped one', async () => {
    await conn.exec(`head -c ${9 * MiB} /dev/zero`, { timeoutMs: 120_000 });
    expect((await conn.exec('echo still here')).stdout).toBe('still here\n');
  }, 180_000);
});
