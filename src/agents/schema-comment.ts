// The `$comment` field every object of a profile file may carry (a note for readers, ignored by swb):
// one schema, shared by the profile's grammar and its native recipe's, so `swb schema` names it once.
import * as z from 'zod';

export const comment = z.optional(z.union([z.string(), z.array(z.string())]).meta({ id: 'comment', description: 'A note for readers; swb ignores it.' }));
