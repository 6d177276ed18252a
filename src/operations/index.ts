import { textToMusic, textToSpeech } from "./audio";
import { imageEdit, imageGeneration, imageToImage, imageUnderstanding } from "./images";
import type { OperationSpec } from "./types";
import {
  framesToVideo,
  imageToVideo,
  referenceToVideo,
  textToVideo,
  videoExtend,
  videoPromptEnhance,
  videoUnderstanding,
} from "./videos";

/** Every task-creating operation of the API. */
export const OPERATIONS: OperationSpec<any>[] = [
  imageGeneration,
  imageToImage,
  imageEdit,
  imageUnderstanding,
  videoPromptEnhance,
  textToVideo,
  imageToVideo,
  referenceToVideo,
  framesToVideo,
  videoExtend,
  videoUnderstanding,
  textToMusic,
  textToSpeech,
];
