"""The operations and schemas of the API, read from its OpenAPI document.

Written by packages/python/scripts/generate.py; do not edit by hand. Regenerate with
`python3 packages/python/scripts/generate.py --url <base URL of a running server>`.
"""

# ruff: noqa
from typing import Any, Dict, List, Literal, NamedTuple, Optional, Tuple, TypedDict, Union

OPENAPI_VERSION = "3.1.0"
API_VERSION = "1.0.0"


class Operation(NamedTuple):
    """How one operation is called."""

    method: str
    path: str
    tag: Optional[str]
    summary: str
    capability: Optional[str]
    auth: str  # "api_key", "admin" or "none"
    idempotency_key: bool
    creates_task: bool
    path_params: Tuple[str, ...]
    query_params: Tuple[str, ...]
    request_types: Tuple[str, ...]
    response_types: Tuple[str, ...]
    body: Optional[str]  # the component schema of the JSON body
    result: Optional[str]  # the component schema of the JSON answer


OPERATIONS: Dict[str, Operation] = {
    "adminCreateApiKey": Operation(
        method="POST",
        path="/admin/v1/tenants/{tenant_id}/api-keys",
        tag="Operator",
        summary="Issue an API key",
        capability=None,
        auth="admin",
        idempotency_key=False,
        creates_task=False,
        path_params=("tenant_id",),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body=None,
        result="IssuedApiKey",
    ),
    "adminCreateCallbackSigningKey": Operation(
        method="POST",
        path="/admin/v1/tenants/{tenant_id}/callback-signing-keys",
        tag="Operator",
        summary="Create a callback signing key (Standard Webhooks secret, shown once)",
        capability=None,
        auth="admin",
        idempotency_key=False,
        creates_task=False,
        path_params=("tenant_id",),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="CallbackSigningKey",
    ),
    "adminCreateTenant": Operation(
        method="POST",
        path="/admin/v1/tenants",
        tag="Operator",
        summary="Create a tenant",
        capability=None,
        auth="admin",
        idempotency_key=False,
        creates_task=False,
        path_params=(),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body=None,
        result="Tenant",
    ),
    "adminCreateTenantMember": Operation(
        method="POST",
        path="/admin/v1/tenants/{tenant_id}/members",
        tag="Operator",
        summary="Invite someone to a tenant with a role (they are emailed, and join at their first sign-in)",
        capability=None,
        auth="admin",
        idempotency_key=False,
        creates_task=False,
        path_params=("tenant_id",),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body=None,
        result="TenantMember",
    ),
    "adminDisableTenant": Operation(
        method="POST",
        path="/admin/v1/tenants/{tenant_id}/disable",
        tag="Operator",
        summary="Disable a tenant (its keys stop working within seconds)",
        capability=None,
        auth="admin",
        idempotency_key=False,
        creates_task=False,
        path_params=("tenant_id",),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="Tenant",
    ),
    "adminEnableTenant": Operation(
        method="POST",
        path="/admin/v1/tenants/{tenant_id}/enable",
        tag="Operator",
        summary="Enable a tenant",
        capability=None,
        auth="admin",
        idempotency_key=False,
        creates_task=False,
        path_params=("tenant_id",),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="Tenant",
    ),
    "adminGetTenant": Operation(
        method="GET",
        path="/admin/v1/tenants/{tenant_id}",
        tag="Operator",
        summary="Read a tenant",
        capability=None,
        auth="admin",
        idempotency_key=False,
        creates_task=False,
        path_params=("tenant_id",),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="Tenant",
    ),
    "adminGetTenantLedger": Operation(
        method="GET",
        path="/admin/v1/tenants/{tenant_id}/ledger",
        tag="Operator",
        summary="A tenant's ledger: running totals beside the same figures recomputed from its rows (audits)",
        capability=None,
        auth="admin",
        idempotency_key=False,
        creates_task=False,
        path_params=("tenant_id",),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="Ledger",
    ),
    "adminGetTenantSafetyPolicy": Operation(
        method="GET",
        path="/admin/v1/tenants/{tenant_id}/safety",
        tag="Operator",
        summary="Read a tenant's content review policy",
        capability=None,
        auth="admin",
        idempotency_key=False,
        creates_task=False,
        path_params=("tenant_id",),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="TenantSafetyPolicy",
    ),
    "adminGrantCredits": Operation(
        method="POST",
        path="/admin/v1/tenants/{tenant_id}/credits",
        tag="Operator",
        summary="Grant credits",
        capability=None,
        auth="admin",
        idempotency_key=False,
        creates_task=False,
        path_params=("tenant_id",),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body=None,
        result="CreditGrant",
    ),
    "adminListOutbox": Operation(
        method="GET",
        path="/admin/v1/outbox",
        tag="Operator",
        summary="Mail kept by the local outbox (EMAIL_OUTBOX), newest first; deployments that send mail have none",
        capability=None,
        auth="admin",
        idempotency_key=False,
        creates_task=False,
        path_params=(),
        query_params=("to", "limit",),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result=None,
    ),
    "adminListTenantMembers": Operation(
        method="GET",
        path="/admin/v1/tenants/{tenant_id}/members",
        tag="Operator",
        summary="A tenant's members and invitations",
        capability=None,
        auth="admin",
        idempotency_key=False,
        creates_task=False,
        path_params=("tenant_id",),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result=None,
    ),
    "adminRetireCallbackSigningKey": Operation(
        method="POST",
        path="/admin/v1/callback-signing-keys/{id}/retire",
        tag="Operator",
        summary="Retire a callback signing key",
        capability=None,
        auth="admin",
        idempotency_key=False,
        creates_task=False,
        path_params=("id",),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="CallbackSigningKeyState",
    ),
    "adminRevokeApiKey": Operation(
        method="POST",
        path="/admin/v1/api-keys/{key_id}/revoke",
        tag="Operator",
        summary="Revoke an API key (effective everywhere within seconds: docs/scaling.md)",
        capability=None,
        auth="admin",
        idempotency_key=False,
        creates_task=False,
        path_params=("key_id",),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="ApiKey",
    ),
    "adminRotateApiKey": Operation(
        method="POST",
        path="/admin/v1/api-keys/{key_id}/rotate",
        tag="Operator",
        summary="Rotate an API key: a new key with the same name, permissions and mode; the old one works for the grace period, then stops",
        capability=None,
        auth="admin",
        idempotency_key=False,
        creates_task=False,
        path_params=("key_id",),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body=None,
        result="RotatedApiKey",
    ),
    "adminRotateCallbackSigningKey": Operation(
        method="POST",
        path="/admin/v1/callback-signing-keys/{id}/rotate",
        tag="Operator",
        summary="Rotate a callback signing key's secret; during the overlap deliveries carry both signatures, then only the new one",
        capability=None,
        auth="admin",
        idempotency_key=False,
        creates_task=False,
        path_params=("id",),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body=None,
        result="RotatedCallbackSigningKey",
    ),
    "adminSetApiKeyLimits": Operation(
        method="POST",
        path="/admin/v1/api-keys/{key_id}/limits",
        tag="Operator",
        summary="Replace an API key's limits (null: none); a credit limit binds at once, lists within seconds",
        capability=None,
        auth="admin",
        idempotency_key=False,
        creates_task=False,
        path_params=("key_id",),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body=None,
        result="ApiKey",
    ),
    "adminSetApiKeyPermissions": Operation(
        method="POST",
        path="/admin/v1/api-keys/{key_id}/permissions",
        tag="Operator",
        summary="Replace an API key's permissions (effective everywhere within seconds: docs/scaling.md)",
        capability=None,
        auth="admin",
        idempotency_key=False,
        creates_task=False,
        path_params=("key_id",),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body=None,
        result="ApiKey",
    ),
    "adminSetTenantRateLimit": Operation(
        method="POST",
        path="/admin/v1/tenants/{tenant_id}/rate-limit",
        tag="Operator",
        summary="Set a tenant's rate limit (requests per minute per API key; null for the default)",
        capability=None,
        auth="admin",
        idempotency_key=False,
        creates_task=False,
        path_params=("tenant_id",),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body=None,
        result="Tenant",
    ),
    "adminSetTenantSafetyPolicy": Operation(
        method="PUT",
        path="/admin/v1/tenants/{tenant_id}/safety",
        tag="Operator",
        summary="Set a tenant's content review policy (stricter categories and thresholds, or review off)",
        capability=None,
        auth="admin",
        idempotency_key=False,
        creates_task=False,
        path_params=("tenant_id",),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body="TenantSafetyPolicyInput",
        result="TenantSafetyPolicy",
    ),
    "adminSetTenantSettings": Operation(
        method="POST",
        path="/admin/v1/tenants/{tenant_id}/settings",
        tag="Operator",
        summary="Set a tenant's settings (output retention, request body logging, request log retention)",
        capability=None,
        auth="admin",
        idempotency_key=False,
        creates_task=False,
        path_params=("tenant_id",),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body="TenantSettingsInput",
        result="Tenant",
    ),
    "cancelBatch": Operation(
        method="POST",
        path="/v1/batches/{batch_id}/cancel",
        tag="Batches",
        summary="Cancel a batch: queued items end canceled, running tasks are asked to stop",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("batch_id",),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="Batch",
    ),
    "cancelTask": Operation(
        method="POST",
        path="/v1/tasks/{task_id}/cancel",
        tag="Tasks",
        summary="Cancel a task",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("task_id",),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body=None,
        result="TaskEnvelope",
    ),
    "createBatch": Operation(
        method="POST",
        path="/v1/batches",
        tag="Batches",
        summary="Run many creates of one operation as a batch",
        capability=None,
        auth="api_key",
        idempotency_key=True,
        creates_task=False,
        path_params=(),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body="BatchCreateRequest",
        result="Batch",
    ),
    "createChatCompletion": Operation(
        method="POST",
        path="/v1/chat/completions",
        tag="Chat",
        summary="Chat completion (OpenAI-compatible; optionally streamed)",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=(),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json", "text/event-stream",),
        body="ChatCompletionRequest",
        result="ChatCompletion",
    ),
    "createCreditCheckout": Operation(
        method="POST",
        path="/v1/credits/checkout",
        tag="Account",
        summary="Start buying credits: a hosted checkout of the payment provider",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=(),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body=None,
        result="CreditCheckout",
    ),
    "createImageEdit": Operation(
        method="POST",
        path="/v1/images/edits",
        tag="Images",
        summary="Edit a base image with references and regions (asynchronous task)",
        capability="image_edit",
        auth="api_key",
        idempotency_key=True,
        creates_task=True,
        path_params=(),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body="ImageEditRequest",
        result="TaskEnvelope",
    ),
    "createImageFromImages": Operation(
        method="POST",
        path="/v1/images/image-to-image",
        tag="Images",
        summary="1 to 4 ordered reference images to a new result (asynchronous task)",
        capability="image_to_image",
        auth="api_key",
        idempotency_key=True,
        creates_task=True,
        path_params=(),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body="ImageToImageRequest",
        result="TaskEnvelope",
    ),
    "createImageGeneration": Operation(
        method="POST",
        path="/v1/images/generations",
        tag="Images",
        summary="Text to 1 to 4 images (asynchronous task)",
        capability="text_to_image",
        auth="api_key",
        idempotency_key=True,
        creates_task=True,
        path_params=(),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body="ImageGenerationRequest",
        result="TaskEnvelope",
    ),
    "createImageUnderstanding": Operation(
        method="POST",
        path="/v1/images/responses",
        tag="Images",
        summary="Image understanding: answer a prompt about one or more images (asynchronous task)",
        capability="image_to_text",
        auth="api_key",
        idempotency_key=True,
        creates_task=True,
        path_params=(),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body="ImageToTextRequest",
        result="TaskEnvelope",
    ),
    "createKey": Operation(
        method="POST",
        path="/v1/keys",
        tag="Keys",
        summary="Create a key (shown once), within the calling key's own permissions, mode and limits",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=(),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body=None,
        result="IssuedApiKey",
    ),
    "createLogExport": Operation(
        method="POST",
        path="/v1/log-exports",
        tag="Request log",
        summary="Export the request log: OTLP traces to a collector, or JSON Lines files to a storage destination",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=(),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body="NewLogExport",
        result="LogExport",
    ),
    "createLogExportRun": Operation(
        method="POST",
        path="/v1/log-exports/{export_id}/run",
        tag="Request log",
        summary="Deliver what is new now; answers the export after the run (with `last_error` when it failed)",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("export_id",),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="LogExport",
    ),
    "createMusicFromText": Operation(
        method="POST",
        path="/v1/music/text-to-music",
        tag="Music",
        summary="Music from a prompt and/or lyrics (asynchronous task)",
        capability="text_to_music",
        auth="api_key",
        idempotency_key=True,
        creates_task=True,
        path_params=(),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body="TextToMusicRequest",
        result="TaskEnvelope",
    ),
    "createQuote": Operation(
        method="POST",
        path="/v1/quotes",
        tag="Tasks",
        summary="Quote a task before creating it",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=(),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body="QuoteRequest",
        result="Quote",
    ),
    "createRequestReplay": Operation(
        method="POST",
        path="/v1/requests/{request_id}/replay",
        tag="Request log",
        summary="Run a logged create or chat call again, as a new request of this key (optionally on another model)",
        capability=None,
        auth="api_key",
        idempotency_key=True,
        creates_task=False,
        path_params=("request_id",),
        query_params=(),
        request_types=("application/json",),
        response_types=(),
        body="RequestReplayInput",
        result=None,
    ),
    "createSpeech": Operation(
        method="POST",
        path="/v1/audio/speech",
        tag="Audio",
        summary="Text-to-speech with catalog voices (asynchronous task)",
        capability="text_to_speech",
        auth="api_key",
        idempotency_key=True,
        creates_task=True,
        path_params=(),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body="SpeechRequest",
        result="TaskEnvelope",
    ),
    "createStorageDestination": Operation(
        method="POST",
        path="/v1/storage-destinations",
        tag="Storage destinations",
        summary="Add an S3-compatible bucket for outputs, verified by writing and deleting a probe object",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=(),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body=None,
        result="StorageDestination",
    ),
    "createTaskDelivery": Operation(
        method="POST",
        path="/v1/tasks/{task_id}/deliveries",
        tag="Tasks",
        summary="Deliver a succeeded task's outputs again to its storage destination (or another)",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("task_id",),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body=None,
        result="TaskEnvelope",
    ),
    "createUpload": Operation(
        method="POST",
        path="/v1/uploads",
        tag="Artifacts",
        summary="Upload a media file as an artifact",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=(),
        query_params=(),
        request_types=("application/jsonl", "application/octet-stream", "audio/*", "image/*", "multipart/form-data", "video/*",),
        response_types=("application/json",),
        body=None,
        result="UploadedArtifact",
    ),
    "createVideoExtension": Operation(
        method="POST",
        path="/v1/videos/extend",
        tag="Videos",
        summary="Extend one source video before or after (asynchronous task)",
        capability="video_extend",
        auth="api_key",
        idempotency_key=True,
        creates_task=True,
        path_params=(),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body="VideoExtendRequest",
        result="TaskEnvelope",
    ),
    "createVideoFromFrames": Operation(
        method="POST",
        path="/v1/videos/frames-to-video",
        tag="Videos",
        summary="Video between strict first and last frames (asynchronous task)",
        capability="frames_to_video",
        auth="api_key",
        idempotency_key=True,
        creates_task=True,
        path_params=(),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body="FramesToVideoRequest",
        result="TaskEnvelope",
    ),
    "createVideoFromImage": Operation(
        method="POST",
        path="/v1/videos/image-to-video",
        tag="Videos",
        summary="Animate one strict opening image (asynchronous task)",
        capability="image_to_video",
        auth="api_key",
        idempotency_key=True,
        creates_task=True,
        path_params=(),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body="ImageToVideoRequest",
        result="TaskEnvelope",
    ),
    "createVideoFromReferences": Operation(
        method="POST",
        path="/v1/videos/reference-to-video",
        tag="Videos",
        summary="Video from ordered image, video and audio references (asynchronous task)",
        capability="reference_to_video",
        auth="api_key",
        idempotency_key=True,
        creates_task=True,
        path_params=(),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body="ReferenceToVideoRequest",
        result="TaskEnvelope",
    ),
    "createVideoFromText": Operation(
        method="POST",
        path="/v1/videos/text-to-video",
        tag="Videos",
        summary="Video from text (asynchronous task)",
        capability="text_to_video",
        auth="api_key",
        idempotency_key=True,
        creates_task=True,
        path_params=(),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body="TextToVideoRequest",
        result="TaskEnvelope",
    ),
    "createVideoPromptEnhancement": Operation(
        method="POST",
        path="/v1/videos/prompts/enhance",
        tag="Videos",
        summary="Enhance a video prompt (text-only task; no video is generated) (asynchronous task)",
        capability="video_prompt_enhance",
        auth="api_key",
        idempotency_key=True,
        creates_task=True,
        path_params=(),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body="VideoPromptEnhanceRequest",
        result="TaskEnvelope",
    ),
    "createVideoUnderstanding": Operation(
        method="POST",
        path="/v1/videos/responses",
        tag="Videos",
        summary="Video understanding (sampled at 1 frame per second) (asynchronous task)",
        capability="video_to_text",
        auth="api_key",
        idempotency_key=True,
        creates_task=True,
        path_params=(),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body="VideoToTextRequest",
        result="TaskEnvelope",
    ),
    "createWebhookDeliveryAttempt": Operation(
        method="POST",
        path="/v1/webhook-deliveries/{delivery_id}/resend",
        tag="Webhooks",
        summary="Send a delivery again now (same webhook-id, one more attempt); answers the delivery after it",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("delivery_id",),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="WebhookDeliveryDetail",
    ),
    "createWebhookEndpoint": Operation(
        method="POST",
        path="/v1/webhook-endpoints",
        tag="Webhooks",
        summary="Register an endpoint for the tenant's events (its signing secret shown once)",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=(),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body=None,
        result="CreatedWebhookEndpoint",
    ),
    "createWebhookEndpointRecovery": Operation(
        method="POST",
        path="/v1/webhook-endpoints/{endpoint_id}/recover",
        tag="Webhooks",
        summary="Send again every delivery to the endpoint since a time (at most 7 days back) that failed; those still pending are skipped",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("endpoint_id",),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body=None,
        result="WebhookRecovery",
    ),
    "createWebhookEndpointTest": Operation(
        method="POST",
        path="/v1/webhook-endpoints/{endpoint_id}/test",
        tag="Webhooks",
        summary="Send a `webhook.test` event to the endpoint now; answers its delivery with that attempt, or still pending after 5 s (the attempt goes on; the delivery shows its outcome)",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("endpoint_id",),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="WebhookDeliveryDetail",
    ),
    "deleteArtifact": Operation(
        method="DELETE",
        path="/v1/artifacts/{artifact_id}",
        tag="Artifacts",
        summary="Delete one of the caller's artifacts (an upload or a task output)",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("artifact_id",),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="DeletedArtifact",
    ),
    "deleteLogExport": Operation(
        method="DELETE",
        path="/v1/log-exports/{export_id}",
        tag="Request log",
        summary="Delete an export: nothing more is sent",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("export_id",),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="DeletedLogExport",
    ),
    "deleteProviderKey": Operation(
        method="DELETE",
        path="/v1/provider-keys/{provider}",
        tag="Provider keys",
        summary="Remove the tenant's key for a provider: its tasks use the platform's routes again",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("provider",),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="DeletedProviderKey",
    ),
    "deleteStorageDestination": Operation(
        method="DELETE",
        path="/v1/storage-destinations/{destination_id}",
        tag="Storage destinations",
        summary="Delete a destination: nothing more is delivered to it",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("destination_id",),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="DeletedStorageDestination",
    ),
    "deleteTaskOutputs": Operation(
        method="DELETE",
        path="/v1/tasks/{task_id}/outputs",
        tag="Tasks",
        summary="Delete a terminal task's outputs now",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("task_id",),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="TaskEnvelope",
    ),
    "deleteWebhookEndpoint": Operation(
        method="DELETE",
        path="/v1/webhook-endpoints/{endpoint_id}",
        tag="Webhooks",
        summary="Delete an endpoint: nothing more is delivered to it",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("endpoint_id",),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="DeletedWebhookEndpoint",
    ),
    "downloadArtifact": Operation(
        method="GET",
        path="/v1/artifacts/{artifact_id}",
        tag="Tasks",
        summary="Download an artifact (owner only; byte ranges supported)",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("artifact_id",),
        query_params=(),
        request_types=(),
        response_types=("application/octet-stream",),
        body=None,
        result=None,
    ),
    "downloadSignedArtifact": Operation(
        method="GET",
        path="/files/{artifact_id}",
        tag="Tasks",
        summary="Download an artifact through its signed URL (no API key; byte ranges supported)",
        capability=None,
        auth="none",
        idempotency_key=False,
        creates_task=False,
        path_params=("artifact_id",),
        query_params=("expires", "sig",),
        request_types=(),
        response_types=("application/octet-stream",),
        body=None,
        result=None,
    ),
    "getBalance": Operation(
        method="GET",
        path="/v1/balance",
        tag="Account",
        summary="Get the caller's credit balance",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=(),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="Balance",
    ),
    "getBatch": Operation(
        method="GET",
        path="/v1/batches/{batch_id}",
        tag="Batches",
        summary="Read a batch: its status, counts and billing",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("batch_id",),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="Batch",
    ),
    "getCapability": Operation(
        method="GET",
        path="/v1/catalog/capabilities/{capability}",
        tag="Catalog",
        summary="Capability detail with typed media interface cards",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("capability",),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="CapabilityDetail",
    ),
    "getKey": Operation(
        method="GET",
        path="/v1/keys/{key_id}",
        tag="Keys",
        summary="Get a key with its spend in the current period",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("key_id",),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="ApiKeyDetail",
    ),
    "getLogExport": Operation(
        method="GET",
        path="/v1/log-exports/{export_id}",
        tag="Request log",
        summary="Get an export with its last run, last success, last error and delivered count",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("export_id",),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="LogExport",
    ),
    "getModel": Operation(
        method="GET",
        path="/v1/catalog/models/{model}",
        tag="Catalog",
        summary="Model detail with typed media interface cards",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("model",),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="ModelDetail",
    ),
    "getOwnKey": Operation(
        method="GET",
        path="/v1/key",
        tag="Keys",
        summary="The calling key: its permissions, limits and spend in the current period",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=(),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="OwnApiKey",
    ),
    "getRequest": Operation(
        method="GET",
        path="/v1/requests/{request_id}",
        tag="Request log",
        summary="Get a request with every provider attempt (a task's as it goes on) and, where kept, its bodies",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("request_id",),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="RequestLogDetail",
    ),
    "getStatus": Operation(
        method="GET",
        path="/v1/status",
        tag="Status",
        summary="Health of every provider and model (no API key; cacheable for 10 s)",
        capability=None,
        auth="none",
        idempotency_key=False,
        creates_task=False,
        path_params=(),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="ServiceStatus",
    ),
    "getStorageDestination": Operation(
        method="GET",
        path="/v1/storage-destinations/{destination_id}",
        tag="Storage destinations",
        summary="Get a storage destination",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("destination_id",),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="StorageDestination",
    ),
    "getTask": Operation(
        method="GET",
        path="/v1/tasks/{task_id}",
        tag="Tasks",
        summary="Get a task",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("task_id",),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="TaskEnvelope",
    ),
    "getUsage": Operation(
        method="GET",
        path="/v1/usage",
        tag="Account",
        summary="Get the caller's usage over a window",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=(),
        query_params=("from", "to", "group_by",),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="UsageReport",
    ),
    "getVoice": Operation(
        method="GET",
        path="/v1/voices/{voice_id}",
        tag="Voices",
        summary="Voice detail",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("voice_id",),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="Voice",
    ),
    "getWebhookDelivery": Operation(
        method="GET",
        path="/v1/webhook-deliveries/{delivery_id}",
        tag="Webhooks",
        summary="Get a delivery with every attempt",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("delivery_id",),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="WebhookDeliveryDetail",
    ),
    "getWebhookEndpoint": Operation(
        method="GET",
        path="/v1/webhook-endpoints/{endpoint_id}",
        tag="Webhooks",
        summary="Get an endpoint",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("endpoint_id",),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="WebhookEndpoint",
    ),
    "listBatchItems": Operation(
        method="GET",
        path="/v1/batches/{batch_id}/items",
        tag="Batches",
        summary="A batch's items in order: custom_id, task, status, error",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("batch_id",),
        query_params=("status", "limit", "cursor",),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="BatchItemPage",
    ),
    "listBatches": Operation(
        method="GET",
        path="/v1/batches",
        tag="Batches",
        summary="List the caller's batches, newest first",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=(),
        query_params=("limit", "cursor",),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="BatchPage",
    ),
    "listCapabilities": Operation(
        method="GET",
        path="/v1/catalog/capabilities",
        tag="Catalog",
        summary="List capabilities",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=(),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="CapabilityList",
    ),
    "listCatalogModels": Operation(
        method="GET",
        path="/v1/catalog/models",
        tag="Catalog",
        summary="List models under the catalog namespace",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=(),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="ModelList",
    ),
    "listKeys": Operation(
        method="GET",
        path="/v1/keys",
        tag="Keys",
        summary="List the tenant's keys, newest first (a test key lists test keys); never their secrets",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=(),
        query_params=("limit", "cursor",),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="ApiKeyPage",
    ),
    "listLogExports": Operation(
        method="GET",
        path="/v1/log-exports",
        tag="Request log",
        summary="List the request log's exports, oldest first",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=(),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="LogExportList",
    ),
    "listModels": Operation(
        method="GET",
        path="/v1/models",
        tag="Catalog",
        summary="List models (chat-compatible list shape)",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=(),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="ModelList",
    ),
    "listProviderKeys": Operation(
        method="GET",
        path="/v1/provider-keys",
        tag="Provider keys",
        summary="List the tenant's provider keys, by provider; never the keys",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=(),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="ProviderKeyList",
    ),
    "listRequests": Operation(
        method="GET",
        path="/v1/requests",
        tag="Request log",
        summary="List the tenant's requests, newest first, filtered",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=(),
        query_params=("since", "until", "status", "route", "key_id", "model", "task_id", "error_code", "limit", "cursor",),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="RequestLogPage",
    ),
    "listStorageDestinations": Operation(
        method="GET",
        path="/v1/storage-destinations",
        tag="Storage destinations",
        summary="List the tenant's storage destinations, oldest first",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=(),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="StorageDestinationList",
    ),
    "listTaskAssets": Operation(
        method="GET",
        path="/v1/tasks/{task_id}/assets",
        tag="Tasks",
        summary="The artifacts a task produced",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("task_id",),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result=None,
    ),
    "listTasks": Operation(
        method="GET",
        path="/v1/tasks",
        tag="Tasks",
        summary="List the caller's tasks, newest first",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=(),
        query_params=("status", "capability", "created_after", "created_before", "limit", "cursor", "batch_id",),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="TaskPage",
    ),
    "listVoices": Operation(
        method="GET",
        path="/v1/voices",
        tag="Voices",
        summary="List voices",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=(),
        query_params=("language", "gender", "category", "q",),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="VoiceList",
    ),
    "listWebhookDeliveries": Operation(
        method="GET",
        path="/v1/webhook-deliveries",
        tag="Webhooks",
        summary="List the tenant's deliveries, to endpoints and task callbacks, newest first",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=(),
        query_params=("endpoint_id", "task_id", "status", "limit", "cursor",),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="WebhookDeliveryPage",
    ),
    "listWebhookEndpoints": Operation(
        method="GET",
        path="/v1/webhook-endpoints",
        tag="Webhooks",
        summary="List the tenant's endpoints, oldest first; never their secrets",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=(),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="WebhookEndpointList",
    ),
    "revokeKey": Operation(
        method="DELETE",
        path="/v1/keys/{key_id}",
        tag="Keys",
        summary="Revoke a key (for good; effective everywhere within seconds)",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("key_id",),
        query_params=(),
        request_types=(),
        response_types=("application/json",),
        body=None,
        result="ApiKey",
    ),
    "rotateWebhookEndpointSecret": Operation(
        method="POST",
        path="/v1/webhook-endpoints/{endpoint_id}/rotate-secret",
        tag="Webhooks",
        summary="Replace the endpoint's secret (shown once); during the overlap every message carries both signatures",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("endpoint_id",),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body=None,
        result="CreatedWebhookEndpoint",
    ),
    "setProviderKey": Operation(
        method="PUT",
        path="/v1/provider-keys/{provider}",
        tag="Provider keys",
        summary="Add or replace the tenant's own key for a provider (checked with the provider first)",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("provider",),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body=None,
        result="ProviderKey",
    ),
    "streamTaskEvents": Operation(
        method="GET",
        path="/v1/tasks/{task_id}/events",
        tag="Tasks",
        summary="Follow a task: a server-sent event stream of its changes, ending with the final envelope",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("task_id",),
        query_params=(),
        request_types=(),
        response_types=("text/event-stream",),
        body=None,
        result=None,
    ),
    "updateKey": Operation(
        method="PATCH",
        path="/v1/keys/{key_id}",
        tag="Keys",
        summary="Rename a key, replace its limits (null removes them) or disable and enable it",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("key_id",),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body=None,
        result="ApiKey",
    ),
    "updateStorageDestination": Operation(
        method="PATCH",
        path="/v1/storage-destinations/{destination_id}",
        tag="Storage destinations",
        summary="Make a destination the tenant's default, or no longer",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("destination_id",),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body=None,
        result="StorageDestination",
    ),
    "updateWebhookEndpoint": Operation(
        method="PATCH",
        path="/v1/webhook-endpoints/{endpoint_id}",
        tag="Webhooks",
        summary="Change an endpoint's URL, events or description, or disable and enable it",
        capability=None,
        auth="api_key",
        idempotency_key=False,
        creates_task=False,
        path_params=("endpoint_id",),
        query_params=(),
        request_types=("application/json",),
        response_types=("application/json",),
        body=None,
        result="WebhookEndpoint",
    ),
}


class ApiKey(TypedDict):
    key_id: str
    name: Optional[str]
    prefix: Optional[str]
    region: str
    mode: Literal["live", "test"]
    permissions: List[Literal["catalog:read", "tasks:read", "tasks:write", "chat", "keys:manage", "webhooks:manage", "providers:manage", "storage:manage", "logs:read", "logs:manage"]]
    status: Literal["active", "disabled", "revoked", "expired"]
    limits: "ApiKeyLimits"
    created_at: str
    created_by: Optional[str]
    last_used_at: Optional[str]
    expires_at: Optional[str]
    replaced_by: Optional[str]
    revoked_at: Optional[str]


class ApiKeyDetail(TypedDict):
    key_id: str
    name: Optional[str]
    prefix: Optional[str]
    region: str
    mode: Literal["live", "test"]
    permissions: List[Literal["catalog:read", "tasks:read", "tasks:write", "chat", "keys:manage", "webhooks:manage", "providers:manage", "storage:manage", "logs:read", "logs:manage"]]
    status: Literal["active", "disabled", "revoked", "expired"]
    limits: "ApiKeyLimits"
    created_at: str
    created_by: Optional[str]
    last_used_at: Optional[str]
    expires_at: Optional[str]
    replaced_by: Optional[str]
    revoked_at: Optional[str]
    spent_credits: str
    reserved_credits: str
    remaining_credits: Optional[str]
    period_started_at: Optional[str]
    period_resets_at: Optional[str]


class _ApiKeyLimitsRequired(TypedDict):
    period: Literal["day", "week", "month", "total"]


class ApiKeyLimits(_ApiKeyLimitsRequired, total=False):
    credits: str
    models: List[str]
    capabilities: List[str]


ApiKeyLimits = Optional["ApiKeyLimits"]


class ApiKeyPage(TypedDict):
    object: Literal["list"]
    data: List["ApiKey"]
    has_more: bool
    next_cursor: Optional[str]


class _ArtifactRequired(TypedDict):
    artifact_id: str
    content_type: str
    bytes: int
    index: int


class Artifact(_ArtifactRequired, total=False):
    url: str
    deleted: Literal[True]
    expires_at: str
    expired: Literal[True]
    signed_url: str
    signed_url_expires_at: str
    width: int
    height: int
    duration_seconds: float
    delivered: List["DeliveredCopy"]


class AutoSelection(TypedDict):
    default_model: Literal["auto"]
    basic_request_preference: str
    request_dependent: bool
    persisted_selection_field: Literal["resolved_model"]
    description: str


class Balance(TypedDict):
    object: Literal["balance"]
    mode: Literal["live", "test"]
    available_credits: str
    reserved_credits: str
    currency: Literal["credits"]
    as_of: str


class BatchCounts(TypedDict):
    total: int
    queued: int
    running: int
    succeeded: int
    failed: int
    canceled: int


class BatchBilling(TypedDict):
    estimated_credits: str
    charged_credits: str
    refunded_credits: str


class BatchCallback(TypedDict):
    url: str
    status: Literal["pending", "delivered", "failed"]
    attempt_count: int
    delivered_at: Optional[str]
    last_error: Optional[str]


class BatchLinks(TypedDict):
    self: str
    items: str
    cancel: str


class _BatchRequired(TypedDict):
    object: Literal["batch"]
    batch_id: str
    operation: str
    status: Literal["queued", "running", "completed", "canceling", "canceled"]
    counts: "BatchCounts"
    billing: "BatchBilling"
    max_credits: Optional[str]
    concurrency: int
    metadata: Dict[str, str]
    created_at: str
    started_at: Optional[str]
    completed_at: Optional[str]
    cancel_requested_at: Optional[str]
    links: "BatchLinks"


class Batch(_BatchRequired, total=False):
    callback: "BatchCallback"
    output_file_id: str
    output_file_url: Optional[str]
    output_file_expires_at: Optional[str]


class BatchCreateRequestItemsItem(TypedDict):
    custom_id: str
    body: Dict[str, Any]


class _BatchCreateRequestRequired(TypedDict):
    operation: Literal["chat_completion", "text_to_image", "image_to_image", "image_edit", "image_to_text", "video_prompt_enhance", "text_to_video", "image_to_video", "reference_to_video", "frames_to_video", "video_extend", "video_to_text", "text_to_music", "text_to_speech"]


class BatchCreateRequest(_BatchCreateRequestRequired, total=False):
    items: List["BatchCreateRequestItemsItem"]
    input_file_id: str
    max_credits: Union[str, float]
    concurrency: int
    callback_url: str
    callback_signing_key_id: str
    metadata: Dict[str, str]


class _BatchItemRequired(TypedDict):
    object: Literal["batch_item"]
    custom_id: str
    task_id: Optional[str]
    status: Literal["queued", "running", "succeeded", "failed", "canceled"]


class BatchItem(_BatchItemRequired, total=False):
    error: Dict[str, Any]


class BatchItemPage(TypedDict):
    object: Literal["list"]
    data: List["BatchItem"]
    has_more: bool
    next_cursor: Optional[str]


class BatchPage(TypedDict):
    object: Literal["list"]
    data: List["Batch"]
    has_more: bool
    next_cursor: Optional[str]


class CallbackSigningKey(TypedDict):
    id: str
    secret: str
    created_at: str


class CallbackSigningKeyState(TypedDict):
    id: str
    status: Literal["active", "retired"]
    created_at: str
    retired_at: Optional[str]
    rotated_at: Optional[str]
    previous_valid_until: Optional[str]


class Canvas(TypedDict):
    type: Literal["preset"]
    tier: str
    aspect: str


class Canvas(TypedDict):
    type: Literal["target"]
    width: int
    height: int


class _CapabilityDetailRequired(TypedDict):
    capability: str
    endpoint: str
    input_modality: List[str]
    output_modality: str
    execution_mode: str
    description: str
    status: str
    lifecycle: str
    visibility: str
    model_count: int
    starting_credits: Optional[str]
    detail_variant: str
    schema_version: str
    auto: "AutoSelection"
    models: List["InterfaceCard"]


class CapabilityDetail(_CapabilityDetailRequired, total=False):
    max_output_images: int
    max_canvas_pixels: int


class CapabilityList(TypedDict):
    object: Literal["list"]
    data: List["CapabilitySummary"]


class CapabilitySummary(TypedDict):
    capability: str
    endpoint: str
    input_modality: List[str]
    output_modality: str
    execution_mode: str
    description: str
    status: str
    lifecycle: str
    visibility: str
    model_count: int
    starting_credits: Optional[str]


class CatalogRoute(TypedDict):
    provider: str
    upstream_model: str
    live: bool
    health: Literal["operational", "degraded", "down"]


class ChatCompletionChoicesItemMessageToolCallsItemFunction(TypedDict):
    name: str
    arguments: str


class ChatCompletionChoicesItemMessageToolCallsItem(TypedDict):
    id: str
    type: Literal["function"]
    function: "ChatCompletionChoicesItemMessageToolCallsItemFunction"


class _ChatCompletionChoicesItemMessageRequired(TypedDict):
    role: Literal["assistant"]
    content: Optional[str]


class ChatCompletionChoicesItemMessage(_ChatCompletionChoicesItemMessageRequired, total=False):
    refusal: Optional[str]
    tool_calls: List["ChatCompletionChoicesItemMessageToolCallsItem"]


class _ChatCompletionChoicesItemRequired(TypedDict):
    index: int
    message: "ChatCompletionChoicesItemMessage"
    finish_reason: Literal["stop", "length", "tool_calls", "content_filter"]


class ChatCompletionChoicesItem(_ChatCompletionChoicesItemRequired, total=False):
    logprobs: Any


class ChatCompletionUsagePromptTokensDetails(TypedDict):
    cached_tokens: int


class ChatCompletionUsageCompletionTokensDetails(TypedDict):
    reasoning_tokens: int


class ChatCompletionUsage(TypedDict):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int
    prompt_tokens_details: "ChatCompletionUsagePromptTokensDetails"
    completion_tokens_details: "ChatCompletionUsageCompletionTokensDetails"


class _ChatCompletionModelFallbacksItemRequired(TypedDict):
    model: str
    reason: str
    at: str


class ChatCompletionModelFallbacksItem(_ChatCompletionModelFallbacksItemRequired, total=False):
    message: str


class _ChatCompletionRequired(TypedDict):
    id: str
    object: Literal["chat.completion"]
    created: int
    model: str
    choices: List["ChatCompletionChoicesItem"]
    usage: "ChatCompletionUsage"


class ChatCompletion(_ChatCompletionRequired, total=False):
    model_fallbacks: List["ChatCompletionModelFallbacksItem"]


class ChatCompletionRequestMessagesItemContentItem(TypedDict):
    type: Literal["text"]
    text: str


class _ChatCompletionRequestMessagesItemRequired(TypedDict):
    role: Literal["system"]
    content: Union[str, List["ChatCompletionRequestMessagesItemContentItem"]]


class ChatCompletionRequestMessagesItem(_ChatCompletionRequestMessagesItemRequired, total=False):
    name: str


class ChatCompletionRequestMessagesItem2ContentItem(TypedDict):
    type: Literal["text"]
    text: str


class _ChatCompletionRequestMessagesItem2Required(TypedDict):
    role: Literal["developer"]
    content: Union[str, List["ChatCompletionRequestMessagesItem2ContentItem"]]


class ChatCompletionRequestMessagesItem2(_ChatCompletionRequestMessagesItem2Required, total=False):
    name: str


class ChatCompletionRequestMessagesItem3ContentItem(TypedDict):
    type: Literal["text"]
    text: str


class _ChatCompletionRequestMessagesItem3ContentItem2ImageUrlRequired(TypedDict):
    url: str


class ChatCompletionRequestMessagesItem3ContentItem2ImageUrl(_ChatCompletionRequestMessagesItem3ContentItem2ImageUrlRequired, total=False):
    detail: Literal["auto", "low", "high"]


class ChatCompletionRequestMessagesItem3ContentItem2(TypedDict):
    type: Literal["image_url"]
    image_url: "ChatCompletionRequestMessagesItem3ContentItem2ImageUrl"


class _ChatCompletionRequestMessagesItem3Required(TypedDict):
    role: Literal["user"]
    content: Union[str, List[Union["ChatCompletionRequestMessagesItem3ContentItem", "ChatCompletionRequestMessagesItem3ContentItem2"]]]


class ChatCompletionRequestMessagesItem3(_ChatCompletionRequestMessagesItem3Required, total=False):
    name: str


class ChatCompletionRequestMessagesItem4ContentItem(TypedDict):
    type: Literal["text"]
    text: str


class ChatCompletionRequestMessagesItem4ContentItem2(TypedDict):
    type: Literal["refusal"]
    refusal: str


class ChatCompletionRequestMessagesItem4ToolCallsItemFunction(TypedDict):
    name: str
    arguments: str


class ChatCompletionRequestMessagesItem4ToolCallsItem(TypedDict):
    id: str
    type: Literal["function"]
    function: "ChatCompletionRequestMessagesItem4ToolCallsItemFunction"


class _ChatCompletionRequestMessagesItem4Required(TypedDict):
    role: Literal["assistant"]


class ChatCompletionRequestMessagesItem4(_ChatCompletionRequestMessagesItem4Required, total=False):
    content: Optional[Union[str, List[Union["ChatCompletionRequestMessagesItem4ContentItem", "ChatCompletionRequestMessagesItem4ContentItem2"]]]]
    name: str
    tool_calls: List["ChatCompletionRequestMessagesItem4ToolCallsItem"]
    refusal: Optional[str]


class ChatCompletionRequestMessagesItem5ContentItem(TypedDict):
    type: Literal["text"]
    text: str


class ChatCompletionRequestMessagesItem5(TypedDict):
    role: Literal["tool"]
    content: Union[str, List["ChatCompletionRequestMessagesItem5ContentItem"]]
    tool_call_id: str


class _ChatCompletionRequestToolsItemFunctionRequired(TypedDict):
    name: str


class ChatCompletionRequestToolsItemFunction(_ChatCompletionRequestToolsItemFunctionRequired, total=False):
    description: str
    parameters: Dict[str, Any]
    strict: Optional[bool]


class ChatCompletionRequestToolsItem(TypedDict):
    type: Literal["function"]
    function: "ChatCompletionRequestToolsItemFunction"


class ChatCompletionRequestToolChoiceFunction(TypedDict):
    name: str


class ChatCompletionRequestToolChoice(TypedDict):
    type: Literal["function"]
    function: "ChatCompletionRequestToolChoiceFunction"


class ChatCompletionRequestResponseFormat(TypedDict):
    type: Literal["text"]


class ChatCompletionRequestResponseFormat2(TypedDict):
    type: Literal["json_object"]


class _ChatCompletionRequestResponseFormat3JsonSchemaRequired(TypedDict):
    name: str


class ChatCompletionRequestResponseFormat3JsonSchema(_ChatCompletionRequestResponseFormat3JsonSchemaRequired, total=False):
    schema: Dict[str, Any]


class ChatCompletionRequestResponseFormat3(TypedDict):
    type: Literal["json_schema"]
    json_schema: "ChatCompletionRequestResponseFormat3JsonSchema"


class ChatCompletionRequestStreamOptions(TypedDict, total=False):
    include_usage: bool


class _ChatCompletionRequestRequired(TypedDict):
    messages: List[Union["ChatCompletionRequestMessagesItem", "ChatCompletionRequestMessagesItem2", "ChatCompletionRequestMessagesItem3", "ChatCompletionRequestMessagesItem4", "ChatCompletionRequestMessagesItem5"]]


class ChatCompletionRequest(_ChatCompletionRequestRequired, total=False):
    model: str
    models: List[str]
    provider: "ProviderPreferences"
    temperature: Optional[float]
    top_p: Optional[float]
    max_tokens: Optional[int]
    max_completion_tokens: Optional[int]
    stop: Optional[Union[str, List[str]]]
    n: Optional[int]
    seed: Optional[int]
    tools: List["ChatCompletionRequestToolsItem"]
    tool_choice: Union[Literal["none", "auto", "required"], "ChatCompletionRequestToolChoice"]
    response_format: Union["ChatCompletionRequestResponseFormat", "ChatCompletionRequestResponseFormat2", "ChatCompletionRequestResponseFormat3"]
    user: str
    stream: Optional[bool]
    stream_options: Optional["ChatCompletionRequestStreamOptions"]
    max_credits: Union[str, float]


class CreatedWebhookEndpoint(TypedDict):
    object: Literal["webhook_endpoint"]
    endpoint_id: str
    mode: Literal["live", "test"]
    url: str
    description: Optional[str]
    events: List[str]
    enabled: bool
    disabled_reason: Literal["failing", None]
    failing_since: Optional[str]
    secret_rotated_at: Optional[str]
    previous_secret_valid_until: Optional[str]
    created_at: str
    updated_at: str
    secret: str


class CreditCheckout(TypedDict):
    object: Literal["checkout"]
    id: str
    url: str
    provider: str
    amount: int
    currency: str
    credits: str


class CreditGrantGrant(TypedDict):
    grant_id: str
    amount: str
    source: str
    created_at: str


class CreditGrant(TypedDict):
    grant: "CreditGrantGrant"
    balance: str


class DeletedArtifact(TypedDict):
    object: Literal["artifact"]
    artifact_id: str
    deleted: Literal[True]


class DeletedLogExport(TypedDict):
    object: Literal["log_export"]
    export_id: str
    deleted: Literal[True]


class DeletedProviderKey(TypedDict):
    object: Literal["provider_key"]
    provider: str
    deleted: Literal[True]


class DeletedStorageDestination(TypedDict):
    object: Literal["storage_destination"]
    destination_id: str
    deleted: Literal[True]


class DeletedWebhookEndpoint(TypedDict):
    object: Literal["webhook_endpoint"]
    endpoint_id: str
    deleted: Literal[True]


class DeliveredCopy(TypedDict):
    destination_id: str
    key: str
    etag: Optional[str]
    bytes: int


class EditRegion(TypedDict):
    image_index: int
    x: float
    y: float
    width: float
    height: float


class _ErrorEnvelopeErrorRequired(TypedDict):
    code: str
    type: str
    message: str
    retryable: bool
    request_id: str


class ErrorEnvelopeError(_ErrorEnvelopeErrorRequired, total=False):
    param: str
    details: Dict[str, Any]


class ErrorEnvelope(TypedDict):
    error: "ErrorEnvelopeError"


class _FramesToVideoRequestRequired(TypedDict):
    first_frame: "MediaInput"
    last_frame: "MediaInput"


class FramesToVideoRequest(_FramesToVideoRequestRequired, total=False):
    model: str
    prompt: str
    driving_audio: Any
    negative_prompt: str
    duration: Union[int, Literal["auto"]]
    aspect_ratio: str
    resolution: str
    seed: int
    enhance_prompt: Optional[bool]
    watermark: bool
    generate_audio: bool
    web_search: bool
    return_last_frame: bool
    metadata: Dict[str, str]
    callback_url: str
    callback_signing_key_id: str
    max_credits: Union[str, float]
    deadline_seconds: int
    output_destination_id: str
    quote_id: str
    output_retention_days: int
    models: List[str]
    provider: "ProviderPreferences"


class _ImageEditRequestRequired(TypedDict):
    prompt: str
    images: List["MediaInput"]


class ImageEditRequest(_ImageEditRequestRequired, total=False):
    model: str
    count: int
    seed: int
    negative_prompt: str
    enhance_prompt: Optional[bool]
    palette: List["PaletteEntry"]
    output_format: Literal["png", "jpeg", "webp"]
    canvas: "Canvas"
    edit_regions: List["EditRegion"]
    metadata: Dict[str, str]
    callback_url: str
    callback_signing_key_id: str
    max_credits: Union[str, float]
    deadline_seconds: int
    output_destination_id: str
    quote_id: str
    output_retention_days: int
    models: List[str]
    provider: "ProviderPreferences"


class _ImageGenerationRequestRequired(TypedDict):
    prompt: str


class ImageGenerationRequest(_ImageGenerationRequestRequired, total=False):
    model: str
    count: int
    seed: int
    negative_prompt: str
    enhance_prompt: Optional[bool]
    palette: List["PaletteEntry"]
    output_format: Literal["png", "jpeg", "webp"]
    canvas: "Canvas"
    output_relationship: Literal["independent", "sequence"]
    reasoning: Optional[bool]
    metadata: Dict[str, str]
    callback_url: str
    callback_signing_key_id: str
    max_credits: Union[str, float]
    deadline_seconds: int
    output_destination_id: str
    quote_id: str
    output_retention_days: int
    models: List[str]
    provider: "ProviderPreferences"


class _ImageToImageRequestRequired(TypedDict):
    prompt: str
    images: List["MediaInput"]


class ImageToImageRequest(_ImageToImageRequestRequired, total=False):
    model: str
    count: int
    seed: int
    negative_prompt: str
    enhance_prompt: Optional[bool]
    palette: List["PaletteEntry"]
    output_format: Literal["png", "jpeg", "webp"]
    canvas: Any
    output_relationship: Literal["independent", "sequence"]
    metadata: Dict[str, str]
    callback_url: str
    callback_signing_key_id: str
    max_credits: Union[str, float]
    deadline_seconds: int
    output_destination_id: str
    quote_id: str
    output_retention_days: int
    models: List[str]
    provider: "ProviderPreferences"


class _ImageToTextRequestRequired(TypedDict):
    prompt: str
    images: List["MediaInput"]


class ImageToTextRequest(_ImageToTextRequestRequired, total=False):
    model: str
    detail: Literal["auto", "low", "high"]
    response_format: Literal["text", "json"]
    temperature: float
    max_output_tokens: int
    metadata: Dict[str, str]
    callback_url: str
    callback_signing_key_id: str
    max_credits: Union[str, float]
    deadline_seconds: int
    output_destination_id: str
    quote_id: str
    output_retention_days: int
    models: List[str]
    provider: "ProviderPreferences"


class _ImageToVideoRequestRequired(TypedDict):
    image: "MediaInput"


class ImageToVideoRequest(_ImageToVideoRequestRequired, total=False):
    model: str
    prompt: str
    negative_prompt: str
    duration: Union[int, Literal["auto"]]
    aspect_ratio: str
    resolution: str
    seed: int
    enhance_prompt: Optional[bool]
    watermark: bool
    generate_audio: bool
    web_search: bool
    return_last_frame: bool
    output_format: Literal["mp4", "mov"]
    audio: "MediaInput"
    metadata: Dict[str, str]
    callback_url: str
    callback_signing_key_id: str
    max_credits: Union[str, float]
    deadline_seconds: int
    output_destination_id: str
    quote_id: str
    output_retention_days: int
    models: List[str]
    provider: "ProviderPreferences"


class InterfaceCardTiming(TypedDict):
    """How long the model's jobs take: the ETA's basis, the stall threshold (no progress for longer moves the job to the next route), and the shortest deadline_seconds a create may set"""
    typical_seconds: int
    stall_after_seconds: int
    min_deadline_seconds: int


class _InterfaceCardRequired(TypedDict):
    schema_version: str
    model: str
    display_name: str
    owned_by: str
    capability: str
    status: str
    available: bool
    quality_tier: str
    controls: List[Dict[str, Any]]
    inputs: List[Dict[str, Any]]
    rules: List[Dict[str, Any]]
    pricing: Dict[str, Any]
    auto: "AutoSelection"
    routes: List["CatalogRoute"]


class InterfaceCard(_InterfaceCardRequired, total=False):
    prompt: Dict[str, Any]
    outputs: Dict[str, Any]
    canvas: Dict[str, Any]
    timing: "InterfaceCardTiming"


class IssuedApiKey(TypedDict):
    key_id: str
    api_key: str
    name: Optional[str]
    region: str
    mode: Literal["live", "test"]
    permissions: List[Literal["catalog:read", "tasks:read", "tasks:write", "chat", "keys:manage", "webhooks:manage", "providers:manage", "storage:manage", "logs:read", "logs:manage"]]
    limits: "ApiKeyLimits"
    created_at: str


class LedgerTotals(TypedDict):
    granted: str
    captured: str
    reserved: str


class LedgerRecomputed(TypedDict):
    granted: str
    captured: str
    reserved: str


class Ledger(TypedDict):
    totals: "LedgerTotals"
    balance: str
    recomputed: "LedgerRecomputed"
    reservations: int
    open_reservations: int
    key_spend_mismatches: List[str]


class LogExport(TypedDict):
    object: Literal["log_export"]
    export_id: str
    kind: Literal["otlp", "destination"]
    mode: Literal["live", "test"]
    url: Optional[str]
    header_names: List[str]
    destination_id: Optional[str]
    prefix: Optional[str]
    created_at: str
    last_run_at: Optional[str]
    last_success_at: Optional[str]
    last_error: Optional[str]
    consecutive_failures: int
    next_run_at: str
    delivered_count: int


class LogExportList(TypedDict):
    object: Literal["list"]
    data: List["LogExport"]
    has_more: Literal[False]


class MediaInput(TypedDict):
    type: Literal["url"]
    url: str


class MediaInput(TypedDict):
    type: Literal["artifact"]
    artifact_id: str


class MediaInput(TypedDict):
    type: Literal["data_uri"]
    data_uri: str


class Model(TypedDict):
    id: str
    object: Literal["model"]
    created: int
    owned_by: str
    display_name: str
    status: str
    capabilities: List[str]
    available: bool


class ModelDetail(TypedDict):
    model: str
    display_name: str
    owned_by: str
    description: str
    status: str
    source: str
    interfaces: List["InterfaceCard"]


class ModelList(TypedDict):
    object: Literal["list"]
    data: List["Model"]


class ModelStatusRoutesItem(TypedDict):
    provider: str
    upstream_model: str
    state: Literal["operational", "degraded", "down"]


ModelStatusWindows = TypedDict("ModelStatusWindows", {"5m": "StatusWindow", "1h": "StatusWindow", "24h": "StatusWindow"}, total=False)


class ModelStatus(TypedDict):
    model: str
    state: Literal["operational", "degraded", "down"]
    routes: List["ModelStatusRoutesItem"]
    windows: "ModelStatusWindows"
    hourly_success: List[Optional[float]]


class _NewLogExportRequired(TypedDict):
    kind: Literal["otlp"]
    url: str


class NewLogExport(_NewLogExportRequired, total=False):
    headers: Dict[str, str]


class NewLogExport(TypedDict):
    kind: Literal["destination"]
    destination_id: str
    prefix: str


class OutboxMessage(TypedDict):
    id: str
    to: str
    subject: str
    text: str
    created_at: str


class OwnApiKey(TypedDict):
    key_id: str
    name: Optional[str]
    mode: Literal["live", "test"]
    permissions: List[Literal["catalog:read", "tasks:read", "tasks:write", "chat", "keys:manage", "webhooks:manage", "providers:manage", "storage:manage", "logs:read", "logs:manage"]]
    limits: "ApiKeyLimits"
    spent_credits: str
    reserved_credits: str
    remaining_credits: Optional[str]
    period_started_at: Optional[str]
    period_resets_at: Optional[str]


class PaletteEntry(TypedDict):
    color: str
    weight: float


class ProviderKeyWarningsItem(TypedDict):
    code: str
    message: str
    field: str


class _ProviderKeyRequired(TypedDict):
    object: Literal["provider_key"]
    provider: str
    mode: Literal["prefer", "fallback", "only"]
    models: Optional[List[str]]
    failover: bool
    base_url: Optional[str]
    last4: str
    status: Literal["active", "unchecked", "invalid"]
    status_reason: Optional[str]
    created_at: str
    updated_at: str
    last_used_at: Optional[str]


class ProviderKey(_ProviderKeyRequired, total=False):
    warnings: List["ProviderKeyWarningsItem"]


class ProviderKeyList(TypedDict):
    object: Literal["list"]
    data: List["ProviderKey"]
    has_more: Literal[False]


class ProviderPreferences(TypedDict, total=False):
    """Route preferences for this request (docs/routing.md): which providers may serve it, and in what order"""
    order: List[str]
    only: List[str]
    ignore: List[str]
    sort: Literal["price", "latency"]
    allow_fallbacks: bool


ProviderStatusWindows = TypedDict("ProviderStatusWindows", {"5m": "StatusWindow", "1h": "StatusWindow", "24h": "StatusWindow"}, total=False)


class ProviderStatus(TypedDict):
    provider: str
    state: Literal["operational", "degraded", "down"]
    windows: "ProviderStatusWindows"
    hourly_success: List[Optional[float]]
    open_circuits: List["StatusCircuit"]


class Quote(TypedDict):
    object: Literal["quote"]
    quote_id: str
    operation: str
    resolved_model: str
    credits: str
    lines: List["QuoteLine"]
    expires_at: str
    created_at: str


class QuoteLine(TypedDict):
    meter: str
    quantity: str
    unit: str
    unit_credits: str
    credits: str


class QuoteRequest(TypedDict):
    operation: str
    request: Dict[str, Any]


class _ReferenceToVideoRequestRequired(TypedDict):
    prompt: str
    references: List["VideoReference"]


class ReferenceToVideoRequest(_ReferenceToVideoRequestRequired, total=False):
    model: str
    negative_prompt: str
    duration: Union[int, Literal["auto"]]
    aspect_ratio: str
    resolution: str
    seed: int
    enhance_prompt: Optional[bool]
    watermark: bool
    generate_audio: bool
    web_search: bool
    return_last_frame: bool
    output_format: Literal["mp4", "mov"]
    metadata: Dict[str, str]
    callback_url: str
    callback_signing_key_id: str
    max_credits: Union[str, float]
    deadline_seconds: int
    output_destination_id: str
    quote_id: str
    output_retention_days: int
    models: List[str]
    provider: "ProviderPreferences"


class RequestAttemptError(TypedDict):
    code: str
    message: str


class RequestAttempt(TypedDict):
    provider: str
    upstream_model: str
    key: Literal["tenant", "platform"]
    started_at: str
    duration_ms: Optional[int]
    outcome: Literal["accepted", "refused", "failed", "succeeded", "timeout"]
    http_status: Optional[int]
    error: Optional["RequestAttemptError"]


class _RequestLogDetailCreditsRequired(TypedDict):
    charged: str
    settled: bool


class RequestLogDetailCredits(_RequestLogDetailCreditsRequired, total=False):
    held: str


class _RequestLogDetailRequired(TypedDict):
    object: Literal["request"]
    request_id: str
    created_at: str
    method: str
    route: str
    status: int
    error_code: Optional[str]
    duration_ms: int
    key_id: str
    mode: Literal["live", "test"]
    door: Literal["rest", "mcp", "console"]
    model: Optional[str]
    task_id: Optional[str]
    batch_id: Optional[str]
    credits: Optional["RequestLogDetailCredits"]
    user_agent: Optional[str]
    replay_of: Optional[str]
    recovered: bool
    attempts: List["RequestAttempt"]
    stages: List["RequestStage"]


class RequestLogDetail(_RequestLogDetailRequired, total=False):
    request_body: Optional[str]
    response_body: Optional[str]


class _RequestLogEntryCreditsRequired(TypedDict):
    charged: str
    settled: bool


class RequestLogEntryCredits(_RequestLogEntryCreditsRequired, total=False):
    held: str


class RequestLogEntry(TypedDict):
    object: Literal["request"]
    request_id: str
    created_at: str
    method: str
    route: str
    status: int
    error_code: Optional[str]
    duration_ms: int
    key_id: str
    mode: Literal["live", "test"]
    door: Literal["rest", "mcp", "console"]
    model: Optional[str]
    task_id: Optional[str]
    batch_id: Optional[str]
    credits: Optional["RequestLogEntryCredits"]
    user_agent: Optional[str]
    replay_of: Optional[str]
    recovered: bool


class RequestLogPage(TypedDict):
    object: Literal["list"]
    data: List["RequestLogEntry"]
    has_more: bool
    next_cursor: Optional[str]


class RequestReplayInput(TypedDict, total=False):
    model: str


class RequestStage(TypedDict):
    name: Literal["store_outputs", "deliver_outputs", "deliver_callback"]
    started_at: str
    duration_ms: Optional[int]
    outcome: Literal["succeeded", "failed", "pending"]
    error: Optional[str]


class RotatedApiKeyKey(TypedDict):
    key_id: str
    api_key: str
    name: Optional[str]
    region: str
    mode: Literal["live", "test"]
    permissions: List[Literal["catalog:read", "tasks:read", "tasks:write", "chat", "keys:manage", "webhooks:manage", "providers:manage", "storage:manage", "logs:read", "logs:manage"]]
    limits: "ApiKeyLimits"
    created_at: str


class RotatedApiKey(TypedDict):
    old: "ApiKey"
    key: "RotatedApiKeyKey"


class RotatedCallbackSigningKey(TypedDict):
    id: str
    status: Literal["active", "retired"]
    created_at: str
    retired_at: Optional[str]
    rotated_at: Optional[str]
    previous_valid_until: Optional[str]
    secret: str


class ServiceStatus(TypedDict):
    object: Literal["status"]
    generated_at: str
    state: Literal["operational", "degraded", "down"]
    providers: List["ProviderStatus"]
    models: List["ModelStatus"]
    open_circuits: List["StatusCircuit"]
    incidents: List["StatusIncident"]


class _SpeechRequestRequired(TypedDict):
    voice: str
    input: str


class SpeechRequest(_SpeechRequestRequired, total=False):
    model: str
    language: str
    format: Literal["mp3", "wav", "flac", "opus", "aac", "pcm"]
    sample_rate: int
    speed: float
    volume: float
    pitch: float
    emotion: str
    model_options: Dict[str, Any]
    metadata: Dict[str, str]
    callback_url: str
    callback_signing_key_id: str
    max_credits: Union[str, float]
    deadline_seconds: int
    output_destination_id: str
    quote_id: str
    output_retention_days: int
    models: List[str]
    provider: "ProviderPreferences"


class StatusCircuit(TypedDict):
    provider: str
    upstream_model: str
    state: Literal["open", "half_open"]
    retry_at: Optional[str]


class StatusIncident(TypedDict):
    provider: str
    upstream_model: str
    models: List[str]
    started_at: str
    ended_at: Optional[str]
    failures: int
    what_failed: str
    codes: Dict[str, int]


class StatusWindow(TypedDict):
    attempts: int
    success_rate: Optional[float]
    p50_seconds: Optional[float]
    p95_seconds: Optional[float]


class StorageDestination(TypedDict):
    object: Literal["storage_destination"]
    destination_id: str
    endpoint: str
    bucket: str
    region: str
    prefix: str
    path_style: bool
    default: bool
    access_key_id_last4: str
    secret_access_key_last4: str
    verified_at: str
    created_at: str


class StorageDestinationList(TypedDict):
    object: Literal["list"]
    data: List["StorageDestination"]
    has_more: Literal[False]


class _TaskEnvelopeModelFallbacksItemRequired(TypedDict):
    model: str
    reason: str
    at: str


class TaskEnvelopeModelFallbacksItem(_TaskEnvelopeModelFallbacksItemRequired, total=False):
    message: str


class _TaskEnvelopeProgressRequired(TypedDict):
    percent: int
    stage: str
    message: str


class TaskEnvelopeProgress(_TaskEnvelopeProgressRequired, total=False):
    queue_position: int
    eta_seconds: int


class TaskEnvelopeOutput(TypedDict, total=False):
    images: List["Artifact"]
    artifacts: List["Artifact"]
    text: str
    provider: Dict[str, Any]


class TaskEnvelopeWarningsItem(TypedDict):
    code: str
    message: str
    field: str


class TaskEnvelopeProviderFailedAttemptsItem(TypedDict):
    provider: str
    code: str
    message: str
    at: str


class TaskEnvelopeProvider(TypedDict):
    name: str
    upstream_model: str
    simulated: bool
    mode: Literal["live", "test"]
    key: Literal["platform", "tenant"]
    failed_attempts: List["TaskEnvelopeProviderFailedAttemptsItem"]


class _TaskEnvelopeErrorRequired(TypedDict):
    code: str
    type: str
    message: str
    retryable: bool
    request_id: str


class TaskEnvelopeError(_TaskEnvelopeErrorRequired, total=False):
    param: str
    details: Dict[str, Any]


class _TaskEnvelopeBillingRequired(TypedDict):
    charged_credits: str
    refunded_credits: str
    net_charged_credits: str
    refund_reason: Optional[str]


class TaskEnvelopeBilling(_TaskEnvelopeBillingRequired, total=False):
    granted_credits: str
    grant_source: str


class TaskEnvelopeCallback(TypedDict):
    url: str
    status: str
    attempt_count: int
    delivered_at: Optional[str]
    last_error: Optional[str]


class TaskEnvelopeDeliveryFailedItem(TypedDict):
    index: int
    key: str
    error: Optional[str]


class TaskEnvelopeDelivery(TypedDict):
    """Present when the outputs go to a storage destination"""
    destination_id: str
    status: Literal["pending", "delivered", "failed"]
    attempt_count: int
    last_attempt_at: Optional[str]
    failed: List["TaskEnvelopeDeliveryFailedItem"]


class _TaskEnvelopeLinksRequired(TypedDict):
    self: str
    cancel: str


class TaskEnvelopeLinks(_TaskEnvelopeLinksRequired, total=False):
    assets: str


class _TaskEnvelopeRequired(TypedDict):
    object: Literal["task"]
    task_id: str
    status: Literal["queued", "running", "succeeded", "failed", "canceled"]
    capability: str
    model: str
    resolved_model: str
    metadata: Dict[str, str]
    input: Dict[str, Any]
    progress: "TaskEnvelopeProgress"
    output: Optional["TaskEnvelopeOutput"]
    warnings: List["TaskEnvelopeWarningsItem"]
    usage: "Usage"
    billing: "TaskEnvelopeBilling"
    created_at: str
    started_at: Optional[str]
    deadline_at: str
    completed_at: Optional[str]
    cancel_requested_at: Optional[str]
    links: "TaskEnvelopeLinks"


class TaskEnvelope(_TaskEnvelopeRequired, total=False):
    workload_type: str
    batch_id: str
    custom_id: str
    models: List[str]
    model_fallbacks: List["TaskEnvelopeModelFallbacksItem"]
    provider: "TaskEnvelopeProvider"
    error: "TaskEnvelopeError"
    callback: "TaskEnvelopeCallback"
    delivery: Optional["TaskEnvelopeDelivery"]


class TaskPage(TypedDict):
    object: Literal["list"]
    data: List["TaskEnvelope"]
    has_more: bool
    next_cursor: Optional[str]


class Tenant(TypedDict):
    tenant_id: str
    name: str
    status: Literal["active", "disabled"]
    balance: str
    created_at: str
    rate_limit_per_minute: Optional[int]
    output_retention_days: int
    request_body_logging: Literal["off", "redacted", "full"]
    request_log_retention_days: int


class TenantMember(TypedDict):
    user_id: str
    email: str
    role: Literal["owner", "developer", "viewer"]
    status: Literal["invited", "active"]
    invited_by: Optional[str]
    created_at: str
    joined_at: Optional[str]


class TenantSafetyPolicy(TypedDict):
    tenant_id: str
    enabled: bool
    block_categories: List[str]
    thresholds: Dict[str, float]


class _TenantSafetyPolicyInputRequired(TypedDict):
    enabled: bool


class TenantSafetyPolicyInput(_TenantSafetyPolicyInputRequired, total=False):
    """Replaces the tenant's policy. Categories: harassment, harassment/threatening, hate, hate/threatening, illicit, illicit/violent, self-harm, self-harm/intent, self-harm/instructions, sexual, sexual/minors, violence, violence/graphic, specialized_advice, privacy, intellectual_property, elections, code_interpreter_abuse, test."""
    block_categories: List[str]
    thresholds: Dict[str, float]


class TenantSettingsInput(TypedDict, total=False):
    """At least one setting; those not given are left as they are"""
    output_retention_days: int
    request_body_logging: Literal["off", "redacted", "full"]
    request_log_retention_days: int


class TextToMusicRequestModelOptionsFamilyA(TypedDict, total=False):
    custom_mode: bool
    negative_tags: str
    vocal_gender: str
    style_weight: float
    weirdness_constraint: float
    audio_weight: float


class TextToMusicRequestModelOptionsFamilyBAudioSetting(TypedDict, total=False):
    sample_rate: int
    bitrate: int
    format: str


class TextToMusicRequestModelOptionsFamilyB(TypedDict, total=False):
    lyrics_optimizer: bool
    aigc_watermark: bool
    audio_setting: "TextToMusicRequestModelOptionsFamilyBAudioSetting"


class TextToMusicRequestModelOptions(TypedDict, total=False):
    family_a: "TextToMusicRequestModelOptionsFamilyA"
    family_b: "TextToMusicRequestModelOptionsFamilyB"


class _TextToMusicRequestRequired(TypedDict):
    prompt: str


class TextToMusicRequest(_TextToMusicRequestRequired, total=False):
    model: str
    lyrics: str
    instrumental: bool
    title: str
    model_options: "TextToMusicRequestModelOptions"
    metadata: Dict[str, str]
    callback_url: str
    callback_signing_key_id: str
    max_credits: Union[str, float]
    deadline_seconds: int
    output_destination_id: str
    quote_id: str
    output_retention_days: int
    models: List[str]
    provider: "ProviderPreferences"


class _TextToVideoRequestRequired(TypedDict):
    prompt: str


class TextToVideoRequest(_TextToVideoRequestRequired, total=False):
    model: str
    negative_prompt: str
    duration: Union[int, Literal["auto"]]
    aspect_ratio: str
    resolution: str
    seed: int
    enhance_prompt: Optional[bool]
    watermark: bool
    generate_audio: bool
    web_search: bool
    return_last_frame: bool
    output_format: Literal["mp4", "mov"]
    audio: Any
    metadata: Dict[str, str]
    callback_url: str
    callback_signing_key_id: str
    max_credits: Union[str, float]
    deadline_seconds: int
    output_destination_id: str
    quote_id: str
    output_retention_days: int
    models: List[str]
    provider: "ProviderPreferences"


class _UploadedArtifactRequired(TypedDict):
    object: Literal["artifact"]
    artifact_id: str
    kind: Literal["image", "video", "audio", "jsonl"]
    content_type: str
    bytes: int
    url: str
    created_at: str
    expires_at: str
    source: Literal["upload"]


class UploadedArtifact(_UploadedArtifactRequired, total=False):
    width: int
    height: int
    duration_seconds: float
    lines: int


class UsageLinesItem(TypedDict):
    meter: str
    quantity: str
    unit: str
    billed_amount_credits: str


class Usage(TypedDict):
    input_tokens: int
    output_tokens: int
    cache_read_tokens: int
    cache_creation_tokens: int
    reasoning_tokens: int
    image_count: int
    image_pixels: int
    video_seconds: int
    input_video_seconds: int
    output_video_seconds: int
    audio_seconds: int
    characters: int
    lines: List["UsageLinesItem"]
    credits: str


UsageReport = TypedDict("UsageReport", {"object": Literal["usage"], "mode": Literal["live", "test"], "from": str, "to": str, "group_by": Literal["day", "capability", "model"], "data": List["UsageReportRow"], "totals": "UsageReportFigures"}, total=False)


class UsageReportFigures(TypedDict):
    credits: str
    tasks: int
    completions: int
    succeeded: int
    failed: int
    canceled: int
    input_tokens: float
    output_tokens: float
    cache_read_tokens: float
    cache_creation_tokens: float
    reasoning_tokens: float
    image_count: float
    image_pixels: float
    video_seconds: float
    input_video_seconds: float
    output_video_seconds: float
    audio_seconds: float
    characters: float


class _UsageReportRowRequired(TypedDict):
    credits: str
    tasks: int
    completions: int
    succeeded: int
    failed: int
    canceled: int
    input_tokens: float
    output_tokens: float
    cache_read_tokens: float
    cache_creation_tokens: float
    reasoning_tokens: float
    image_count: float
    image_pixels: float
    video_seconds: float
    input_video_seconds: float
    output_video_seconds: float
    audio_seconds: float
    characters: float


class UsageReportRow(_UsageReportRowRequired, total=False):
    day: str
    capability: str
    model: str


class _VideoExtendRequestRequired(TypedDict):
    video: "MediaInput"
    direction: Literal["before", "after"]
    instruction: str
    duration: int


class VideoExtendRequest(_VideoExtendRequestRequired, total=False):
    model: str
    references: List["VideoReference"]
    negative_prompt: str
    aspect_ratio: str
    resolution: str
    seed: int
    enhance_prompt: Optional[bool]
    watermark: bool
    generate_audio: bool
    web_search: bool
    return_last_frame: bool
    output_format: Literal["mp4", "mov"]
    metadata: Dict[str, str]
    callback_url: str
    callback_signing_key_id: str
    max_credits: Union[str, float]
    deadline_seconds: int
    output_destination_id: str
    quote_id: str
    output_retention_days: int
    models: List[str]
    provider: "ProviderPreferences"


class _VideoPromptEnhanceRequestRequired(TypedDict):
    prompt: str


class VideoPromptEnhanceRequest(_VideoPromptEnhanceRequestRequired, total=False):
    model: str
    images: List["MediaInput"]
    target_model: str
    language: str
    style: str
    metadata: Dict[str, str]
    callback_url: str
    callback_signing_key_id: str
    max_credits: Union[str, float]
    deadline_seconds: int
    output_destination_id: str
    quote_id: str
    output_retention_days: int
    models: List[str]
    provider: "ProviderPreferences"


class _VideoReferenceRequired(TypedDict):
    kind: Literal["image", "video", "audio"]
    media: "MediaInput"


class VideoReference(_VideoReferenceRequired, total=False):
    role: str
    reference_voice: "MediaInput"


class _VideoToTextRequestRequired(TypedDict):
    prompt: str
    video: "MediaInput"


class VideoToTextRequest(_VideoToTextRequestRequired, total=False):
    model: str
    detail: Literal["default", "low", "high"]
    response_format: Literal["text", "json"]
    temperature: float
    metadata: Dict[str, str]
    callback_url: str
    callback_signing_key_id: str
    max_credits: Union[str, float]
    deadline_seconds: int
    output_destination_id: str
    quote_id: str
    output_retention_days: int
    models: List[str]
    provider: "ProviderPreferences"


class Voice(TypedDict):
    voice_id: str
    display_name: str
    category: Literal["preset", "cloned"]
    language: str
    languages_supported: List[str]
    gender: str
    age: str
    accent: str
    use_case: List[str]
    preview_url: str
    compatible_models: List[str]
    status: str
    created_at: str


class VoiceList(TypedDict):
    object: Literal["list"]
    data: List["Voice"]


class WebhookAttempt(TypedDict):
    attempt: int
    attempted_at: str
    http_status: Optional[int]
    duration_ms: int
    error: Optional[str]
    cause: Optional[str]
    location: Optional[str]
    response_excerpt: Optional[str]


class WebhookDelivery(TypedDict):
    object: Literal["webhook_delivery"]
    delivery_id: str
    target: Literal["callback", "endpoint"]
    endpoint_id: Optional[str]
    task_id: Optional[str]
    event_id: str
    event_type: str
    status: Literal["pending", "succeeded", "failed"]
    created_at: str
    finished_at: Optional[str]


class WebhookDeliveryDetail(TypedDict):
    object: Literal["webhook_delivery"]
    delivery_id: str
    target: Literal["callback", "endpoint"]
    endpoint_id: Optional[str]
    task_id: Optional[str]
    event_id: str
    event_type: str
    status: Literal["pending", "succeeded", "failed"]
    created_at: str
    finished_at: Optional[str]
    attempt_count: int
    next_attempt_at: Optional[str]
    last_error: Optional[str]
    attempts: List["WebhookAttempt"]


class WebhookDeliveryPage(TypedDict):
    object: Literal["list"]
    data: List["WebhookDelivery"]
    has_more: bool
    next_cursor: Optional[str]


class WebhookEndpoint(TypedDict):
    object: Literal["webhook_endpoint"]
    endpoint_id: str
    mode: Literal["live", "test"]
    url: str
    description: Optional[str]
    events: List[str]
    enabled: bool
    disabled_reason: Literal["failing", None]
    failing_since: Optional[str]
    secret_rotated_at: Optional[str]
    previous_secret_valid_until: Optional[str]
    created_at: str
    updated_at: str


class WebhookEndpointList(TypedDict):
    object: Literal["list"]
    data: List["WebhookEndpoint"]
    has_more: Literal[False]


class WebhookRecovery(TypedDict):
    object: Literal["webhook_recovery"]
    endpoint_id: str
    since: str
    deliveries: int
    skipped_pending: int
    left_out: int
    limited_by: Literal["per_call", "endpoint_budget", "tenant_budget", None]
    has_more: bool

