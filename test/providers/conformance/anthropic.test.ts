/** The conformance suite (test/providers/conformance.ts) on the routes of test/providers/subjects/anthropic.ts. */
import { conformanceSuite } from "../conformance";
import { subjects } from "../subjects/anthropic";

conformanceSuite(subjects);
