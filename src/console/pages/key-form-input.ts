/**
 * The keys page's posted forms read as the keys service takes them: a new key, and its limits.
 */
import type { Context } from "hono";
import { ApiError } from "../../errors/api-error";
import { isDecimalString } from "../../lib/decimal";
import { KEY_MODES, type KeyMode, PERIODS, PERMISSIONS, type Permission } from "../../services/accounts";
import { CAPABILITIES } from "../../services/catalog";
import type { LimitsInput } from "../../services/keys";
import type { ConsoleEnv } from "../context";
import { formField, formFields } from "../form-body";

export function invalid(param: string, reason: string): ApiError {
  return new ApiError("invalid_request", `${param}: ${reason}.`, {
    param,
    details: { errors: [{ loc: ["body", param], reason }] },
  });
}

/** A comma-separated list field: its entries, or undefined when empty. */
function listField(c: Context<ConsoleEnv>, name: string): string[] | undefined {
  const items = (formField(c, name) ?? "")
    .split(/[,\s]+/)
    .map((x) => x.trim())
    .filter((x) => x !== "");
  return items.length ? items : undefined;
}

/** The limit fields of a form, checked as the API checks them; null when none is set. */
export function limitsInput(c: Context<ConsoleEnv>): LimitsInput | null {
  const credits = formField(c, "limit_credits")?.trim() ?? "";
  if (credits !== "" && !isDecimalString(credits)) throw invalid("limit_credits", 'a decimal number such as "100" or "12.5"');
  const period = formField(c, "limit_period") ?? "month";
  if (!(PERIODS as readonly string[]).includes(period)) throw invalid("limit_period", `one of ${PERIODS.join(", ")}`);
  const models = listField(c, "limit_models");
  const capabilities = listField(c, "limit_capabilities");
  const unknown = capabilities?.find((x) => !(CAPABILITIES as readonly string[]).includes(x));
  if (unknown) throw invalid("limit_capabilities", `'${unknown}' is not a capability (${CAPABILITIES.join(", ")})`);
  if (credits === "" && !models && !capabilities) return null;
  return {
    ...(credits !== "" ? { credits } : {}),
    period: period as LimitsInput["period"],
    ...(models ? { models } : {}),
    ...(capabilities ? { capabilities } : {}),
  };
}

/** The create form's fields, checked as the operator API checks them. */
export function createInput(c: Context<ConsoleEnv>): {
  name: string;
  permissions: Permission[];
  mode: KeyMode;
  limits: LimitsInput | null;
} {
  const name = formField(c, "name")?.trim() ?? "";
  if (name.length < 1 || name.length > 100) throw invalid("name", "a name of 1 to 100 characters is required");
  const raw = formFields(c, "permissions");
  const permissions = [...new Set(raw)].filter((p): p is Permission => (PERMISSIONS as readonly unknown[]).includes(p));
  if (permissions.length === 0 || permissions.length !== new Set(raw).size) {
    throw invalid("permissions", `choose at least one of ${PERMISSIONS.join(", ")}`);
  }
  const mode = formField(c, "mode") ?? "live";
  if (typeof mode !== "string" || !(KEY_MODES as readonly string[]).includes(mode)) throw invalid("mode", "must be live or test");
  return { name, permissions, mode: mode as KeyMode, limits: limitsInput(c) };
}
