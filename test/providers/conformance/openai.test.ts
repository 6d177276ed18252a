/** The conformance suite (test/providers/conformance.ts) on the routes of test/providers/subjects/openai.ts. */
import { conformanceSuite } from "../conformance";
import { subjects } from "../subjects/openai";

conformanceSuite(subjects);
