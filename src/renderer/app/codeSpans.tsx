import { Fragment, type ReactNode } from 'react';

/**
 * Text whose commands are marked the Markdown way (`sudo apt install …`, as core's findings and
 * fixes write them) with each marked part as <code>: the backticks themselves are not shown.
 */
export function withCode(text: string): ReactNode {
  const parts = text.split(/`([^`]+)`/);
  if (parts.length === 1) return text;
  return parts.map((p, i) => (i % 2 === 1 ? <code key={i}>{p}</code> : <Fragment key={i}>{p}</Fragment>));
}
