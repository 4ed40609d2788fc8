import { useState } from 'react';

const T = {
  offer: 'Show the server commands that turn password login off',
  hide: 'Hide the commands',
  explain: 'Run these on the server yourself, with sudo, while this connection stays open; gpu-desk never runs them. Then check from another terminal that a password login is refused before you log out.',
};

/** Offered, not forced: the commands are shown on request and never run by gpu-desk. */
export function PasswordOffCommands({ commands }: { commands: string[] }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="password-off">
      <button type="button" className="link" aria-expanded={open} onClick={() => setOpen(!open)} data-testid="show-password-off">{open ? T.hide : T.offer}</button>
      {open && (
        <>
          <p className="muted">{T.explain}</p>
          <pre className="mono" data-testid="password-off-commands">{commands.join('\n')}</pre>
        </>
      )}
    </div>
  );
}
