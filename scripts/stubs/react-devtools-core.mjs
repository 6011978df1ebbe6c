// Ink imports react-devtools-core only for its DEV-mode devtools bridge; the production bundle
// of the dashboard never calls it, so the bundle gets this empty stand-in instead.
export default {};
export const connectToDevTools = () => {};
