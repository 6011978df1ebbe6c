// What a message may be, as the wire says it: its kind and the form of a sender's messageId. Below
// both methods.ts (the result types) and method-params.ts (the zod params that check them), so
// neither has to import the other.
export const MESSAGE_KINDS = ['msg', 'task', 'response', 'data'] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];

export const MESSAGE_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
