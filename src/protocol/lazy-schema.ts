// A zod schema built at its first use rather than as its module loads. The workspace server's
// bundle loads every schema module at its start, and building zod schemas (objects, checks,
// metadata) is CPU that a first frame mostly does not need: the config's schemas alone were some
// 15 ms of a cold server's load, for a start with no config file to parse, and the RPC params a
// few ms more before any client had asked anything (issue #33). The schema is built once and the
// same instance returned ever after, so it stays one definition (its `.meta` ids registered once).
// At the ground floor, beside the params schemas that use it; util/schema.ts and the config's
// schemas above use it too. Types only from zod: this file loads nothing.
import type * as z from 'zod';

/** `build`, run at the first call and remembered: the schema's one instance. */
export function lazySchema<S extends z.ZodType>(build: () => S): () => S {
  let built: S | undefined;
  return () => (built ??= build());
}
