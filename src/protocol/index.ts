export * from './error-codes.js';
export * from './handle.js';
export * from './limits.js';
export * from './methods.js';
export * from './ndjson-decoder.js';
export * from './rpc.js';
export * from './method-params.js';
