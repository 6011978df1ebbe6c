import { describe, expect, it } from 'vitest';
import { CA_CERTS_ASIDE, caCertsAside, restoreCaCerts } from '../../../src/util/ca-certs-aside.js';

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

describe('caCertsAside', () => {
  it('moves NODE_EXTRA_CA_CERTS to the aside name in a copy, which restoreCaCerts turns back into the same', () => {
    const given: NodeJS.ProcessEnv = { NODE_EXTRA_CA_CERTS: '/etc/corp-ca.pem', PATH: '/bin' };
    const aside = caCertsAside(given);
    expect(aside).toEqual({ [CA_CERTS_ASIDE]: '/etc/corp-ca.pem', PATH: '/bin' });
    expect(given).toEqual({ NODE_EXTRA_CA_CERTS: '/etc/corp-ca.pem', PATH: '/bin' });
    restoreCaCerts(aside);
    expect(aside).toEqual(given);
  });

  it('leaves an environment without the setting (or with it empty) as it is', () => {
    expect(caCertsAside({ PATH: '/bin' })).toEqual({ PATH: '/bin' });
    expect(caCertsAside({ NODE_EXTRA_CA_CERTS: '' })).toEqual({ NODE_EXTRA_CA_CERTS: '' });
  });
});
