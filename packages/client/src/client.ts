/**
 * `MediaClient`: one method per operation of the API, typed from the generated OpenAPI types.
 *
 *   const client = new MediaClient({ baseUrl: "http://127.0.0.1:8787", apiKey });
 *   const task = await client.images.generate({ prompt: "a red fox in the snow" });
 *   const done = await client.tasks.wait(task, { onProgress: (t) => console.log(t.progress) });
 *   for (const a of outputArtifacts(done)) await client.artifacts.download(a, `fox-${a.index}.png`);
 */
import { type ChatChunk, chatStream } from "./chat.js";
import { type DownloadResult, downloadArtifact, type SavedFile } from "./download.js";
import { MediaApiError, MediaTimeoutError } from "./errors.js";
import { OPERATIONS, type OperationId } from "./generated/operations.js";
import { logExports } from "./log-exports.js";
import {
  allRequests,
  type ReplayResult,
  type RequestDetail,
  type RequestListQuery,
  type RequestLogEntry,
  type RequestPage,
  type RequestRef,
  replayRequest,
  requestIdOf,
} from "./requests.js";
import { type CallSpec, type ClientOptions, type RequestOptions, Transport } from "./transport.js";
import type { ArtifactRef, BodyOf, ConditionalTask, PathOf, QueryOf, ResultOf, TaskEnvelope, TaskEvent } from "./types.js";
import { createFromFile, createUpload, type UploadData, type UploadOptions } from "./uploads.js";
import { type EventsOptions, taskEvents, type WaitOptions, waitForTask } from "./wait.js";

export interface CreateOptions extends RequestOptions {
  /** Sent as `Idempotency-Key`; made once per call (and reused on its retries) when omitted. */
  idempotencyKey?: string;
  /** `Prefer: wait=N`: the server may hold the answer up to N seconds for the task to end. */
  preferWaitSeconds?: number;
}

export type { ConditionalTask } from "./types.js";

export interface GetTaskOptions extends RequestOptions {
  preferWaitSeconds?: number;
  /** `If-None-Match`: when the task has not changed the result is `null` (304). */
  etag?: string;
}

type TaskRef = string | { task_id: string };
type BatchRef = string | { batch_id: string };
const batchIdOf = (b: BatchRef) => (typeof b === "string" ? b : b.batch_id);
export type BatchEnvelope = ResultOf<"getBatch">;

export interface ReplayOptions extends RequestOptions {
  /** Run it on this model instead of the one the logged call named. */
  model?: string;
  /** The new request's Idempotency-Key: made once per call (and reused on its retries) when omitted. */
  idempotencyKey?: string;
}

export interface BatchWaitOptions extends RequestOptions {
  onProgress?: (batch: BatchEnvelope) => void;
  pollIntervalMs?: number;
  timeoutMs?: number;
}

const taskIdOf = (t: TaskRef) => (typeof t === "string" ? t : t.task_id);

/** The create operations, by the client method that calls them. */
export const CREATE_METHODS = {
  images: {
    generate: "createImageGeneration",
    imageToImage: "createImageFromImages",
    edit: "createImageEdit",
    describe: "createImageUnderstanding",
  },
  videos: {
    enhancePrompt: "createVideoPromptEnhancement",
    generate: "createVideoFromText",
    fromImage: "createVideoFromImage",
    fromReferences: "createVideoFromReferences",
    fromFrames: "createVideoFromFrames",
    extend: "createVideoExtension",
    describe: "createVideoUnderstanding",
  },
  music: { generate: "createMusicFromText" },
  audio: { speech: "createSpeech" },
} as const satisfies Record<string, Record<string, OperationId>>;

type CreateGroup<G extends Record<string, OperationId>> = {
  [M in keyof G]: (body: BodyOf<G[M]>, options?: CreateOptions) => Promise<TaskEnvelope>;
};

/** Every other operation a key can call, by the client method that calls it (checked by a test). */
export const OTHER_METHODS = {
  "tasks.get": "getTask",
  "tasks.list": "listTasks",
  "tasks.cancel": "cancelTask",
  "tasks.deleteOutputs": "deleteTaskOutputs",
  "tasks.assets": "listTaskAssets",
  "tasks.events": "streamTaskEvents",
  "tasks.deliver": "createTaskDelivery",
  "models.list": "listModels",
  "models.get": "getModel",
  "catalog.listModels": "listCatalogModels",
  "catalog.listCapabilities": "listCapabilities",
  "catalog.getCapability": "getCapability",
  "voices.list": "listVoices",
  "voices.get": "getVoice",
  "uploads.create": "createUpload",
  "artifacts.download": "downloadArtifact",
  "artifacts.downloadSigned": "downloadSignedArtifact",
  "artifacts.delete": "deleteArtifact",
  "balance.get": "getBalance",
  "status.get": "getStatus",
  "usage.get": "getUsage",
  "keys.create": "createKey",
  "keys.list": "listKeys",
  "keys.get": "getKey",
  "keys.update": "updateKey",
  "keys.revoke": "revokeKey",
  "keys.self": "getOwnKey",
  "credits.checkout": "createCreditCheckout",
  "storageDestinations.create": "createStorageDestination",
  "storageDestinations.list": "listStorageDestinations",
  "storageDestinations.get": "getStorageDestination",
  "storageDestinations.update": "updateStorageDestination",
  "storageDestinations.delete": "deleteStorageDestination",
  "providerKeys.set": "setProviderKey",
  "providerKeys.list": "listProviderKeys",
  "providerKeys.delete": "deleteProviderKey",
  "chat.completions.create": "createChatCompletion",
  quote: "createQuote",
  "webhooks.endpoints.create": "createWebhookEndpoint",
  "webhooks.endpoints.list": "listWebhookEndpoints",
  "webhooks.endpoints.get": "getWebhookEndpoint",
  "webhooks.endpoints.update": "updateWebhookEndpoint",
  "webhooks.endpoints.delete": "deleteWebhookEndpoint",
  "webhooks.endpoints.rotateSecret": "rotateWebhookEndpointSecret",
  "webhooks.endpoints.recover": "createWebhookEndpointRecovery",
  "webhooks.endpoints.test": "createWebhookEndpointTest",
  "webhooks.deliveries.list": "listWebhookDeliveries",
  "webhooks.deliveries.get": "getWebhookDelivery",
  "webhooks.deliveries.resend": "createWebhookDeliveryAttempt",
  "batches.create": "createBatch",
  "batches.get": "getBatch",
  "batches.list": "listBatches",
  "batches.items": "listBatchItems",
  "batches.cancel": "cancelBatch",
  "requests.list": "listRequests",
  "requests.get": "getRequest",
  "requests.replay": "createRequestReplay",
  "logExports.create": "createLogExport",
  "logExports.list": "listLogExports",
  "logExports.get": "getLogExport",
  "logExports.delete": "deleteLogExport",
  "logExports.run": "createLogExportRun",
} as const satisfies Record<string, OperationId>;

export class MediaClient {
  readonly transport: Transport;

  readonly images: CreateGroup<typeof CREATE_METHODS.images>;
  readonly videos: CreateGroup<typeof CREATE_METHODS.videos>;
  readonly music: CreateGroup<typeof CREATE_METHODS.music>;
  readonly audio: CreateGroup<typeof CREATE_METHODS.audio>;

  constructor(options: ClientOptions = {}) {
    this.transport = new Transport(options);
    const group = <G extends Record<string, OperationId>>(methods: G) =>
      Object.fromEntries(
        Object.entries(methods).map(([name, id]) => [name, (body: never, o?: CreateOptions) => this.create(id, body, o)]),
      ) as CreateGroup<G>;
    this.images = group(CREATE_METHODS.images);
    this.videos = group(CREATE_METHODS.videos);
    this.music = group(CREATE_METHODS.music);
    this.audio = group(CREATE_METHODS.audio);
  }

  get baseUrl(): string {
    return this.transport.baseUrl;
  }

  /** Any operation of the table, by operationId, answering its JSON. */
  async request<K extends OperationId>(
    operationId: K,
    spec: Omit<CallSpec, "path" | "query" | "body"> & { path?: PathOf<K>; query?: QueryOf<K>; body?: BodyOf<K> } = {},
  ): Promise<ResultOf<K>> {
    const res = await this.transport.call(operationId, spec as CallSpec);
    return (res.status === 204 ? undefined : await res.json()) as ResultOf<K>;
  }

  /** A task-creating operation by operationId (the typed groups above call this). */
  create<K extends OperationId>(operationId: K, body: BodyOf<K>, options: CreateOptions = {}): Promise<TaskEnvelope> {
    const { preferWaitSeconds, headers, ...rest } = options;
    return this.request(operationId, {
      ...rest,
      body,
      headers: { ...headers, ...(preferWaitSeconds ? { Prefer: `wait=${Math.round(preferWaitSeconds)}` } : {}) },
    } as never) as Promise<TaskEnvelope>;
  }

  /** The create operation that serves a capability (`text_to_image`, `video_extend`, …). */
  createFor(capability: string, body: Record<string, unknown>, options: CreateOptions = {}): Promise<TaskEnvelope> {
    const id = operationForCapability(capability);
    if (!id) throw new TypeError(`no operation serves the capability '${capability}'`);
    return this.create(id, body as never, options);
  }

  /**
   * A binding price for a create, before making it: `quote("text_to_video", body)`. The create of
   * the same body with `quote_id` runs on the quoted `resolved_model` and is charged at most
   * `credits` (a quote lives 15 minutes and serves one task). Nothing is reserved or started.
   */
  quote(operation: string, request: Record<string, unknown>, options: RequestOptions = {}): Promise<ResultOf<"createQuote">> {
    return this.request("createQuote", { ...options, body: { operation, request } });
  }

  readonly tasks = {
    get: async (task: TaskRef, options: GetTaskOptions = {}): Promise<TaskEnvelope> => {
      const got = await this.readTask(task, options);
      if (!got.task) throw new TypeError("the task answered 304 Not Modified to a read without If-None-Match");
      return got.task;
    },
    /** A conditional read: `task` is null when it is unchanged since `etag` (304). */
    getIfChanged: (task: TaskRef, options: GetTaskOptions = {}): Promise<ConditionalTask> => this.readTask(task, options),
    list: (query: QueryOf<"listTasks"> = {}, options: RequestOptions = {}): Promise<ResultOf<"listTasks">> =>
      this.request("listTasks", { ...options, query }),
    /** Every task matching the query, page after page. */
    listAll: (query: QueryOf<"listTasks"> = {}, options: RequestOptions = {}): AsyncGenerator<TaskEnvelope, void, undefined> =>
      this.allTasks(query, options),
    cancel: (task: TaskRef, body: BodyOf<"cancelTask"> = {}, options: RequestOptions = {}): Promise<TaskEnvelope> =>
      this.request("cancelTask", { ...options, path: { task_id: taskIdOf(task) }, body }),
    /**
     * Deletes an ended task's outputs now, before their `expires_at`: the envelope afterwards, each
     * artifact `expired` with no URL. A task still queued or running is a `conflict` error.
     */
    deleteOutputs: (task: TaskRef, options: RequestOptions = {}): Promise<TaskEnvelope> =>
      this.request("deleteTaskOutputs", { ...options, path: { task_id: taskIdOf(task) } }),
    assets: (task: TaskRef, options: RequestOptions = {}): Promise<ResultOf<"listTaskAssets">> =>
      this.request("listTaskAssets", { ...options, path: { task_id: taskIdOf(task) } }),
    /** The task's events (status, progress, then done), reconnecting with Last-Event-ID when the stream drops. */
    events: (task: TaskRef, options: EventsOptions = {}): AsyncGenerator<TaskEvent, void, undefined> =>
      taskEvents(this.transport, taskIdOf(task), options),
    /** Resolves with the final envelope (whatever its status) once the task ends. */
    wait: (task: TaskRef | TaskEnvelope, options: WaitOptions = {}): Promise<TaskEnvelope> =>
      waitForTask(this, this.transport, task, options),
    /** "Deliver again": a succeeded task's outputs to its storage destination (or `destination_id`), one attempt now. */
    deliver: (task: TaskRef, body: BodyOf<"createTaskDelivery"> = {}, options: RequestOptions = {}): Promise<TaskEnvelope> =>
      this.request("createTaskDelivery", { ...options, path: { task_id: taskIdOf(task) }, body }) as Promise<TaskEnvelope>,
  };

  private async readTask(task: TaskRef, options: GetTaskOptions): Promise<ConditionalTask> {
    const { preferWaitSeconds, etag, headers, ...rest } = options;
    const res = await this.transport.call("getTask", {
      ...rest,
      path: { task_id: taskIdOf(task) },
      okStatuses: [304],
      headers: {
        ...headers,
        ...(preferWaitSeconds ? { Prefer: `wait=${Math.round(preferWaitSeconds)}` } : {}),
        ...(etag ? { "If-None-Match": etag } : {}),
      },
    });
    const waited = /\bwait\b/i.test(res.headers.get("preference-applied") ?? "");
    const tag = res.headers.get("etag") ?? etag ?? undefined;
    if (res.status === 304) return { task: null, etag: tag, waited };
    return { task: (await res.json()) as TaskEnvelope, etag: tag, waited };
  }

  private async *allTasks(query: QueryOf<"listTasks">, options: RequestOptions): AsyncGenerator<TaskEnvelope, void, undefined> {
    let cursor: string | undefined;
    do {
      const page: ResultOf<"listTasks"> = await this.tasks.list({ ...query, ...(cursor ? { cursor } : {}) }, options);
      yield* page.data;
      cursor = page.has_more ? (page.next_cursor ?? undefined) : undefined;
    } while (cursor);
  }

  readonly models = {
    list: (options: RequestOptions = {}) => this.request("listModels", options),
    get: (model: string, options: RequestOptions = {}) => this.request("getModel", { ...options, path: { model } }),
  };

  readonly catalog = {
    listModels: (options: RequestOptions = {}) => this.request("listCatalogModels", options),
    listCapabilities: (options: RequestOptions = {}) => this.request("listCapabilities", options),
    getCapability: (capability: string, options: RequestOptions = {}) =>
      this.request("getCapability", { ...options, path: { capability } }),
  };

  /**
   * Batches: many creates of one operation, paced by the server (`concurrency` at once), one
   * budget (`max_credits`), one output file of JSON lines. `wait` reads the batch until it ends.
   */
  readonly batches = {
    create: (body: BodyOf<"createBatch">, options: CreateOptions = {}): Promise<BatchEnvelope> =>
      this.request("createBatch", { ...options, body } as never) as Promise<BatchEnvelope>,
    get: (batch: BatchRef, options: RequestOptions = {}): Promise<BatchEnvelope> =>
      this.request("getBatch", { ...options, path: { batch_id: batchIdOf(batch) } }),
    list: (query: QueryOf<"listBatches"> = {} as QueryOf<"listBatches">, options: RequestOptions = {}) =>
      this.request("listBatches", { ...options, query }),
    items: (batch: BatchRef, query: QueryOf<"listBatchItems"> = {} as QueryOf<"listBatchItems">, options: RequestOptions = {}) =>
      this.request("listBatchItems", { ...options, path: { batch_id: batchIdOf(batch) }, query }),
    cancel: (batch: BatchRef, options: RequestOptions = {}): Promise<BatchEnvelope> =>
      this.request("cancelBatch", { ...options, path: { batch_id: batchIdOf(batch) } }),
    /** Reads the batch every `pollIntervalMs` (default 2 s) until it has ended; `onProgress` sees each read. */
    wait: async (batch: BatchRef, options: BatchWaitOptions = {}): Promise<BatchEnvelope> => {
      const { onProgress, pollIntervalMs = 2000, timeoutMs, signal, ...rest } = options;
      const until = timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + timeoutMs;
      for (;;) {
        const b = await this.batches.get(batch, { ...rest, ...(signal ? { signal } : {}) });
        onProgress?.(b);
        if (b.status === "completed" || b.status === "canceled") return b;
        if (Date.now() + pollIntervalMs > until) throw new MediaTimeoutError(b.batch_id, timeoutMs ?? 0);
        await this.transport.sleep(pollIntervalMs, signal);
      }
    },
  };

  /**
   * The tenant's request log (`logs:read`): every authenticated call, newest first, with its
   * provider attempts and what it cost; `replay` (`tasks:write`) runs a logged create or chat call again.
   */
  readonly requests = {
    list: (query: RequestListQuery = {}, options: RequestOptions = {}): Promise<RequestPage> =>
      this.request("listRequests", { ...options, query: query as QueryOf<"listRequests"> }),
    /** Every entry matching the query, page after page. */
    listAll: (query: RequestListQuery = {}, options: RequestOptions = {}): AsyncGenerator<RequestLogEntry, void, undefined> =>
      allRequests((q) => this.requests.list(q, options), query),
    /** One entry with every provider attempt (a task's as it goes on) and, where the tenant keeps them, its bodies. */
    get: (request: RequestRef, options: RequestOptions = {}): Promise<RequestDetail> =>
      this.request("getRequest", { ...options, path: { request_id: requestIdOf(request) } }),
    /** Runs a logged create or chat call again as a new request of this key; answers as that call does. */
    replay: (request: RequestRef, options: ReplayOptions = {}): Promise<ReplayResult> => {
      const { model, ...rest } = options;
      return replayRequest(this.transport, request, { ...rest, body: model ? { model } : {} });
    },
  };

  readonly voices = {
    list: (query: QueryOf<"listVoices"> = {}, options: RequestOptions = {}) => this.request("listVoices", { ...options, query }),
    get: (voiceId: string, options: RequestOptions = {}) => this.request("getVoice", { ...options, path: { voice_id: voiceId } }),
  };

  readonly uploads = {
    /** Uploads bytes (a Blob, bytes or a stream) as an artifact to use as an input: `{type: "artifact", artifact_id}`. */
    create: (data: UploadData, options: UploadOptions = {}): Promise<ResultOf<"createUpload">> =>
      createUpload(this.transport, data, options) as Promise<ResultOf<"createUpload">>,
    /** Uploads a local file (Node): streamed from disk, its type told by its first bytes or its name. */
    fromFile: (path: string, options: UploadOptions = {}): Promise<ResultOf<"createUpload">> =>
      createFromFile(this.transport, path, options) as Promise<ResultOf<"createUpload">>,
  };

  readonly artifacts = {
    /**
     * An artifact's bytes: through its signed URL when it has a live one, else with the key. With
     * `path` (Node) they are written there (through a temporary file, renamed when whole).
     */
    download: ((artifact: string | ArtifactRef, path?: string, options: RequestOptions = {}) =>
      downloadArtifact(this.transport, artifact, path, options)) as {
      (artifact: string | ArtifactRef, path?: undefined, options?: RequestOptions): Promise<DownloadResult>;
      (artifact: string | ArtifactRef, path: string, options?: RequestOptions): Promise<SavedFile>;
    },
    /** A signed URL's bytes (no key). */
    downloadSigned: (signedUrl: string, path?: string, options: RequestOptions = {}) =>
      downloadArtifact(this.transport, { artifact_id: "", signed_url: signedUrl }, path, options),
    delete: async (artifactId: string, options: RequestOptions = {}): Promise<void> => {
      await this.transport.call("deleteArtifact", { ...options, path: { artifact_id: artifactId } });
    },
  };

  readonly balance = {
    get: (options: RequestOptions = {}) => this.request("getBalance", options),
  };

  /** Health of every provider and model: states, success rates, open circuits, incidents (no key needed). */
  readonly status = {
    get: (options: RequestOptions = {}) => this.request("getStatus", options),
  };

  readonly usage = {
    get: (query: QueryOf<"getUsage"> = {} as QueryOf<"getUsage">, options: RequestOptions = {}) =>
      this.request("getUsage", { ...options, query }),
  };

  /** The tenant's keys, for a key holding `keys:manage` (never beyond its own permissions, mode or limits). */
  readonly keys = {
    /** A new key; its `api_key` is in this answer only. */
    create: (body: BodyOf<"createKey"> = {}, options: RequestOptions = {}) => this.request("createKey", { ...options, body }),
    list: (query: QueryOf<"listKeys"> = {} as QueryOf<"listKeys">, options: RequestOptions = {}) =>
      this.request("listKeys", { ...options, query }),
    /** A key with its spend in the current period. */
    get: (keyId: string, options: RequestOptions = {}) => this.request("getKey", { ...options, path: { key_id: keyId } }),
    /** Renames, re-limits (`limits: null` removes them), disables or enables a key. */
    update: (keyId: string, body: BodyOf<"updateKey">, options: RequestOptions = {}) =>
      this.request("updateKey", { ...options, path: { key_id: keyId }, body }),
    revoke: (keyId: string, options: RequestOptions = {}) => this.request("revokeKey", { ...options, path: { key_id: keyId } }),
    /** The calling key: its permissions, limits and spend in the current period (any key). */
    self: (options: RequestOptions = {}) => this.request("getOwnKey", options),
  };

  /** The tenant's webhook endpoints and the log of every delivery, for a key holding `webhooks:manage`. */
  readonly webhooks = {
    endpoints: {
      /** A new endpoint; its `secret` is in this answer only. */
      create: (body: BodyOf<"createWebhookEndpoint">, options: RequestOptions = {}) =>
        this.request("createWebhookEndpoint", { ...options, body }),
      list: (options: RequestOptions = {}) => this.request("listWebhookEndpoints", options),
      get: (endpointId: string, options: RequestOptions = {}) =>
        this.request("getWebhookEndpoint", { ...options, path: { endpoint_id: endpointId } }),
      /** Changes the URL, events or description, or disables (`enabled: false`) and enables it. */
      update: (endpointId: string, body: BodyOf<"updateWebhookEndpoint">, options: RequestOptions = {}) =>
        this.request("updateWebhookEndpoint", { ...options, path: { endpoint_id: endpointId }, body }),
      delete: (endpointId: string, options: RequestOptions = {}) =>
        this.request("deleteWebhookEndpoint", { ...options, path: { endpoint_id: endpointId } }),
      /** A new secret (in this answer only); the previous one keeps signing beside it for `overlap_seconds`. */
      rotateSecret: (endpointId: string, body: BodyOf<"rotateWebhookEndpointSecret"> = {}, options: RequestOptions = {}) =>
        this.request("rotateWebhookEndpointSecret", { ...options, path: { endpoint_id: endpointId }, body }),
      /** Sends again every delivery to the endpoint since `since` that failed (those still pending are left alone); spends the hourly budgets of sends by hand. */
      recover: (endpointId: string, since: string | Date, options: RequestOptions = {}) =>
        this.request("createWebhookEndpointRecovery", {
          ...options,
          path: { endpoint_id: endpointId },
          body: { since: since instanceof Date ? since.toISOString() : since },
        }),
      /** Sends a `webhook.test` event now; answers its delivery with the attempt. */
      test: (endpointId: string, options: RequestOptions = {}) =>
        this.request("createWebhookEndpointTest", { ...options, path: { endpoint_id: endpointId } }),
    },
    deliveries: {
      list: (query: QueryOf<"listWebhookDeliveries"> = {} as QueryOf<"listWebhookDeliveries">, options: RequestOptions = {}) =>
        this.request("listWebhookDeliveries", { ...options, query }),
      /** A delivery with every attempt. */
      get: (deliveryId: string, options: RequestOptions = {}) =>
        this.request("getWebhookDelivery", { ...options, path: { delivery_id: deliveryId } }),
      /** One more attempt now, with the same `webhook-id`. */
      resend: (deliveryId: string, options: RequestOptions = {}) =>
        this.request("createWebhookDeliveryAttempt", { ...options, path: { delivery_id: deliveryId } }),
    },
  };

  /** The tenant's own provider keys (`providers:manage`): its live tasks on that provider run on its account. */
  readonly providerKeys = {
    /** Adds or replaces the key (checked with the provider first); without `api_key`, changes mode, models or failover. */
    set: (provider: string, body: BodyOf<"setProviderKey">, options: RequestOptions = {}) =>
      this.request("setProviderKey", { ...options, path: { provider }, body }),
    /** Every key, never its secret (`last4` only). */
    list: (options: RequestOptions = {}) => this.request("listProviderKeys", options),
    delete: (provider: string, options: RequestOptions = {}) =>
      this.request("deleteProviderKey", { ...options, path: { provider } }),
  };

  /** The tenant's own S3-compatible buckets that outputs are delivered to (`storage:manage`). */
  readonly storageDestinations = {
    /** Verified by writing and deleting a probe object; the secret is never shown again. */
    create: (body: BodyOf<"createStorageDestination">, options: RequestOptions = {}) =>
      this.request("createStorageDestination", { ...options, body }),
    list: (options: RequestOptions = {}) => this.request("listStorageDestinations", options),
    get: (destinationId: string, options: RequestOptions = {}) =>
      this.request("getStorageDestination", { ...options, path: { destination_id: destinationId } }),
    /** Makes it the tenant's default (or no longer). */
    update: (destinationId: string, body: BodyOf<"updateStorageDestination">, options: RequestOptions = {}) =>
      this.request("updateStorageDestination", { ...options, path: { destination_id: destinationId }, body }),
    delete: (destinationId: string, options: RequestOptions = {}) =>
      this.request("deleteStorageDestination", { ...options, path: { destination_id: destinationId } }),
  };

  /** Where the request log is sent (`logs:manage`): src/log-exports.ts. */
  readonly logExports = logExports((op, spec) => this.request(op, spec as never));

  readonly credits = {
    /** Starts buying credits: a hosted checkout whose `url` the buyer opens; granted once the payment is confirmed. */
    checkout: (body: BodyOf<"createCreditCheckout">, options: RequestOptions = {}) =>
      this.request("createCreditCheckout", { ...options, body }),
  };

  readonly chat = {
    completions: {
      create: ((body: BodyOf<"createChatCompletion">, options: RequestOptions = {}) =>
        body.stream
          ? this.transport
              .call("createChatCompletion", { ...options, body, accept: "text/event-stream" })
              .then((res) => chatStream(res))
          : this.request("createChatCompletion", { ...options, body })) as {
        (body: BodyOf<"createChatCompletion"> & { stream: true }, options?: RequestOptions): Promise<AsyncIterable<ChatChunk>>;
        (body: BodyOf<"createChatCompletion">, options?: RequestOptions): Promise<ResultOf<"createChatCompletion">>;
      },
    },
  };
}

/** The create operation serving a capability, from the generated table. */
export function operationForCapability(capability: string): OperationId | undefined {
  return (Object.keys(OPERATIONS) as OperationId[]).find(
    (id) => (OPERATIONS[id] as { capability: string | null }).capability === capability,
  );
}

export { MediaApiError };
