/** The conformance suite (test/providers/conformance.ts) on the routes of test/providers/subjects/dashscope.ts. */
import { conformanceSuite } from "../conformance";
import { subjects } from "../subjects/dashscope";

conformanceSuite(subjects);
