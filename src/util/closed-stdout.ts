// A reader that stops reading (`swb ls | head -2`) closes the pipe, and the next write to stdout
// fails with EPIPE. Node ignores SIGPIPE, so that failure arrives as an 'error' event on
// process.stdout, which nobody listens to: an unhandled error and a stack trace. Every command
// writes to the same stdout, so this is handled once, at the entry, for all of them: nobody is
// reading any more, so there is nothing left to say, and swb leaves quietly with status 0
// (the pipeline's status is its last command's). Any other write error is still a failure.

/** Makes a closed stdout (EPIPE) a quiet exit, and a closed stderr nothing to report on. */
export function exitQuietlyWhenStdoutCloses(exit: (status: number) => never = (s) => process.exit(s)): void {
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') exit(0);
    throw err;
  });
  // Where errors would be reported is gone: a failed report has no one to go to.
  process.stderr.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') throw err;
  });
}
