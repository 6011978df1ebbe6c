// A bundled agent profile with another quiet time, written as the user's own profile in a temp home's
// config dir (a user profile overrides the bundled one of the same id): a test of a signal that must
// come before the screen's quiet time sets a long one, so "before it" cannot be a screen that was fast.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundledProfilesDir } from '../../src/agents/load-profiles.js';
import type { TempHome } from './temp-home.js';

export function writeProfileQuietTime(home: TempHome, profileId: string, quietMs: number): void {
  const dir = join(home.home, 'config', 'switchboard', 'profiles');
  mkdirSync(dir, { recursive: true });
  const profile = JSON.parse(readFileSync(join(bundledProfilesDir(), `${profileId}.json`), 'utf8')) as { quietMs: number };
  writeFileSync(join(dir, `${profileId}.json`), JSON.stringify({ ...profile, quietMs }));
}
