/**
 * Structural limits checked before zod sees an input. Zod schemas can cap each string, but a
 * renderer that has been compromised can still send a 500 MB string to a field someone forgot to
 * cap, a 100 000-deep nested object (stack exhaustion in the parser), or prototype-polluting keys.
 * This walk is cheap, bounded, and the same for every method.
 */
export interface InputLimits {
  /** Characters in any one string (a private key is a few KB; 1 MiB leaves plenty of room). */
  maxStringLength: number;
  /** Characters of all strings and keys together. */
  maxTotalChars: number;
  /** Bytes of any binary value (Uint8Array/ArrayBuffer). */
  maxBinaryBytes: number;
  maxDepth: number;
  /** Objects + arrays + leaves. */
  maxNodes: number;
}

export const DEFAULT_LIMITS: InputLimits = {
  maxStringLength: 1 << 20,
  maxTotalChars: 4 << 20,
  maxBinaryBytes: 16 << 20,
  maxDepth: 32,
  maxNodes: 20_000,
};

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Returns null when the value is acceptable, else a one-line reason (no input content echoed). */
export function checkInputShape(value: unknown, limits: InputLimits = DEFAULT_LIMITS): string | null {
  let nodes = 0;
  let chars = 0;
  // Iterative walk: a recursive one would itself overflow on the deep inputs it guards against.
  const stack: { v: unknown; depth: number; path: string }[] = [{ v: value, depth: 0, path: 'input' }];
  while (stack.length > 0) {
    const { v, depth, path } = stack.pop()!;
    if (++nodes > limits.maxNodes) return `input has more than ${limits.maxNodes} values`;
    if (v === null || v === undefined || typeof v === 'boolean' || typeof v === 'number') continue;
    if (typeof v === 'string') {
      if (v.length > limits.maxStringLength) return `${path} is longer than ${limits.maxStringLength} characters`;
      chars += v.length;
      if (chars > limits.maxTotalChars) return `input is larger than ${limits.maxTotalChars} characters`;
      continue;
    }
    if (typeof v !== 'object') return `${path} has an unsupported type (${typeof v})`;
    if (ArrayBuffer.isView(v) || v instanceof ArrayBuffer) {
      if (v.byteLength > limits.maxBinaryBytes) return `${path} is larger than ${limits.maxBinaryBytes} bytes`;
      continue;
    }
    if (depth >= limits.maxDepth) return `${path} is nested deeper than ${limits.maxDepth} levels`;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push({ v: v[i], depth: depth + 1, path: `${path}[${i}]` });
      continue;
    }
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return `${path} is not a plain object`;
    for (const key of Object.keys(v)) {
      if (FORBIDDEN_KEYS.has(key)) return `${path} has a forbidden key "${key}"`;
      chars += key.length;
      if (chars > limits.maxTotalChars) return `input is larger than ${limits.maxTotalChars} characters`;
      stack.push({ v: (v as Record<string, unknown>)[key], depth: depth + 1, path: `${path}.${safeKey(key)}` });
    }
  }
  return null;
}

/** Keys come from untrusted input: echo only short, plain ones. */
export function safeKey(key: string): string {
  return /^[A-Za-z0-9_$-]{1,64}$/.test(key) ? key : '<key>';
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * Zod's default object schemas silently strip unknown keys. The IPC surface must reject them
 * instead (a typo or an injected field is a bug to surface, not to ignore), whatever object
 * flavour the contract used: compare the parsed value with the raw input and report the first
 * input key the parse dropped. Input schemas therefore must not drop keys in transforms.
 */
export function findDroppedKey(input: unknown, parsed: unknown, path = 'input'): string | null {
  if (Array.isArray(input) && Array.isArray(parsed)) {
    if (input.length !== parsed.length) return null;
    for (let i = 0; i < input.length; i++) {
      const hit = findDroppedKey(input[i], parsed[i], `${path}[${i}]`);
      if (hit) return hit;
    }
    return null;
  }
  if (isPlainObject(input) && isPlainObject(parsed)) {
    for (const key of Object.keys(input)) {
      if (!Object.prototype.hasOwnProperty.call(parsed, key)) {
        // A key whose value was undefined may legitimately be absent after parsing (optional).
        if (input[key] === undefined) continue;
        return `${path}.${safeKey(key)}`;
      }
      const hit = findDroppedKey(input[key], parsed[key], `${path}.${safeKey(key)}`);
      if (hit) return hit;
    }
  }
  return null;
}
