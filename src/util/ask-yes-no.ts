// One y/N question on the terminal (stdin must be a TTY): y or yes is yes, anything else no, and
// Ctrl-C is null — "interrupted", which the caller must not take for an answer. readline on a raw
// terminal reads Ctrl-C as its own SIGINT event and, with nobody listening, pauses: the question
// then never returns and the process ends with status 0, as if nothing was asked.
import { createInterface } from 'node:readline';

export async function askYesNo(question: string): Promise<boolean | null> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await new Promise<boolean | null>((resolve) => {
      rl.once('SIGINT', () => {
        process.stderr.write('\n');
        resolve(null);
      });
      rl.question(question, (answer) => resolve(/^\s*y(es)?\s*$/i.test(answer)));
    });
  } finally {
    rl.close();
  }
}
