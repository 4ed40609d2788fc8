import { describe, expect, expectTypeOf, it } from 'vitest';
import type { JobStatus } from '../../../src/core/cluster/types';
import type { GpuFigures } from '../../../src/core/remote/gpuFigures';
import type { GpuInfo, PlanStep, VncFlavor as CoreVncFlavor, VncSessionInfo } from '../../../src/core/remote/types';
import type { ConnectionState as SshConnectionState, HostKeyDecision as SshHostKeyDecision } from '../../../src/core/ssh/types';
import type { StoredProfileInput } from '../../../src/core/profiles/schema';
import type { ProfileInput } from '../../../src/shared/contract';
import type { ClusterJobView, ConnectionState, GpuFiguresView, GpuView, HostKeyDecision, Rect, SetupStepView, VncFlavor, VncSessionView } from '../../../src/shared/models';
import type { Rect as ScreenRect } from '../../../src/renderer/viewer/screenLayout';
import { geometryScreens } from '../../../src/shared/screenGeometry';

/**
 * Each plain data type is defined once (src/shared/models.ts where the window needs it): core imports
 * it or derives from it. These are type-level checks (tsc fails when a copy drifts) plus one name, one meaning.
 */
describe('src/shared/models.ts: the one definition core derives from', () => {
  it('a VNC flavour is never null; where there may be none, the field says VncFlavor | null', () => {
    expectTypeOf<CoreVncFlavor>().toEqualTypeOf<VncFlavor>();
    expectTypeOf<VncFlavor>().toEqualTypeOf<'turbovnc' | 'tigervnc'>();
    expectTypeOf<VncSessionInfo['flavor']>().toEqualTypeOf<VncSessionView['flavor']>();
  });

  it('connection state and host-key decisions are the window’s own types in the SSH layer', () => {
    expectTypeOf<SshConnectionState>().toEqualTypeOf<ConnectionState>();
    expectTypeOf<SshHostKeyDecision>().toEqualTypeOf<HostKeyDecision>();
  });

  it('GPUs: the report’s GpuInfo and nvidia-smi’s GpuFigures extend the views', () => {
    expectTypeOf<GpuInfo>().toMatchTypeOf<GpuView>();
    expectTypeOf<Exclude<keyof GpuInfo, keyof GpuView>>().toEqualTypeOf<'pciBusId'>();
    expectTypeOf<GpuFigures>().toMatchTypeOf<GpuFiguresView>();
    expectTypeOf<GpuFigures>().toMatchTypeOf<GpuInfo>();
  });

  it('a Slurm job status is the job view’s fields (less what the app adds) plus its name and source', () => {
    type Shared = Exclude<keyof JobStatus, 'name' | 'source'>;
    expectTypeOf<Pick<JobStatus, Shared>>().toEqualTypeOf<Pick<ClusterJobView, Shared>>();
  });

  it('a plan step is the view’s step; one Rect for a screen, a monitor and a desktop’s start screens', () => {
    expectTypeOf<PlanStep>().toEqualTypeOf<SetupStepView>();
    expectTypeOf<ScreenRect>().toEqualTypeOf<Rect>();
    expectTypeOf<NonNullable<ReturnType<typeof geometryScreens>>[number]>().toEqualTypeOf<Rect>();
    expect(geometryScreens('1920x1080+0+0,1280x1024+1920+0')).toEqual([{ x: 0, y: 0, width: 1920, height: 1080 }, { x: 1920, y: 0, width: 1280, height: 1024 }]);
  });

  it('ProfileInput names the window’s input only; the store’s is StoredProfileInput', () => {
    expectTypeOf<ProfileInput>().not.toEqualTypeOf<StoredProfileInput>();
    expectTypeOf<StoredProfileInput>().toHaveProperty('createdAt');
    expectTypeOf<ProfileInput>().not.toHaveProperty('createdAt');
  });
});
