/** Gemini's JSON, read field by field: each shape is checked where it is used. */

export type Json = Record<string, any>;
