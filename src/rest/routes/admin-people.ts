/** Operator routes for people and mail: a tenant's members, and the local outbox. */
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { ApiError } from "../../errors/api-error";
import { type AppEnv, newRouter } from "../../http/context";
import { getTenantOr404 } from "../../services/accounts";
import type { Acting } from "../../services/people";
import { inviteMember, listMembers, outboxOf, ROLES } from "../../services/people";
import { declare } from "../declare";
import { errorResponses } from "../schemas";

const security = [{ adminToken: [] }];
const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

function operator(c: Context<AppEnv>): Acting {
  return {
    principal: { kind: "operator" },
    ip: c.req.header("CF-Connecting-IP") ?? null,
    user_agent: c.req.header("User-Agent") ?? null,
  };
}

export const adminPeopleRoutes = newRouter();

const OutboxMessage = z
  .object({
    id: z.string(),
    to: z.string(),
    subject: z.string(),
    text: z.string(),
    created_at: z.string(),
  })
  .openapi("OutboxMessage");

declare(
  adminPeopleRoutes,
  {
    operator: true,
    method: "get",
    path: "/admin/v1/outbox",
    operationId: "adminListOutbox",
    tags: ["Operator"],
    summary: "Mail kept by the local outbox (EMAIL_OUTBOX), newest first; deployments that send mail have none",
    security,
    request: {
      query: z.object({
        to: z.string().max(254).optional().openapi({ description: "Only the messages to this address" }),
        limit: z.coerce.number().int().min(1).max(100).default(50),
      }),
    },
    responses: {
      200: json(z.object({ object: z.literal("list"), data: z.array(OutboxMessage) }), "The messages"),
      ...errorResponses(401, 404, 422),
    },
  },
  async (c) => {
    const outbox = c.env.EMAIL_OUTBOX === "true" ? outboxOf(c.env) : null;
    if (!outbox) {
      throw new ApiError("not_found", "This deployment has no outbox: its mail goes out through the email API (EMAIL_API_URL).");
    }
    const q = c.req.valid("query");
    const data = await outbox.list({ limit: q.limit, ...(q.to ? { to: q.to.trim().toLowerCase() } : {}) });
    return c.json({ object: "list" as const, data: [...data] }, 200);
  },
);

const Member = z
  .object({
    user_id: z.string(),
    email: z.string(),
    role: z.enum(ROLES),
    status: z.enum(["invited", "active"]),
    invited_by: z.string().nullable(),
    created_at: z.string(),
    joined_at: z.string().nullable(),
  })
  .openapi("TenantMember");
const TenantId = z.object({ tenant_id: z.string().openapi({ example: "ten_0123456789abcdefghjkmnpqrs" }) });

declare(
  adminPeopleRoutes,
  {
    operator: true,
    method: "get",
    path: "/admin/v1/tenants/{tenant_id}/members",
    operationId: "adminListTenantMembers",
    tags: ["Operator"],
    summary: "A tenant's members and invitations",
    security,
    request: { params: TenantId },
    responses: {
      200: json(z.object({ object: z.literal("list"), data: z.array(Member) }), "The members"),
      ...errorResponses(401, 404),
    },
  },
  async (c) => {
    const { tenant_id } = c.req.valid("param");
    await getTenantOr404(c.env, tenant_id);
    return c.json({ object: "list" as const, data: await listMembers(c.env, tenant_id, operator(c)) }, 200);
  },
);

declare(
  adminPeopleRoutes,
  {
    operator: true,
    method: "post",
    path: "/admin/v1/tenants/{tenant_id}/members",
    operationId: "adminCreateTenantMember",
    tags: ["Operator"],
    summary: "Invite someone to a tenant with a role (they are emailed, and join at their first sign-in)",
    security,
    request: {
      params: TenantId,
      body: {
        required: true,
        content: {
          "application/json": {
            schema: z
              .object({
                email: z.email().max(254).openapi({ example: "dev@example.com" }),
                role: z.enum(ROLES).openapi({ example: "developer" }),
              })
              .strict(),
          },
        },
      },
    },
    responses: { 201: json(Member, "The invitation"), ...errorResponses(401, 404, 409, 422, 502) },
  },
  async (c) => {
    const { tenant_id } = c.req.valid("param");
    return c.json(await inviteMember(c.env, tenant_id, c.req.valid("json"), operator(c)), 201);
  },
);
