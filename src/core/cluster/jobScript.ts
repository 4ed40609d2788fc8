import { GpuDeskError } from '../errors';
import { shellCommand, shellQuote } from '../remote/shellQuote';
import { DISPLAY_TAKEN_SH } from '../remote/displayPick';
import { TURBOVNC_ARGS } from '../remote/turboVncArgs';
import { TURBOVNC_BIN_SH, USER_INSTALL_SH, XKB_ARGS_SH } from '../remote/userInstall';
import type { JobSettings } from './types';
import { NVIDIA_SMI_QUERY } from '../remote/gpuFigures';

/** How gpu-desk finds its own jobs again after a restart (squeue --name, and the comment to be sure). */
export const JOB_NAME = 'gpu-desk';
export const JOB_COMMENT = 'gpu-desk desktop';
/**
 * Jobs' directories in the user's home on the shared file system: `<JOBS_DIR>/<cluster>/<job id>/`
 * (mode 0700: connection, socket, OTP) and `<JOBS_DIR>/<cluster>/<job id>.out`. Keyed by Slurm's
 * ClusterName because job ids are only unique within one cluster, and several clusters of one site
 * often share the home file system: without it job 1234 of one would read the other's details.
 */
export const JOBS_DIR = '.gpu-desk/jobs';
/** Stands for the cluster's name in the script shown before gpu-desk has asked the login node for it. */
export const CLUSTER_PLACEHOLDER = '<cluster>';

/** Slurm's ClusterName as a directory name: what Slurm allows (lower-case letters, digits, - _ .), nothing that leaves the directory. */
export function checkClusterName(name: string): string {
  if (!/^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}$/.test(name)) {
    throw new GpuDeskError('SLURM_FAILED', `The cluster's name "${name.slice(0, 80)}" (ClusterName in scontrol show config) cannot name a directory`, 'Ask the cluster\'s administrators; gpu-desk keys its job files by ClusterName');
  }
  return name;
}

export interface BuiltJob {
  /** sbatch's options, each one word for shellQuote (the script itself goes to sbatch's stdin). */
  sbatchArgs: string[];
  /** The batch script. */
  script: string;
  /** What the user is shown before the first submit: the sbatch line and the script. */
  shown: string;
}

/**
 * Extra sbatch options that would break how gpu-desk follows its job: refused with the reason, where
 * sbatch would take them silently and the desktop would never be found. `long`: every long name
 * (aliases too) as sbatch 22.05's getopt_long table spells it; `short`: the one-letter forms.
 */
const OWN_SBATCH_OPTIONS: { long: string[]; short: string; why: string; fix: string }[] = [
  { long: ['clusters', 'cluster'], short: 'M', why: 'send the job to another cluster, where this login node\'s squeue and job files do not look', fix: 'make a cluster profile whose login node belongs to that cluster' },
  { long: ['job-name', 'comment'], short: 'J', why: 'rename the job gpu-desk finds its desktops by (squeue --name, and its comment)', fix: 'gpu-desk names it gpu-desk' },
  { long: ['output', 'error', 'chdir'], short: 'oeD', why: 'move the job\'s output away from ~/.gpu-desk/jobs, where gpu-desk reads why a desktop did not start', fix: 'the job writes its output there itself' },
  { long: ['array', 'wrap', 'parsable'], short: 'a', why: 'change what is submitted: one desktop job from gpu-desk\'s script', fix: 'start more desktops with Start again' },
  // --export=ALL,BASH_ENV=/scratch/x or LD_PRELOAD=… runs code in every process of the job, unseen.
  { long: ['export', 'export-file', 'get-user-env'], short: '', why: 'set the job\'s environment (BASH_ENV, LD_PRELOAD … run code in every process of the job)', fix: 'put environment settings in the lines run before the desktop (export NAME=value), where they show as the commands they are' },
];

/** sbatch's one-letter options that take a value (`sbatch --help`): the rest of a bundle after one is that value. */
const SHORT_WITH_VALUE = new Set('aAbcdDeiJLMmnNopqStCFwxG');

/**
 * Which own option an extra sbatch word would set, read as sbatch's getopt_long reads it:
 * `--name[=value]` also by any unambiguous abbreviation (`--export-f=` is --export-file), so a word
 * whose name is the start of a refused name is refused (sbatch takes it as that option, or refuses
 * it as ambiguous); `-abc` is a bundle of one-letter options until the first that takes a value.
 */
function ownOption(word: string): (typeof OWN_SBATCH_OPTIONS)[number] | undefined {
  if (word.startsWith('--')) {
    const name = word.slice(2).split('=')[0];
    return OWN_SBATCH_OPTIONS.find((o) => o.long.some((l) => l.startsWith(name)));
  }
  for (const c of word.slice(1)) {
    const own = OWN_SBATCH_OPTIONS.find((o) => o.short.includes(c));
    if (own) return own;
    if (SHORT_WITH_VALUE.has(c)) return undefined;
  }
  return undefined;
}

function checkGeometry(g: string): void {
  if (!/^\d{2,5}x\d{2,5}$/.test(g)) {
    throw new GpuDeskError('BAD_ARGUMENT', `"${g}" is not a screen size`, 'Give the geometry as WIDTHxHEIGHT, e.g. 1920x1080');
  }
}

/**
 * The desktop's start on the node. Every value arrives as a quoted assignment at the top, so the
 * body is fixed text. Xvnc runs in the foreground (-fg) under the job: Slurm's end-of-job signal
 * reaches it, and the trap removes the session's directory (socket, OTP, connection file) with it.
 * No password is ever stored: the session accepts only one-time passwords, made on request
 * (otp-request → otp, both in the 0700 job directory) because each new one replaces the last.
 */
const BODY = `
umask 077
# The same name the login node's scontrol gives gpu-desk (ClusterName), so reader and job agree.
[ -n "$SLURM_CLUSTER_NAME" ] || { echo "gpu-desk: Slurm gave the job no SLURM_CLUSTER_NAME" >&2; exit 1; }
dir="$HOME/${JOBS_DIR}/$SLURM_CLUSTER_NAME/$SLURM_JOB_ID"
mkdir -p "$dir" || { echo "gpu-desk: cannot create $dir" >&2; exit 1; }
chmod 700 "$HOME/.gpu-desk" "$HOME/${JOBS_DIR}" "$HOME/${JOBS_DIR}/$SLURM_CLUSTER_NAME" "$dir"
node="\${SLURMD_NODENAME:-$(hostname)}"
# TurboVNC as a server's sessions find it (remote/userInstall.ts): the node's own (/opt) first, else
# the install in the (shared) home, whose environment (its libraries, vglrun, window manager) the
# desktop inherits.
O="$opt"
${USER_INSTALL_SH.trim()}
${TURBOVNC_BIN_SH.trim()}
vnc="$T"
# From here on, however the job ends (a node without TurboVNC, scancel, the time limit), its
# directory goes with it.
n=""; pid=""
stop() {
  rc=$1
  # Ignored, not reset: Slurm signals every process of the job, and a TERM that reaches this shell
  # after its desktop has already gone (the loop below ended first) would otherwise end it here,
  # before the clean-up, leaving the directory behind.
  trap '' TERM INT HUP
  trap - EXIT
  # Slurm kills what is left after KillWait (on a loaded node that can come soon): the X server's pid
  # is read, the job's files go first (a connection file left behind would point at a dead desktop),
  # then the X server is ended directly (vncserver -kill is a Perl start and a 1 s sleep), then
  # vncserver's own bookkeeping.
  xp=""; [ -n "$n" ] && xp=$(cat "$HOME/.vnc/$vhost:$n.pid" 2>/dev/null)
  rm -rf "$dir"
  case "$xp" in ''|*[!0-9]*) ;; *) [ "$(cat "/proc/$xp/comm" 2>/dev/null)" = Xvnc ] && kill "$xp" 2>/dev/null ;; esac
  [ -n "$pid" ] && kill "$pid" 2>/dev/null
  [ -n "$n" ] && "$vnc/vncserver" -kill ":$n" >/dev/null 2>&1
  # Once more: anything the X server or vncserver wrote there while going (a socket, a log) goes too.
  rm -rf "$dir"
  exit "$rc"
}
trap 'stop 0' TERM INT HUP
trap 'stop $?' EXIT
[ -x "$vnc/vncserver" ] || { echo "gpu-desk: TurboVNC is not installed on $node ($vnc/vncserver)" >&2; exit 1; }
# TurboVNC's own default looks only for GNOME, Ubuntu, MATE and Xfce, and a session whose start-up
# exits at once is killed: take a desktop the node has, else a bare X desktop.
if [ -z "$wm" ]; then
  for w in xfce mate gnome ubuntu; do [ -f "/usr/share/xsessions/$w.desktop" ] && { wm=$w; break; }; done
  [ -z "$wm" ] && for f in /usr/share/xsessions/*.desktop; do [ -f "$f" ] && { wm=$(basename "$f" .desktop); break; }; done
fi
vgl=""
# The node's VirtualGL, else the home install's.
vglbin="$opt/VirtualGL/bin"; [ -x "$vglbin/vglrun" ] || [ -z "$UI" ] || vglbin="$UI/VirtualGL/bin"
if [ -x "$vglbin/vglrun" ] && "$vglbin/eglinfo" -e >/dev/null 2>&1; then vgl=egl; fi
# The GPU Slurm gave the job (--gres=gpu:N / --gpus: CUDA_VISIBLE_DEVICES, as nvidia-smi inside the
# job numbers them): the desktop renders on the first, as a server's desktop does on the GPU chosen for
# it (remote/gpuChoice.ts): VirtualGL's EGL device on its PCI address, DRI_PRIME for Mesa's Vulkan
# device-select, GPU_DESK_GPU for programs with their own choice. CUDA_VISIBLE_DEVICES stays Slurm's.
gpuuuid=""; gpuat=""
first=\${CUDA_VISIBLE_DEVICES%%,*}
if [ -n "$first" ] && command -v nvidia-smi >/dev/null 2>&1; then
  gpuline=$(nvidia-smi ${NVIDIA_SMI_QUERY} --format=csv,noheader,nounits 2>/dev/null | awk -F', *' -v f="$first" '$1 == f || $3 == f { print $1, $3, $8; exit }')
  read -r gpuidx gpuuuid bus <<<"$gpuline"
  case "$gpuidx" in ''|*[!0-9]*) gpuuuid="" ;; *)
    GPU_DESK_GPU=$gpuidx; export GPU_DESK_GPU; gpuat="GPU $gpuidx"
    # nvidia-smi's 00000000:3B:00.0 as sysfs writes it: 0000:3b:00.0.
    pci=$(printf '%s\\n' "$bus" | tr 'A-F' 'a-f' | sed -n 's/^[0-9a-f]\\{0,4\\}\\([0-9a-f]\\{4\\}:[0-9a-f]\\{2\\}:[0-9a-f]\\{2\\}\\.[0-7]\\)$/\\1/p')
    if [ -n "$pci" ]; then
      DRI_PRIME="pci-$(printf '%s' "$pci" | tr ':.' '__')"; export DRI_PRIME
      if [ "$vgl" = egl ]; then
        for c in /sys/class/drm/card*; do
          [ "$(basename "$(readlink -f "$c/device" 2>/dev/null)")" = "$pci" ] && [ -e "/dev/dri/\${c##*/}" ] && { vgl="/dev/dri/\${c##*/}"; break; }
        done
      fi
    fi ;;
  esac
  case "$gpuuuid" in *[!A-Za-z0-9-]*) gpuuuid="" ;; esac
fi
geom="$geometry"; xsdir="$dir"; loopback=""; unixsock=""
if [ "$access" = ssh ]; then loopback=1; unixsock="$dir/vnc.sock"; fi
# Other users' jobs may share the node: take the first display nothing holds (remote/displayPick.ts:
# X servers, listeners on its ports, live vncserver pid files in the shared ~/.vnc), and look past one
# that another start took in the meantime.
vhost=$(uname -n)
${DISPLAY_TAKEN_SH.trim()}
try=1; min=1
while :; do
  n=$min
  while taken "$n"; do n=$((n+1)); done
  # The same vncserver arguments as a server's desktop (remote/turboVncArgs.ts); -fg keeps Xvnc under the job.
${TURBOVNC_ARGS.trim().replace(/^/gm, '  ')}
  # Xvnc's XKB data and xkbcomp from the home install's deps/ where the node lacks them.
${XKB_ARGS_SH.trim().replace(/^/gm, '  ')}
  set -- "$@" -fg
  "$vnc/vncserver" "$@" >"$dir/vnc.log" 2>&1 </dev/null &
  pid=$!
  up=0; t0=$SECONDS
  while kill -0 "$pid" 2>/dev/null; do
    if [ -S "/tmp/.X11-unix/X$n" ] && { [ "$access" != ssh ] || [ -S "$dir/vnc.sock" ]; }; then up=1; break; fi
    # A start that hangs would hold the allocation until the time limit: give up and say why.
    [ $((SECONDS - t0)) -lt 120 ] || { echo "gpu-desk: no desktop on :$n after 120 s" >>"$dir/vnc.log"; break; }
    sleep 0.2
  done
  [ "$up" = 1 ] && break
  # A display another start took in the meantime is looked past up to 5 times. Any other failed
  # start is tried twice more: on a busy node Xvnc can take longer than the second vncserver gives
  # it before starting the window manager, which then finds no display and takes the session down.
  xlog="$HOME/.vnc/$vhost:$n.log"
  inuse=0; grep -Eqi 'already (active|running)|in use' "$dir/vnc.log" "$xlog" 2>/dev/null && inuse=1
  if [ "$try" -ge 5 ] || { [ "$inuse" = 0 ] && [ "$try" -ge 3 ]; }; then
    # The X server's own words first, gpu-desk's summary last: the app reads the output's last lines.
    [ -f "$xlog" ] && tail -n 15 "$xlog" >&2
    echo "gpu-desk: the desktop did not start on $node: $(grep -v -i passw "$dir/vnc.log" | tail -n 3 | tr '\\n' ' ')" >&2
    exit 1
  fi
  echo "gpu-desk: display :$n did not start (try $try), trying again: $(grep -v -i passw "$dir/vnc.log" | tail -n 1)" >&2
  "$vnc/vncserver" -kill ":$n" >/dev/null 2>&1; kill "$pid" 2>/dev/null
  try=$((try+1)); min=$((n+1))
done
sock=""; [ "$access" = ssh ] && sock="$dir/vnc.sock"
vg=0; [ -n "$vgl" ] && vg=1
printf 'node=%s\\ndisplay=%s\\nport=%s\\nsocket=%s\\naccess=%s\\nvirtualgl=%s\\ngpu=%s\\n' "$node" "$n" "$((5900+n))" "$sock" "$access" "$vg" "$gpuuuid" >"$dir/connection.new"
mv "$dir/connection.new" "$dir/connection"
echo "gpu-desk: desktop :$n is up on $node (access: $access, VirtualGL: \${vgl:-no}, renders on: \${gpuat:-any GPU})"
while kill -0 "$pid" 2>/dev/null; do
  if [ -e "$dir/otp-request" ]; then
    # The request stays until a password is made: a failed try is tried again on the next turn.
    "$vnc/vncpasswd" -o -display ":$n" 2>&1 | sed -n 's/^.*one-time password: *//p' >"$dir/otp.new"
    if [ -s "$dir/otp.new" ]; then rm -f "$dir/otp-request"; mv "$dir/otp.new" "$dir/otp"; fi
  fi
  sleep 0.2
done
echo "gpu-desk: the desktop :$n ended" >&2
`;

/**
 * The one function that turns a profile's job settings into what is submitted. `cluster` is the
 * login node's ClusterName (jobs.ts asks for it before submitting); without it (the script shown
 * before connecting) the output path shows CLUSTER_PLACEHOLDER. Options go to sbatch
 * as separate words (quoted by shellQuote at submit), never into #SBATCH lines that sbatch would
 * re-split; the script's own values are quoted assignments. Only `preamble` is shell code by design:
 * it is the user's own lines (module load …), shown to them before the first submit.
 */
export function buildJob(s: JobSettings, cluster?: string): BuiltJob {
  const geometry = s.geometry ?? '1920x1080';
  checkGeometry(geometry);
  const access = s.nodeAccess ?? 'ssh';
  const args: string[] = [
    '--parsable',
    `--job-name=${JOB_NAME}`,
    `--comment=${JOB_COMMENT}`,
    // Relative to the submit directory, which submitJob makes $HOME. Slurm's own end-of-job lines
    // (time limit, cancelled) land here too, so the file outlives the job's directory.
    `--output=${JOBS_DIR}/${cluster === undefined ? CLUSTER_PLACEHOLDER : checkClusterName(cluster)}/%j.out`,
    '--nodes=1',
    '--ntasks=1',
  ];
  const opt = (flag: string, v: string | number | undefined) => {
    if (v === undefined || v === '') return;
    const text = String(v);
    if (text.includes('\n')) throw new GpuDeskError('BAD_ARGUMENT', `The ${flag} value contains a line break`, `Give ${flag} on one line`);
    args.push(`${flag}=${text}`);
  };
  opt('--partition', s.partition);
  opt('--account', s.account);
  opt('--qos', s.qos);
  opt('--time', s.time);
  opt('--gres', s.gres);
  opt('--cpus-per-task', s.cpus);
  opt('--mem', s.mem);
  opt('--constraint', s.constraint);
  for (const e of s.extraSbatch ?? []) {
    // "-" and "--" alone are not options: after "--" sbatch takes the next word as the script to run.
    if (!e.startsWith('-') || e === '-' || e === '--') throw new GpuDeskError('BAD_ARGUMENT', `"${e.slice(0, 60)}" is not an sbatch option`, 'Give extra sbatch options as --name=value words');
    const own = ownOption(e);
    if (own) throw new GpuDeskError('BAD_ARGUMENT', `The extra sbatch option "${e.slice(0, 60)}" would ${own.why}`, `Remove it from the extra sbatch options; ${own.fix}`);
    args.push(e);
  }
  const preamble = (s.preamble ?? []).filter((l) => l.trim() !== '');
  const script = [
    '#!/bin/bash',
    `# ${JOB_COMMENT}: TurboVNC on the node, reached through the login node by gpu-desk.`,
    ...(preamble.length ? ['# Your lines, run before the desktop starts:', ...preamble, ''] : []),
    `geometry=${shellQuote(geometry)}`,
    `wm=${shellQuote(s.windowManager ?? '')}`,
    `access=${shellQuote(access)}`,
    `opt=${shellQuote(s.optRoot ?? '/opt')}`,
    BODY.trim(),
    '',
  ].join('\n');
  return { sbatchArgs: args, script, shown: `${shellCommand(['sbatch', ...args])} <<'EOF'\n${script}EOF\n` };
}
