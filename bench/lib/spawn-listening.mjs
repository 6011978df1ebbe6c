// A hub process for the mail benches (bench:mail, bench:mail-syscalls): node started with `args`,
// ready once its stderr says "listening on" (swb's hub and the floor hub both print it there).
import { spawn } from 'node:child_process';

/** Starts `node ...args` in `cwd` with `env`; resolves with the child once it listens, rejects if it exits first. */
export function spawnListening(args, { cwd, env, label = 'hub' }) {
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
      if (err.includes('listening on')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`${label} exited ${code}: ${err}`)));
  });
}
