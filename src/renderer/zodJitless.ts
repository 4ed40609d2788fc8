import { config } from 'zod';

// Imported first by main.tsx, before the contract builds its schemas: zod decides at schema creation
// whether to compile parsers with `new Function`, probing eval once. The app's CSP forbids eval, so
// the probe would only produce a CSP violation report on every start; jitless mode never probes.
config({ jitless: true });
