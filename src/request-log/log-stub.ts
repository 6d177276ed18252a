/** The request log's stubs, typed once: the one place a log stub is cast (src/lib/remote.ts says why). */
import type { Env } from "../env";
import type { Remote } from "../lib/remote";
import type { RequestLogRpc } from "./log-rpc";
import { directoryName, hourShardName } from "./shards";

export type RequestLogStub = Remote<RequestLogRpc>;

export function hourShard(env: Env, tenantId: string, hour: number): RequestLogStub {
  return env.REQUEST_LOG.getByName(hourShardName(tenantId, hour)) as unknown as RequestLogStub;
}

export function logDirectory(env: Env, tenantId: string): RequestLogStub {
  return env.REQUEST_LOG.getByName(directoryName(tenantId)) as unknown as RequestLogStub;
}
