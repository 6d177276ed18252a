/**
 * Chat completions as the doors reach them: the request and answer shapes, the completion itself
 * and its safety review.
 */
export { chatCompletion } from "../chat/complete";
export { ChatCompletion, ChatCompletionRequest, ChatCompletionStream } from "../chat/schema";
export { reviewChat } from "../safety/chat";
