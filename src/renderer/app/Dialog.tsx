import { useEffect, useId, useRef, type ReactNode } from 'react';

/**
 * A modal dialog: labelled, focus moved inside on open and kept there (Tab wraps), Escape cancels
 * unless the dialog is an alert that must be acknowledged explicitly.
 */
export function Dialog(props: { title: string; children: ReactNode; onCancel?: () => void; alert?: boolean; wide?: boolean; testId?: string }) {
  const id = useId();
  const ref = useRef<HTMLDivElement>(null);
  // Taken while rendering, before any autoFocus field inside takes the focus: where to return on close.
  const opener = useRef(document.activeElement as HTMLElement | null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const prev = opener.current;
    if (!el.contains(document.activeElement)) el.querySelector<HTMLElement>('[autofocus], input, select, textarea, button')?.focus();
    return () => {
      if (prev?.isConnected) prev.focus();
    };
  }, []);
  const onKey = (e: React.KeyboardEvent) => {
    if (e.key === 'Escape' && props.onCancel && !props.alert) {
      e.stopPropagation();
      props.onCancel();
    }
    if (e.key !== 'Tab' || !ref.current) return;
    const f = [...ref.current.querySelectorAll<HTMLElement>('button, input, select, textarea, a[href], [tabindex]:not([tabindex="-1"])')].filter((x) => !x.hasAttribute('disabled'));
    if (!f.length) return;
    const [a, z] = [f[0], f[f.length - 1]];
    if (e.shiftKey && document.activeElement === a) { e.preventDefault(); z.focus(); }
    else if (!e.shiftKey && document.activeElement === z) { e.preventDefault(); a.focus(); }
  };
  return (
    <div className="backdrop">
      <div ref={ref} role={props.alert ? 'alertdialog' : 'dialog'} aria-modal="true" aria-labelledby={id} className={`dialog${props.wide ? ' wide' : ''}${props.alert ? ' alert' : ''}`} onKeyDown={onKey} data-testid={props.testId}>
        <h2 id={id}>{props.title}</h2>
        {props.children}
      </div>
    </div>
  );
}
