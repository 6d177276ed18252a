/** `import mod from "x.wasm"`: wrangler (and the test pool) bundle a .wasm file as a compiled module. */
declare module "*.wasm" {
  const module: WebAssembly.Module;
  export default module;
}
