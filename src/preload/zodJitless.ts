import { config } from 'zod';

// Imported first, before the contract builds its schemas: zod decides at schema creation whether
// to compile parsers with `new Function`, probing eval once. The page's CSP forbids eval, so the
// probe would only produce a CSP violation report; jitless mode never probes.
config({ jitless: true });
