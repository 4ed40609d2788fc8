import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  endedWhy,
  jobStatusFrom,
  parseConnectionFile,
  parseSacct,
  parseSacctmgrAccounts,
  parseScontrolJob,
  parseSinfo,
  parseSlurmDuration,
  parseSqueue,
  parseSqueueStart,
} from '../../../src/core/cluster/slurmParsers';
import { sbatchError } from '../../../src/core/cluster/jobs';

const fx = (name: string) => fs.readFileSync(path.resolve(__dirname, '../../fixtures/slurm', name), 'utf8');

describe('Slurm durations', () => {
  it.each([
    ['1:57', 117], ['4:58', 298], ['00:02:00', 120], ['1-02:03:04', 93784], ['2-00', 172800], ['10', 600],
    ['UNLIMITED', null], ['INVALID', null], ['N/A', null], ['', null],
  ])('%s → %s', (t, s) => expect(parseSlurmDuration(t)).toBe(s));
});

describe('squeue', () => {
  it('a pending job with its reason next to a running one with its node', () => {
    const rows = parseSqueue(fx('squeue-pending-running.txt'));
    expect(rows).toEqual([
      { jobId: '2', name: 'gpu-desk', state: 'PENDING', reason: 'Resources', node: null, timeLeftSec: 120, timeLimitSec: 120, start: null, comment: 'gpu-desk desktop' },
      { jobId: '1', name: 'blocker', state: 'RUNNING', reason: null, node: 'gdnode-x1', timeLeftSec: 298, timeLimitSec: 300, start: '2026-12-01T18:48:07', comment: null },
    ]);
    expect(jobStatusFrom('2', { squeue: fx('squeue-pending-running.txt') })).toMatchObject({
      phase: 'pending', reason: 'Resources', estimatedStart: null, node: null, timeLeftSec: null, source: 'squeue',
    });
  });

  it('running: node and time left', () => {
    expect(jobStatusFrom('2', { squeue: fx('squeue-running.txt') })).toMatchObject({
      phase: 'running', state: 'RUNNING', node: 'gdnode-x1', timeLeftSec: 117, timeLimitSec: 120, reason: null,
    });
  });

  it('squeue --start', () => {
    expect(parseSqueueStart(fx('squeue-start.txt'))).toEqual([{ jobId: '2', state: 'PENDING', start: null, reason: 'Resources' }]);
    expect(parseSqueueStart('7|PENDING|2026-12-01T19:30:00|Priority')[0].start).toBe('2026-12-01T19:30:00');
  });
});

describe('scontrol show job -o', () => {
  it('keys with colons and slashes, values with spaces and equals signs', () => {
    const j = parseScontrolJob(fx('scontrol-pending.txt'))!;
    expect(j.JobState).toBe('PENDING');
    expect(j.Comment).toBe('gpu-desk desktop');
    expect(j['AllocNode:Sid']).toBe('localhost:17696');
    expect(j['CPUs/Task']).toBe('1');
    expect(j.TRES).toBe('cpu=1,mem=1000M,node=1,billing=1');
    expect(j.NodeList).toBe('');
    expect(parseScontrolJob('slurm_load_jobs error: Invalid job id specified')).toBeNull();
  });

  it('an ended job without accounting: why from scontrol', () => {
    const st = jobStatusFrom('2', { squeue: '', scontrol: fx('scontrol-cancelled.txt'), sacct: fx('sacct-disabled.txt') });
    expect(st).toMatchObject({ phase: 'ended', state: 'CANCELLED', endedWhy: 'cancelled', node: 'gdnode-x1', timeLimitSec: 120, source: 'scontrol' });
  });

  it('a pending job seen only by scontrol keeps its reason', () => {
    expect(jobStatusFrom('2', { scontrol: fx('scontrol-pending.txt') })).toMatchObject({ phase: 'pending', reason: 'Resources', estimatedStart: null });
  });
});

describe('sacct and the words for why a job ended', () => {
  it('accounting wins over scontrol', () => {
    expect(parseSacct(fx('sacct-timeout.txt'), '17')).toEqual({ state: 'TIMEOUT', exitCode: '0:0' });
    expect(parseSacct(fx('sacct-disabled.txt'), '17')).toBeNull();
    expect(jobStatusFrom('17', { sacct: fx('sacct-timeout.txt'), scontrol: '' })).toMatchObject({ phase: 'ended', endedWhy: 'time limit', source: 'sacct' });
  });
  it.each([
    ['COMPLETED', undefined, 'completed'], ['CANCELLED by 1001', undefined, 'cancelled'], ['TIMEOUT', undefined, 'time limit'],
    ['NODE_FAIL', undefined, 'node failure'], ['OUT_OF_MEMORY', undefined, 'out of memory'], ['FAILED', '1:0', 'failed (exit code 1)'],
  ])('%s → %s', (s, code, why) => expect(endedWhy(s, code)).toBe(why));
});

describe('cluster defaults', () => {
  it('sinfo partitions with their GPUs; the default one marked', () => {
    expect(parseSinfo(fx('sinfo.txt'))).toEqual([{ name: 'gpu', isDefault: true, gres: ['gpu:1'], maxTime: 'infinite', up: true }]);
    expect(parseSinfo('a100*|gpu:a100:4(S:0-1)|2-00:00:00|up\na100*|gpu:a100:8(S:0-1)|2-00:00:00|up\ncpu|(null)|1-00:00:00|up')).toEqual([
      { name: 'a100', isDefault: true, gres: ['gpu:a100:4', 'gpu:a100:8'], maxTime: '2-00:00:00', up: true },
      { name: 'cpu', isDefault: false, gres: [], maxTime: '1-00:00:00', up: true },
    ]);
  });
  it('sacctmgr accounts, or none where accounting is not readable', () => {
    expect(parseSacctmgrAccounts(fx('sacctmgr-disabled.txt'))).toEqual([]);
    expect(parseSacctmgrAccounts('proj1|gpu|normal\nproj2||normal\nproj1|cpu|normal')).toEqual(['proj1', 'proj2']);
  });
});

describe('sbatch errors', () => {
  it('says sbatch\'s specific cause, not its summary line, with the fix', () => {
    const e = sbatchError(fx('sbatch-bad-partition.txt'));
    expect(e.code).toBe('SLURM_FAILED');
    expect(e.toLine()).toBe('Slurm refused the job: invalid partition specified: nope — Pick a partition that `sinfo` lists on the login node (--partition)');
  });
});

describe('the job\'s connection file', () => {
  it('as the job writes it', () => {
    expect(parseConnectionFile('5', 'node=gdnode-1\ndisplay=2\nport=5902\nsocket=/home/u/.gpu-desk/jobs/5/vnc.sock\naccess=ssh\nvirtualgl=1\ngpu=GPU-3f1c2a7e-91b4-4c1d-8e0a-5b7f2d9c6e11\n')).toEqual({
      jobId: '5', node: 'gdnode-1', display: 2, port: 5902, socket: '/home/u/.gpu-desk/jobs/5/vnc.sock', access: 'ssh', virtualgl: true,
      gpuUuid: 'GPU-3f1c2a7e-91b4-4c1d-8e0a-5b7f2d9c6e11',
    });
    // No GPU allocated (gpu= empty), or a file from before gpu= was written: no pinning known.
    expect(parseConnectionFile('5', 'node=n\ndisplay=2\nport=5902\nsocket=\naccess=login-forward\nvirtualgl=0\ngpu=\n')).toMatchObject({ socket: null, access: 'login-forward', virtualgl: false, gpuUuid: null });
    expect(parseConnectionFile('5', 'node=n\ndisplay=2\nport=5902\nsocket=\naccess=ssh\nvirtualgl=0\n')).toMatchObject({ gpuUuid: null });
    expect(parseConnectionFile('5', 'node=n\ndisplay=2\nport=5902\nsocket=\naccess=ssh\nvirtualgl=0\ngpu=$(x)\n')).toMatchObject({ gpuUuid: null });
    expect(parseConnectionFile('5', 'node=n\ndisplay=x\n')).toBeNull();
  });
});
