/** Every tool of /mcp, in the order `tools/list` gives them (fixed, so lists are cacheable). */
import { createBatchTool, getBatchTool } from "./batch-tools";
import { getBalanceTool, getModelTool, listModelsTool, listVoicesTool } from "./catalog-tools";
import { OPERATION_TOOLS } from "./operation-tools";
import { getQuoteTool } from "./quote-tools";
import { getRequestTool, listRequestsTool } from "./request-log-tools";
import { cancelTaskTool, deleteTaskOutputsTool, getTaskTool, listTasksTool, waitForTaskTool } from "./task-tools";
import type { ToolDefinition } from "./tool";

export const TOOLS: readonly ToolDefinition<any>[] = [
  ...OPERATION_TOOLS,
  getTaskTool,
  waitForTaskTool,
  cancelTaskTool,
  deleteTaskOutputsTool,
  listTasksTool,
  createBatchTool,
  getBatchTool,
  listModelsTool,
  getModelTool,
  listVoicesTool,
  getBalanceTool,
  getQuoteTool,
  listRequestsTool,
  getRequestTool,
];

const BY_NAME = new Map(TOOLS.map((t) => [t.name, t]));

export function toolNamed(name: string): ToolDefinition<any> | undefined {
  return BY_NAME.get(name);
}
