// yoga-layout (Ink's layout engine) loads its WebAssembly through fetch() of a data: URL whenever
// a global fetch exists. In Node, touching fetch loads undici, and the fetch itself goes through
// it: about 20 ms of the server bundle's ~145 ms import, measured here. Without a fetch, yoga
// decodes the same embedded bytes itself. Only the import runs without it: fetch is put back as it
// was (node's lazy getter untouched) before anything else can run.

/** Runs `load` with no global fetch, and puts fetch back when it settles. */
export async function withoutFetch<T>(load: () => Promise<T>): Promise<T> {
  const saved = Object.getOwnPropertyDescriptor(globalThis, 'fetch');
  if (!saved?.configurable) return load();
  Object.defineProperty(globalThis, 'fetch', { value: undefined, configurable: true, writable: true });
  try {
    return await load();
  } finally {
    Object.defineProperty(globalThis, 'fetch', saved);
  }
}
