// The `$comment` field every object of a profile file may carry (a note for readers, ignored by swb):
// one schema, shared by the profile's grammar and its native recipe's, so `swb schema` names it once;
// built with them, at their first use (profile-schema.ts says why).
import * as z from 'zod';
import { lazySchema } from '../protocol/lazy-schema.js';

export const comment = lazySchema(() => z.optional(z.union([z.string(), z.array(z.string())]).meta({ id: 'comment', description: 'A note for readers; swb ignores it.' })));
