/**
 * The server commands that turn password login off once a key works: shown to the user, never run
 * by gpu-desk (a mistake here locks people out, so a person with sudo decides).
 *
 * A drop-in named 00-… because sshd keeps the first value it reads and Debian/Ubuntu include
 * sshd_config.d/*.conf at the top of sshd_config: a later drop-in such as cloud-init's
 * 50-cloud-init.conf ("PasswordAuthentication yes") would otherwise win. `sshd -t` checks the
 * result before the reload, and the reload keeps open sessions (including this one) alive.
 */
export const PASSWORD_LOGIN_OFF_FILE = '/etc/ssh/sshd_config.d/00-gpu-desk-keys-only.conf';

export function passwordLoginOffCommands(): string[] {
  return [
    `printf 'PasswordAuthentication no\\nKbdInteractiveAuthentication no\\n' | sudo tee ${PASSWORD_LOGIN_OFF_FILE}`,
    'sudo sshd -t && (sudo systemctl reload ssh 2>/dev/null || sudo systemctl reload sshd)',
    // How to check from another terminal before closing this one.
    'ssh -o PubkeyAuthentication=no -o PreferredAuthentications=password,keyboard-interactive <user>@<host>   # must now be refused',
  ];
}
