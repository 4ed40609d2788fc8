import { shScript } from '../remote/shellQuote';
import type { VideoEncoderName } from '../../shared/models';
import type { VideoEncoderChoice } from '../app/videoStreams';
import type { SshSession } from '../ssh/types';

/** Best first: the GPU's own encoder, then VA-API (Intel/AMD), then the CPU. */
export const VIDEO_ENCODERS: readonly VideoEncoderName[] = ['h264_nvenc', 'h264_vaapi', 'libx264'];

/**
 * One frame through each encoder, in parallel: an encoder works when it encodes, not when ffmpeg
 * lists it (Ubuntu's ffmpeg lists h264_nvenc without the driver's encode library; a container lists
 * h264_vaapi without /dev/dri). Prints "ffmpeg PATH", "node DEV", then "ok NAME" or "fail NAME why".
 */
export const ENCODER_CHECK_SCRIPT = `
PATH="$PATH:/usr/local/bin"
F=$(command -v ffmpeg 2>/dev/null) || { echo "noffmpeg"; exit 0; }
echo "ffmpeg $F"
R=; for r in /dev/dri/renderD*; do [ -e "$r" ] && { R=$r; break; }; done
[ -n "$R" ] && echo "node $R"
t=$(mktemp -d 2>/dev/null) || exit 0
one() {
  n=$1; shift
  if timeout 10 "$F" -hide_banner -nostdin -loglevel error "$@" -f lavfi -i color=black:size=256x256:rate=1 -frames:v 1 \${VF:+-vf "$VF"} -c:v "$n" -f null - >"$t/$n" 2>&1
  then echo "ok $n"; else echo "fail $n $(tail -n 1 "$t/$n" | cut -c1-200)"; fi
}
{ one h264_nvenc >"$t/o1"; } &
if [ -n "$R" ]; then { VF=format=nv12,hwupload one h264_vaapi -vaapi_device "$R" >"$t/o2"; } &
else echo "fail h264_vaapi no /dev/dri/renderD* device" >"$t/o2"; fi
{ one libx264 >"$t/o3"; } &
wait
cat "$t/o1" "$t/o2" "$t/o3"
rm -rf "$t"
`;

export interface EncoderCheck {
  ffmpeg: string | null;
  renderNode: string | null;
  results: { name: VideoEncoderName; works: boolean; error: string | null }[];
}

export function parseEncoderCheck(out: string): EncoderCheck {
  const r: EncoderCheck = { ffmpeg: null, renderNode: null, results: [] };
  for (const line of out.split('\n')) {
    const [word, name, ...rest] = line.trim().split(' ');
    if (word === 'ffmpeg') r.ffmpeg = [name, ...rest].join(' ');
    else if (word === 'node') r.renderNode = name ?? null;
    else if ((word === 'ok' || word === 'fail') && (VIDEO_ENCODERS as readonly string[]).includes(name)) {
      r.results.push({ name: name as VideoEncoderName, works: word === 'ok', error: word === 'ok' ? null : rest.join(' ') || 'failed' });
    }
  }
  r.results.sort((a, b) => VIDEO_ENCODERS.indexOf(a.name) - VIDEO_ENCODERS.indexOf(b.name));
  return r;
}

export function encoderChoice(c: EncoderCheck): VideoEncoderChoice {
  const best = c.results.find((x) => x.works)?.name ?? null;
  if (!c.ffmpeg) return { best: null, why: 'ffmpeg is not installed' };
  if (!best) return { best: null, why: `no H.264 encoder works (${c.results.map((x) => `${x.name}: ${x.error}`).join('; ')})` };
  return { best, ...(best === 'h264_vaapi' && c.renderNode ? { renderNode: c.renderNode } : {}) };
}

export async function checkEncoders(session: Pick<SshSession, 'exec'>): Promise<EncoderCheck> {
  const r = await session.exec(shScript(ENCODER_CHECK_SCRIPT), { timeoutMs: 30_000 });
  return parseEncoderCheck(r.stdout);
}
