// Which Host and Origin the web listener answers (src/web/request-guard.ts), case by case: the bound
// address and port, loopback names on any port only when bound to loopback, configured names, and
// everything a rebinding or cross-site page could send refused.
import { describe, expect, test } from 'vitest';
import { hostAllowed, hostRules, isLoopback, originAllowed } from '../../../src/web/request-guard.js';

describe('request guard', () => {
  test('bound to loopback: its address and loopback names on any port; nothing else', () => {
    const rules = hostRules('127.0.0.1', 7780);
    for (const h of ['127.0.0.1:7780', 'localhost:7780', 'LOCALHOST:8080', '[::1]:9000', 'localhost', '127.0.0.1']) expect(hostAllowed(h, rules), h).toBe(true);
    for (const h of [undefined, '', 'evil.example:7780', 'localhost.evil.example:7780', '127.0.0.1.nip.io:7780', '127.0.0.2:7780', 'localhost:7780@evil', 'x'.repeat(400)]) {
      expect(hostAllowed(h, rules), String(h)).toBe(false);
    }
  });

  test('bound elsewhere: only its address and port, and the configured names', () => {
    const rules = hostRules('192.168.1.5', 7780, ['desk.tail1234.ts.net']);
    expect(hostAllowed('192.168.1.5:7780', rules)).toBe(true);
    expect(hostAllowed('desk.tail1234.ts.net', rules)).toBe(true);
    expect(hostAllowed('DESK.tail1234.ts.net', rules)).toBe(true);
    expect(hostAllowed('localhost:7780', rules)).toBe(false);
    expect(hostAllowed('192.168.1.5:7781', rules)).toBe(false);
    expect(hostAllowed('desk.tail1234.ts.net:8443', rules)).toBe(false);
  });

  test('IPv6 addresses are bracketed', () => {
    expect(hostAllowed('[::1]:7780', hostRules('::1', 7780))).toBe(true);
    expect(hostAllowed('[fd00::5]:7780', hostRules('fd00::5', 7780))).toBe(true);
    expect(isLoopback('::1')).toBe(true);
    expect(isLoopback('0.0.0.0')).toBe(false);
    expect(isLoopback('127.3.4.5')).toBe(true);
  });

  test('Origin: absent (not a browser) or the listener itself over http(s); null, other schemes and other sites refused', () => {
    const rules = hostRules('127.0.0.1', 7780);
    expect(originAllowed(undefined, rules)).toBe(true);
    expect(originAllowed('http://127.0.0.1:7780', rules)).toBe(true);
    expect(originAllowed('http://localhost:8080', rules)).toBe(true);
    expect(originAllowed('https://localhost:8080', rules)).toBe(true);
    for (const o of ['null', 'https://evil.example', 'http://127.0.0.1:7780.evil.example', 'file://', 'chrome-extension://abc', 'http://127.0.0.1:7780/path', '']) {
      expect(originAllowed(o, rules), o).toBe(false);
    }
  });
});
