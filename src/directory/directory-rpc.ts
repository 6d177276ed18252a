/** The directory's RPC surface (immutable name → value pointers), declared apart from its class so `Env` needs no object. */
export interface DirectoryRpc extends Rpc.DurableObjectBranded {
  /** Writes a pointer once; false when the name already points elsewhere. */
  put(name: string, value: string): boolean;
  get(name: string): string | null;
}
