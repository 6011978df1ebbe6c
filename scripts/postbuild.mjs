// After tsc: make the compiled bin executable (npm links it as `swb`).
import { chmodSync, existsSync } from 'node:fs';
const bin = new URL('../dist/bin/swb.js', import.meta.url);
if (existsSync(bin)) chmodSync(bin, 0o755);
