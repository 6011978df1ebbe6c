// What the rows' launcher set aside (src/util/ca-certs-aside.ts) is given back by the entry to what
// swb starts: a dashboard started with only SWB_NODE_EXTRA_CA_CERTS starts a server whose rows see
// NODE_EXTRA_CA_CERTS again (their agents may need the CA) and not the aside name.
import { join } from 'node:path';
import { afterEach, describe, test } from 'vitest';
import { runCleanups } from '../helpers/cleanup.js';
import { createTempHome } from '../helpers/temp-home.js';
import { startSwb } from '../helpers/terminal-harness.js';
import { CA_CERTS_ASIDE } from '../../src/util/ca-certs-aside.js';

afterEach(runCleanups);

describe('the CA file set aside by the rows’ launcher', () => {
  test('is NODE_EXTRA_CA_CERTS again in the rows of the server swb starts', async () => {
    const home = createTempHome();
    // Node only warns about a CA file it cannot load; the path is all this test looks at.
    const ca = join(home.home, 'corp-ca.pem');
    const t = startSwb({
      home,
      env: { [CA_CERTS_ASIDE]: ca },
      args: [`env=printf 'CA[%s] ASIDE[%s]\\n' "$NODE_EXTRA_CA_CERTS" "$${CA_CERTS_ASIDE}"; exec sleep 600`],
    });
    await t.waitForText(`CA[${ca}] ASIDE[]`);
  });
});
