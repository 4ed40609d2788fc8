import { execFile } from 'node:child_process';

/**
 * The processes of a bed's account under that bed's sshd (each connection's session process, the
 * shells and what they run): other test files' beds run as the same account at the same time, so
 * only this sshd's descendants count. A daemonized desktop is not under sshd and is not counted.
 */
export function processesUnderSshd(bed: { dir: string; user: string }): Promise<string[]> {
  return new Promise((resolve, reject) => {
    execFile('ps', ['-eo', 'pid=,ppid=,user:32=,args='], (err, stdout) => {
      if (err) return reject(err);
      const rows = stdout.split('\n').filter(Boolean).map((l) => {
        const [pid, ppid, user, ...args] = l.trim().split(/\s+/);
        return { pid, ppid, user, args: args.join(' ') };
      });
      const root = rows.find((r) => r.args.includes(`${bed.dir}/sshd_config`) && r.args.includes('-D'));
      if (!root) return resolve([]);
      const under = new Set([root.pid]);
      for (let grew = true; grew;) {
        grew = false;
        for (const r of rows) if (!under.has(r.pid) && under.has(r.ppid)) { under.add(r.pid); grew = true; }
      }
      resolve(rows.filter((r) => r.pid !== root.pid && under.has(r.pid) && r.user === bed.user).map((r) => r.args));
    });
  });
}
