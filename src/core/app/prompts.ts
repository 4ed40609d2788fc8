import { randomBytes } from 'node:crypto';
import { GpuDeskError } from '../errors';
import { escapeServerText } from '../serverText';
import type { HandlersOf } from '../../shared/contract';
import type { PromptRequest, PromptView } from '../../shared/models';

export type PromptAnswer =
  | { kind: 'hostKey'; decision: 'reject' | 'accept-once' | 'accept-save' }
  | { kind: 'secret'; value: string | null }
  | { kind: 'answers'; values: string[] | null };

interface Waiting {
  connectionId: string;
  kind: PromptView['kind'];
  resolve(a: PromptAnswer): void;
}

/**
 * Questions a connection asks the person (host key, passphrase, password, 2FA): each becomes a
 * `prompt` event and waits for `prompts.answer` with the same one-use id. Answers of the wrong kind
 * are refused, so a confused or hostile window cannot answer a password prompt with "accept".
 */
export class PromptBroker {
  private readonly waiting = new Map<string, Waiting>();

  constructor(
    private readonly emit: (req: PromptRequest) => void,
    private readonly emitCancel: (promptId: string) => void,
  ) {}

  handlers(): HandlersOf<'prompts'> {
    return { 'prompts.answer': async ({ promptId, answer }) => this.answer(promptId, answer) };
  }

  ask(connectionId: string, raw: PromptView): Promise<PromptAnswer> {
    const promptId = randomBytes(12).toString('base64url');
    const view = shownSafely(raw);
    return new Promise((resolve) => {
      this.waiting.set(promptId, { connectionId, kind: view.kind, resolve });
      this.emit({ promptId, connectionId, ...view } as PromptRequest);
    });
  }

  answer(promptId: string, a: PromptAnswer): void {
    const w = this.waiting.get(promptId);
    if (!w) throw new GpuDeskError('BAD_ARGUMENT', 'That question is no longer waiting for an answer', 'connect again if needed');
    const expected = w.kind === 'hostKey' ? 'hostKey' : w.kind === 'keyboardInteractive' ? 'answers' : 'secret';
    if (a.kind !== expected) throw new GpuDeskError('BAD_ARGUMENT', `A ${w.kind} prompt needs a "${expected}" answer`, 'answer the question that was asked');
    this.waiting.delete(promptId);
    w.resolve(a);
  }

  /** Connection gone or cancelled: every open question gets "no" and the windows close their dialogs. */
  cancelFor(connectionId: string): void {
    for (const [id, w] of this.waiting) {
      if (w.connectionId !== connectionId) continue;
      this.waiting.delete(id);
      this.emitCancel(id);
      w.resolve(w.kind === 'hostKey' ? { kind: 'hostKey', decision: 'reject' } : w.kind === 'keyboardInteractive' ? { kind: 'answers', values: null } : { kind: 'secret', value: null });
    }
  }

  pendingCount(): number {
    return this.waiting.size;
  }
}

/**
 * The server writes a keyboard-interactive question's name, instructions and prompts: the window
 * shows them escaped as the CLI does, so a bidi override or control character cannot make a
 * question read as something else.
 */
function shownSafely(view: PromptView): PromptView {
  if (view.kind !== 'keyboardInteractive') return view;
  return {
    ...view,
    name: escapeServerText(view.name, { multiline: false }),
    instructions: escapeServerText(view.instructions),
    prompts: view.prompts.map((q) => ({ ...q, prompt: escapeServerText(q.prompt) })),
  };
}
