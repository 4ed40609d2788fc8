import { GpuDeskError } from '../errors';
import { shellQuote } from './shellQuote';
import type { TextKey } from '../../shared/models';

/**
 * Downloading VirtualGL/TurboVNC packages on the server, each one checked before it is installed.
 *
 * Where the expected SHA-256 comes from, in order:
 * 1. a mirror given by the user (`--packages-from URL`): the mirror's own `SHA256SUMS` file beside the
 *    packages (`sha256sum` format; a `*` binary marker or a directory part before the name is allowed);
 * 2. a digest pinned here for the default version. Neither upstream publishes SHA-256 sums for its
 *    release assets (they are GPG-signed instead, see https://TurboVNC.org/Downloads/DigitalSignatures
 *    and the VirtualGL equivalent), so nothing is pinned: PINNED stays empty rather than holding a hash
 *    of our own making;
 * 3. the `digest` GitHub's release API reports for that asset (`sha256:…`, set for assets uploaded
 *    since mid-2025).
 * A mismatch stops the step, removes the file and says so. With nothing to check against, the package
 * is installed only when the reviewed plan allowed it (`allowUnverified`), and the step says so.
 */

export interface UpstreamPackage {
  /** Human name for messages. */
  label: string;
  /** GitHub owner/name of the releases. */
  repo: string;
  version: string;
  /** Release asset file name: upstream's makedpkg names them <pkg>_<version>_<debarch>.deb, the names a mirror uses too. */
  asset: string;
}

/** SHA-256 of upstream release assets, where upstream publishes one (none do today; see above). */
const PINNED: Record<string, string> = {};

/** Exit status of the fetch function when the package could not be downloaded at all (callers may fall back). */
export const FETCH_FAILED = 3;
/** Exit status when the download did not match, or had nothing to be checked against. */
export const VERIFY_FAILED = 4;

/**
 * Whether a mirror's SHA256SUMS can vouch for its packages: only when it comes over https, or from
 * the server's own loopback (http://127.x, localhost, [::1]: no network in between, as browsers
 * treat loopback as a secure context). Over plain http the sums come through the same unprotected
 * link as the packages, so whoever can change one can change the other: the check proves nothing.
 */
export function mirrorIsVerifiable(mirror: string): boolean {
  const u = new URL(mirror);
  if (u.protocol === 'https:') return true;
  const h = u.hostname.toLowerCase();
  return h === 'localhost' || h === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/** The mirror URL, normalised; plain http (not loopback) only with allowUnverified, as its check proves nothing. */
export function checkMirrorUrl(url: string, allowUnverified = false): string {
  const u = url.trim().replace(/\/+$/, '');
  let parsed: URL;
  try {
    parsed = new URL(u);
  } catch {
    throw new GpuDeskError('BAD_ARGUMENT', `"${url}" is not a URL`, 'Give the package mirror as http(s)://host/path (the directory holding the .deb files and SHA256SUMS)');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new GpuDeskError('BAD_ARGUMENT', `"${url}" is not an http(s) URL`, 'Give the package mirror as http(s)://host/path (the directory holding the .deb files and SHA256SUMS)');
  }
  if (parsed.username || parsed.password) {
    throw new GpuDeskError('BAD_ARGUMENT', 'The package mirror URL carries a user name or password', 'Use a mirror that needs no credentials in the URL; they would be shown in the plan and in process lists');
  }
  if (!allowUnverified && !mirrorIsVerifiable(u)) {
    throw new GpuDeskError(
      'BAD_ARGUMENT',
      `The package mirror ${u} is plain http: its SHA256SUMS would come over the same unprotected link as the packages, so checking them proves nothing before a root install`,
      'Use an https mirror, or allow unverified packages (--allow-unverified; "Allow unverified packages" in the app) to install from it anyway',
    );
  }
  return u;
}

/** Where a download's expected digest comes from, as a key of the app's `plan:verify` catalogue. */
export function verificationSource(pkg: UpstreamPackage, mirror: string | undefined): TextKey {
  if (mirror) return { key: mirrorIsVerifiable(mirror) ? 'mirror' : 'mirrorHttp', params: { asset: pkg.asset, mirror } };
  return { key: PINNED[pkg.asset] ? 'pinned' : 'github', params: { asset: pkg.asset } };
}

const UNVERIFIED: Record<string, string> = {
  true: 'Where there is nothing to check against, it is installed UNVERIFIED (you allowed that for this plan).',
  false: 'Where there is nothing to check against, the step stops.',
};

/** What the reviewed plan says about how a download is checked. */
export function verificationText(pkg: UpstreamPackage, mirror: string | undefined, allowUnverified: boolean): string {
  if (mirror && !mirrorIsVerifiable(mirror)) {
    return `${pkg.asset} and its SHA256SUMS come over plain http from ${mirror}: the SHA-256 check catches a damaged file but proves nothing against someone on the network between the server and the mirror, so the package counts as unverified. ${UNVERIFIED[String(allowUnverified)]}`;
  }
  const source = mirror
    ? `the SHA-256 listed for ${pkg.asset} in ${mirror}/SHA256SUMS`
    : PINNED[pkg.asset]
      ? `the SHA-256 gpu-desk pins for ${pkg.asset}`
      : `the SHA-256 digest GitHub's release API reports for ${pkg.asset}`;
  return `The download is checked against ${source} before anything is installed; a mismatch stops the step and deletes the file. ${UNVERIFIED[String(allowUnverified)]}`;
}

/**
 * A POSIX sh function `fetch_verified` that leaves the checked package at "$f" (inside "$d", a private
 * temp dir removed on exit) or exits the function with FETCH_FAILED / VERIFY_FAILED.
 */
export function fetchVerifiedScript(pkg: UpstreamPackage, mirror: string | undefined, allowUnverified: boolean): string {
  const url = mirror ? `${mirror}/${pkg.asset}` : `https://github.com/${pkg.repo}/releases/download/${pkg.version}/${pkg.asset}`;
  const name = shellQuote(pkg.asset);
  const lines = [
    'd=$(mktemp -d) || exit 1',
    // apt reads a local package as its sandbox user: the dir must be searchable.
    'chmod 755 "$d"',
    `trap 'rm -rf -- "$d"' EXIT`,
    `trap 'exit 1' HUP INT TERM PIPE`,
    'get() { curl -fsSL --retry 2 -o "$2" "$1" 2>/dev/null || wget -q -O "$2" "$1" 2>/dev/null; }',
    `f="$d/"${name}`,
    'fetch_verified() {',
    `  get ${shellQuote(url)} "$f" || { rm -f -- "$f"; echo ${shellQuote(`Could not download ${url}`)} >&2; return ${FETCH_FAILED}; }`,
  ];
  if (mirror && !mirrorIsVerifiable(mirror) && !allowUnverified) {
    // Never reached through checkMirrorUrl; kept so that a caller that skipped it still installs nothing.
    lines.push(`  rm -f -- "$f"; echo ${shellQuote(`${mirror} is plain http: nothing from it is installed unless unverified packages are allowed`)} >&2; return ${VERIFY_FAILED}`, '}');
    return lines.join('\n');
  }
  if (mirror) {
    lines.push(
      `  want=; if get ${shellQuote(`${mirror}/SHA256SUMS`)} "$d/SHA256SUMS"; then`,
      `    want=$(awk -v n=${name} '{ p=$2; sub(/^\\*/, "", p); sub(/.*\\//, "", p) } p == n { print tolower($1); exit }' "$d/SHA256SUMS")`,
      '  fi',
      `  from=${shellQuote(`${mirror}/SHA256SUMS${mirrorIsVerifiable(mirror) ? '' : ' (over plain http: UNVERIFIED, as the reviewed plan allowed)'}`)}`,
    );
  } else if (PINNED[pkg.asset]) {
    lines.push(`  want=${PINNED[pkg.asset]}`, `  from='the digest pinned in gpu-desk'`);
  } else {
    const api = `https://api.github.com/repos/${pkg.repo}/releases/tags/${pkg.version}`;
    lines.push(
      // No JSON tool is assumed on the server: one line per object, then the object naming our asset.
      `  want=$(get ${shellQuote(api)} - | tr -d ' \\n\\r' | tr '{' '\\n' | grep -F ${shellQuote(`/${pkg.asset}"`)} | grep -o '"digest":"sha256:[0-9a-f]\\{64\\}"' | head -n 1 | cut -d: -f3 | tr -d '"')`,
      `  from="GitHub's release API"`,
    );
  }
  lines.push(
    '  if [ -n "$want" ]; then',
    '    got=$(sha256sum "$f" | cut -d" " -f1)',
    '    if [ "$got" != "$want" ]; then',
    '      rm -f -- "$f"',
    `      echo ${name}": $from says SHA-256 $want, the download has $got" >&2`,
    // The last line is the step's one-line error: short enough to be shown whole.
    `      echo "SHA-256 mismatch for "${name}": the download was deleted and nothing was installed; check the mirror, then run the plan again" >&2`,
    `      return ${VERIFY_FAILED}`,
    '    fi',
    `    echo ${name}": SHA-256 $got matches $from"`,
    allowUnverified
      ? `  else\n    echo "warning: "${name}" has no SHA-256 in $from; installing it unverified, as the reviewed plan allowed" >&2`
      : `  else\n    rm -f -- "$f"\n    echo "Nothing to check "${name}" against ($from lists no SHA-256 for it), so it was not installed. Use a mirror with SHA256SUMS (--packages-from), or allow unverified packages when you review the plan." >&2\n    return ${VERIFY_FAILED}`,
    '  fi',
    '}',
  );
  return lines.join('\n');
}
