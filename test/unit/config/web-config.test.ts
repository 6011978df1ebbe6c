// The config's `web` section (issue #32): checked strictly, and withheld from a workspace file the
// operator has not trusted — it opens a listener that serves the operator's rows, so a cloned
// repository must not be able to start one (still less on another address, without TLS).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkConfig } from '../../../src/config/config-schema.js';
import { loadConfig } from '../../../src/config/load-config.js';
import { summarizeRunnableParts, runnableParts } from '../../../src/config/runnable-parts.js';

describe('the web section', () => {
  it('takes its fields and refuses unknown ones or a bad port', () => {
    expect(checkConfig({ web: { start: true, port: 7780, bind: '127.0.0.1', allowedHosts: ['desk.tail1234.ts.net'], cookieHours: 12 } }).ok).toBe(true);
    expect(checkConfig({ web: { open: true } }).ok).toBe(false);
    expect(checkConfig({ web: { port: 70000 } }).ok).toBe(false);
    expect(checkConfig({ web: { allowedHosts: ['evil host/'] } }).ok).toBe(false);
  });

  it('is withheld from an untrusted workspace file, and named in what was held back', () => {
    const dir = mkdtempSync(join(tmpdir(), 'swb-web-config-'));
    try {
      writeFileSync(join(dir, 'switchboard.json'), JSON.stringify({ layout: 'grid', web: { start: true, bind: '0.0.0.0', insecure: true } }));
      const r = loadConfig({ cwd: dir, env: { HOME: dir, XDG_CONFIG_HOME: join(dir, 'cfg'), SWB_HOME: join(dir, 'swb') } });
      expect(r.ok).toBe(true);
      if (!r.ok) return;
      expect(r.value.config.web).toBeUndefined();
      expect(r.value.config.layout).toBe('grid');
      expect(r.value.withheld?.web).toEqual({ start: true, bind: '0.0.0.0', insecure: true });
      expect(summarizeRunnableParts(r.value.withheld!)).toBe('web');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('counts as something a file would run', () => {
    const parsed = checkConfig({ web: { start: true } });
    if (!parsed.ok) throw new Error('bad config');
    expect(runnableParts(parsed.value).web).toEqual({ start: true });
  });
});
