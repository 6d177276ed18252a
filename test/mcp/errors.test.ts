/** The one table from the error vocabulary to JSON-RPC codes, and the tool error's shape. */
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/errors/api-error";
import { ERROR_CODES, type ErrorCode } from "../../src/errors/codes";
import { JSONRPC_CODE_BY_STATUS, jsonRpcCodeOf, toolError } from "../../src/mcp/errors";

describe("jsonrpc_code", () => {
  it("the table names every status the error codes use", () => {
    for (const [code, info] of Object.entries(ERROR_CODES)) {
      expect(JSONRPC_CODE_BY_STATUS[info.status], `${code} (${info.status})`).toBeDefined();
    }
  });

  it("4xx is Invalid params, 5xx and 429 are Internal error", () => {
    for (const code of Object.keys(ERROR_CODES) as ErrorCode[]) {
      const status = ERROR_CODES[code].status;
      expect(jsonRpcCodeOf(code), code).toBe(status >= 500 || status === 429 ? -32603 : -32602);
    }
    expect(jsonRpcCodeOf("invalid_request")).toBe(-32602);
    expect(jsonRpcCodeOf("insufficient_scope")).toBe(-32602);
    expect(jsonRpcCodeOf("task_not_found")).toBe(-32602);
    expect(jsonRpcCodeOf("rate_limited")).toBe(-32603);
    expect(jsonRpcCodeOf("model_unavailable")).toBe(-32603);
    expect(jsonRpcCodeOf("internal_error")).toBe(-32603);
  });
});

describe("tool errors", () => {
  it("carry the REST error object plus jsonrpc_code, and a line for the model", () => {
    const result = toolError(
      new ApiError("invalid_request", "Request body is invalid at /count: Too big", {
        param: "/count",
        details: { errors: [{ loc: ["body", "count"], reason: "Too big" }] },
      }),
      "req_1",
    );
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({
      error: {
        code: "invalid_request",
        type: "invalid_request_error",
        message: "Request body is invalid at /count: Too big",
        retryable: false,
        param: "/count",
        details: { errors: [{ loc: ["body", "count"], reason: "Too big" }] },
        request_id: "req_1",
        jsonrpc_code: -32602,
      },
    });
    expect(result.content).toEqual([
      { type: "text", text: "invalid_request: Request body is invalid at /count: Too big (at /count)" },
    ]);
  });
});
