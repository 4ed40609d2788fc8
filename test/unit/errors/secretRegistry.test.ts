import { describe, expect, it } from 'vitest';
import { redactSecrets, registerSecret } from '../../../src/core/errors';

/** The process-wide list of secrets that logs and IPC errors must never show, and its short-secret rule. */
describe('secret registry', () => {
  it('redacts a registered secret until its release, and not after', () => {
    const release = registerSecret('otp-Xq7Zr9');
    expect(redactSecrets('viewer password otp-Xq7Zr9 sent')).toBe('viewer password [redacted] sent');
    release();
    expect(redactSecrets('viewer password otp-Xq7Zr9 sent')).toBe('viewer password otp-Xq7Zr9 sent');
  });

  it('counts registrations: one user releasing does not unregister the other, and a second release of the same registration is a no-op', () => {
    const first = registerSecret('shared-Pw-551');
    const second = registerSecret('shared-Pw-551');
    first();
    first();
    expect(redactSecrets('pw shared-Pw-551')).toBe('pw [redacted]');
    second();
    expect(redactSecrets('pw shared-Pw-551')).toBe('pw shared-Pw-551');
  });

  it('never holds secrets of 4 characters or fewer globally: "1234" elsewhere in a log line survives', () => {
    const release = registerSecret('1234');
    expect(redactSecrets('listening on 127.0.0.1:1234, pid 1234')).toBe('listening on 127.0.0.1:1234, pid 1234');
    release();
    const five = registerSecret('12345');
    expect(redactSecrets('code 12345')).toBe('code [redacted]');
    five();
  });

  it('redacts a short secret as a whole token in the strings of its own exchange only', () => {
    expect(redactSecrets('Code 4821 was not accepted', ['4821'])).toBe('Code [redacted] was not accepted');
    expect(redactSecrets('pin:4821.', ['4821'])).toBe('pin:[redacted].');
    // Part of a longer word or number: not the token that was typed.
    expect(redactSecrets('port 54821 and 48210 and x4821', ['4821'])).toBe('port 54821 and 48210 and x4821');
    expect(redactSecrets('[sudo] password: ab\nSorry, try again', ['ab'])).toBe('[sudo] password: [redacted]\nSorry, try again');
    // Regex characters in a typed secret are literal.
    expect(redactSecrets('got a.b+ and aXb+', ['a.b+'])).toBe('got [redacted] and aXb+');
    expect(redactSecrets('nothing typed here', [undefined, null, ''])).toBe('nothing typed here');
  });

  it('a long secret passed for the exchange is redacted even where it was never registered', () => {
    expect(redactSecrets('answer long-answer-77 echoed', ['long-answer-77'])).toBe('answer [redacted] echoed');
  });
});
