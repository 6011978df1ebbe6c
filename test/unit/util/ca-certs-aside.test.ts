import { describe, expect, it } from 'vitest';
import { CA_CERTS_ASIDE, restoreCaCerts } from '../../../src/util/ca-certs-aside.js';

describe('restoreCaCerts', () => {
  it('puts the CA file the launcher set aside back, and drops the aside name', () => {
    const env: NodeJS.ProcessEnv = { [CA_CERTS_ASIDE]: '/etc/corp-ca.pem', PATH: '/bin' };
    restoreCaCerts(env);
    expect(env).toEqual({ NODE_EXTRA_CA_CERTS: '/etc/corp-ca.pem', PATH: '/bin' });
  });

  it('keeps a NODE_EXTRA_CA_CERTS the environment already has', () => {
    const env: NodeJS.ProcessEnv = { [CA_CERTS_ASIDE]: '/etc/old.pem', NODE_EXTRA_CA_CERTS: '/etc/new.pem' };
    restoreCaCerts(env);
    expect(env).toEqual({ NODE_EXTRA_CA_CERTS: '/etc/new.pem' });
  });

  it('leaves an environment with nothing set aside alone', () => {
    const env: NodeJS.ProcessEnv = { PATH: '/bin' };
    restoreCaCerts(env);
    expect(env).toEqual({ PATH: '/bin' });
  });
});
